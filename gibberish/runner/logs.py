"""Where full run logs go, and how they are kept from filling the disk.

Each run may write a log of up to 16 MiB (``RunSpec.log_limit``); kept forever, a busy
tray would grow without bound. :class:`RunLogs` hands out the path for a run's log and,
at most once per :data:`PRUNE_INTERVAL` seconds per process, applies the
:class:`RetentionPolicy`: logs older than ``max_age`` go, then the oldest beyond
``max_count``, then the oldest until the total fits in ``max_total_bytes``. Only files
named like run logs (``<32 hex>.log``) are ever removed; the newest log is never
removed by the size rule, so the run that just ended can always be read.
"""

from __future__ import annotations

import os
import re
import threading
import time
from pathlib import Path

from msgspec import Struct

PRUNE_INTERVAL = 60.0
_LOG_NAME = re.compile(r"[0-9a-f]{32}\.log")


class RetentionPolicy(Struct, frozen=True):
    """How many run logs to keep: by count, by age (seconds), by total size (bytes)."""

    max_count: int = 200
    max_age: float = 14 * 24 * 3600.0
    max_total_bytes: int = 256 * 1024 * 1024


class _Log(Struct, frozen=True):
    path: Path
    mtime: float
    size: int


def _logs(folder: Path) -> list[_Log]:
    """Run logs in ``folder``, newest first."""
    found = []
    try:
        with os.scandir(folder) as scan:
            for entry in scan:
                if not _LOG_NAME.fullmatch(entry.name):
                    continue
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found.append(_Log(Path(entry.path), info.st_mtime, info.st_size))
    except OSError:
        return []
    return sorted(found, key=lambda log: log.mtime, reverse=True)


def prune(folder: Path, policy: RetentionPolicy, *, now: float | None = None) -> list[Path]:
    """Remove the run logs ``policy`` does not keep; return the paths removed."""
    now = time.time() if now is None else now
    logs = _logs(folder)
    keep: list[_Log] = []
    drop: list[_Log] = []
    total = 0
    for index, log in enumerate(logs):
        too_old = now - log.mtime > policy.max_age
        too_many = index >= policy.max_count
        too_big = index > 0 and total + log.size > policy.max_total_bytes
        if too_old or too_many or too_big:
            drop.append(log)
        else:
            keep.append(log)
            total += log.size
    removed = []
    for log in drop:
        try:
            os.unlink(log.path)
        except OSError:
            continue
        removed.append(log.path)
    return removed


class RunLogs:
    """The folder of full run logs: a path per run, pruned now and then."""

    def __init__(self, folder: Path, policy: RetentionPolicy | None = None) -> None:
        self.folder = Path(folder)
        self.policy = policy or RetentionPolicy()
        self._lock = threading.Lock()
        self._last_prune = float("-inf")

    def path_for(self, run_id: str) -> Path:
        """Where the log of ``run_id`` goes (the folder is created, old logs pruned)."""
        self.folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.prune_if_due()
        return self.folder / f"{run_id}.log"

    def prune_if_due(self) -> list[Path]:
        with self._lock:
            now = time.monotonic()
            if now - self._last_prune < PRUNE_INTERVAL:
                return []
            self._last_prune = now
        return prune(self.folder, self.policy)
