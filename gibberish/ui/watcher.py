"""Live reload: notice edits in the skills folders and tell the controller, once per burst.

``QFileSystemWatcher`` watches each source folder (a skill folder appears or goes away),
each folder inside it (a ``SKILL.md`` is created, a script is added) and each
``SKILL.md`` (edited in place). Editors save atomically — write a temp file, rename it
over the old one — and the watcher silently drops a file path whose inode went away, so
the watched set is recomputed after every reload (``watch`` re-adds what is missing).

Events are debounced: a save is several events (create, modify, rename, chmod), a
``git checkout`` hundreds; ``changed`` fires once, ``DEBOUNCE_MS`` after the last one.
The reload itself is ``engine.library.reload()``, which re-reads only what changed; the tray runs
it and ``watch_paths`` on a worker thread (``reloader``) and only ``apply`` on its own.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from PySide6.QtCore import QFileSystemWatcher, QObject, QTimer, Signal

DEBOUNCE_MS = 300
ADD_BATCH = 100
SKILL_FILE = "SKILL.md"


def watch_paths(sources: Iterable[Path], skill_dirs: Iterable[Path] = ()) -> set[str]:
    """Folders and files to watch for ``sources`` (their existing parts) and extra skill folders."""
    out: set[str] = set()
    folders: list[str] = []
    for source in sources:
        path = str(source)
        if os.path.isdir(path):
            out.add(path)
            try:
                with os.scandir(path) as entries:
                    folders.extend(
                        e.path for e in entries if e.is_dir() and not e.name.startswith(".")
                    )
            except OSError:
                continue
        else:
            parent = os.path.dirname(path)
            if os.path.isdir(parent):
                out.add(parent)  # so the folder's creation is noticed
    folders.extend(str(d) for d in skill_dirs)
    for folder in folders:
        if os.path.isdir(folder):
            out.add(folder)
            skill_file = os.path.join(folder, SKILL_FILE)
            if os.path.isfile(skill_file):
                out.add(skill_file)
    return out


class SkillsWatcher(QObject):
    """Emits ``changed`` once, ``debounce_ms`` after the last change under the watched folders."""

    changed = Signal()

    def __init__(self, debounce_ms: int = DEBOUNCE_MS, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._watcher = QFileSystemWatcher(self)
        self._watcher.directoryChanged.connect(self._poke)
        self._watcher.fileChanged.connect(self._poke)
        self._timer = QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(debounce_ms)
        self._timer.timeout.connect(self.changed)
        self.events = 0
        self._pending: list[str] = []

    def watch(self, sources: Iterable[Path], skill_dirs: Iterable[Path] = ()) -> None:
        """Make the watched set exactly what ``sources`` need now (re-adding replaced files)."""
        self.apply(watch_paths(sources, skill_dirs))

    def apply(self, wanted: set[str]) -> None:
        """Make the watched set exactly ``wanted`` (from ``watch_paths``, which may run on
        another thread: it is the part that touches the disk).

        New paths are added ``ADD_BATCH`` per turn of the event loop (about 5 ms): adding a watch is a
        system call, and the first watch list of 1,000 skills has 2,000 paths."""
        self._pending = []
        current = set(self._watcher.files()) | set(self._watcher.directories())
        stale = sorted(current - wanted)
        if stale:
            self._watcher.removePaths(stale)
        self._add(sorted(wanted - current))

    def _add(self, paths: list[str]) -> None:
        now, self._pending = paths[:ADD_BATCH], paths[ADD_BATCH:]
        if now:
            self._watcher.addPaths(now)
        if self._pending:
            QTimer.singleShot(0, self._add_pending)

    def _add_pending(self) -> None:
        if self._pending:
            self._add(self._pending)

    @property
    def adding(self) -> bool:
        """Paths are still waiting to be added on the next turns."""
        return bool(self._pending)

    def watched(self) -> set[str]:
        return set(self._watcher.files()) | set(self._watcher.directories())

    def _poke(self, _path: str) -> None:
        self.events += 1
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._pending = []
        paths = self._watcher.files() + self._watcher.directories()
        if paths:
            self._watcher.removePaths(paths)
