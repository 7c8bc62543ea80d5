"""Recent runs and recent folders, kept across restarts in the state folder.

The command bar lists recent runs with an empty query (by title and arguments, to run
again in one Enter) and the form offers recent working folders; both must survive a
restart, so they live in ``$XDG_STATE_HOME/gibberish/recent-runs.json`` (state, not
settings: losing it loses nothing but convenience). Bounded (``MAX_RUNS`` runs), written
atomically; values whose parameter name says it is a secret are never written (the form
memory's rule); a file that cannot be read is treated as empty.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gibberish import paths
from gibberish.fileio import atomic_write_bytes

MAX_RUNS = 30
MAX_FOLDERS = 8
MAX_VALUE = 2000
SECRET_NAME = re.compile(r"pass(word|phrase)?|secret|token|api[_-]?key|credential|private", re.I)


def keepable(name: str, value: Any) -> bool:
    """A value worth keeping on disk: not a secret by its name, not oversized."""
    if SECRET_NAME.search(name):
        return False
    if isinstance(value, list):
        return sum(len(str(v)) for v in value) <= MAX_VALUE
    return len(str(value)) <= MAX_VALUE


class PastRun(Struct, frozen=True):
    """One run as a person would start it again: the tool, its arguments, its folder."""

    ref: str
    arguments: dict[str, Any] = field(default_factory=dict)
    folder: str = ""
    when: float = 0.0
    ok: bool = True

    def same_call(self, other: PastRun) -> bool:
        return (self.ref, self.arguments, self.folder) == (other.ref, other.arguments, other.folder)


def _file() -> Path:
    return paths.state_dir() / "recent-runs.json"


def _read(data: object) -> PastRun | None:
    if not isinstance(data, dict):
        return None
    ref, arguments, folder = data.get("ref"), data.get("arguments", {}), data.get("folder", "")
    if not isinstance(ref, str) or not isinstance(arguments, dict) or not isinstance(folder, str):
        return None
    when = data.get("when", 0.0)
    return PastRun(
        ref,
        {str(k): v for k, v in arguments.items()},
        folder,
        float(when) if isinstance(when, int | float) else 0.0,
        bool(data.get("ok", True)),
    )


_read_last: tuple[tuple[str, int, int], list[PastRun]] | None = None
"""The last file read, by path, size and modification time: opening the command bar
reads the list again only when it changed."""


def runs() -> list[PastRun]:
    """Recent runs, newest first, one per distinct call."""
    global _read_last
    file = _file()
    try:
        stat = file.stat()
        key = (str(file), stat.st_size, stat.st_mtime_ns)
        if _read_last is not None and _read_last[0] == key:
            return list(_read_last[1])
        data = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    found = [_read(item) for item in data] if isinstance(data, list) else []
    listed = [run for run in found if run is not None]
    _read_last = (key, listed)
    return list(listed)


def add(ref: str, arguments: dict[str, Any], folder: Path | str, *, ok: bool = True) -> None:
    """Keep a run (newest first; an identical earlier call moves to the top)."""
    kept = {k: v for k, v in arguments.items() if keepable(k, v)}
    run = PastRun(ref, kept, str(folder), time.time(), ok)
    listed = [run] + [r for r in runs() if not r.same_call(run)]
    payload = [
        {"ref": r.ref, "arguments": r.arguments, "folder": r.folder, "when": r.when, "ok": r.ok}
        for r in listed[:MAX_RUNS]
    ]
    with contextlib.suppress(OSError, TypeError, ValueError):
        atomic_write_bytes(_file(), json.dumps(payload, ensure_ascii=False).encode("utf-8"))


def folders(ref: str | None = None) -> list[Path]:
    """Recent working folders that still exist, newest first (``ref``'s own first when
    given). Each is only offered: the form shows it before anything runs there."""
    past = runs()
    if ref is not None:
        past = [r for r in past if r.ref == ref] + [r for r in past if r.ref != ref]
    seen: list[Path] = []
    for run in past:
        folder = Path(run.folder) if run.folder else None
        if folder is None or not folder.is_absolute() or folder in seen:
            continue
        try:
            if folder.is_dir():
                seen.append(folder)
        except OSError:
            continue
    return seen[:MAX_FOLDERS]


def last_folder(ref: str) -> Path | None:
    """The folder ``ref`` last ran in (remembered per tool), when it still exists."""
    for run in runs():
        if run.ref == ref and run.folder:
            folder = Path(run.folder)
            if folder.is_absolute() and folder.is_dir():
                return folder
    return None
