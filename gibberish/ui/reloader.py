"""Reloads the skills on a worker thread; the GUI thread only applies the result.

A reload after one edit stats every skill's files (``SkillLibrary.refresh``) and then
lists what the file watcher must follow — some 3,000 system calls at 1,000 skills, tens
of milliseconds the GUI thread would otherwise stall for. Both run here, off the GUI
thread: the library publishes its new skills under its own lock, so the GUI keeps
reading the previous ones until the swap. ``done`` then arrives on the GUI thread
(a queued signal) with what the GUI needs to apply: the problems before, the changes,
and the paths to watch.

Reloads never overlap: a request while one runs is remembered and runs right after it
(a burst of saves is one or two reloads, never a queue of them).
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from msgspec import Struct, field
from PySide6.QtCore import QObject, Signal

from gibberish.ui.watcher import watch_paths

if TYPE_CHECKING:
    from gibberish.engine.core import Engine
    from gibberish.skills.library import LibraryChanges


class ReloadResult(Struct):
    """What one background reload found (``error`` set when it failed)."""

    manual: bool
    before: set[str] = field(default_factory=set)
    changes: LibraryChanges | None = None
    watch: set[str] = field(default_factory=set)
    error: BaseException | None = None
    thread: int = 0
    """The thread that did the work (tests check it was not the GUI's)."""


class BackgroundReload(QObject):
    done = Signal(object)  # ReloadResult, on the GUI thread

    def __init__(self, engine: Callable[[], Engine], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        self._thread: threading.Thread | None = None
        self._again: bool | None = None  # a request that came while one ran (its ``manual``)
        self._follow: Path | None = None  # a project folder to follow at the next start
        self._relay = _Relay()
        # Emitted from the worker to an object living in the GUI thread: queued.
        self._relay.finished.connect(self._finished)

    @property
    def busy(self) -> bool:
        return self._thread is not None

    def start(self, *, manual: bool = False, follow: Path | None = None) -> None:
        """Reload now, or right after the reload already running. ``follow``: the focused
        app's folder, whose project's skills are to be loaded too (on the worker)."""
        if follow is not None:
            self._follow = follow
        if self._thread is not None:
            self._again = bool(self._again) or manual
            return
        follow, self._follow = self._follow, None
        self._thread = threading.Thread(
            target=self._work, args=(manual, follow), name="gibberish-reload", daemon=True
        )
        self._thread.start()

    def _work(self, manual: bool, follow: Path | None = None) -> None:
        result = ReloadResult(manual, thread=threading.get_ident())
        try:
            engine = self._engine()
            if follow is not None:
                engine.library.follow_project(follow)
            result.before = {s.name for s in engine.library.problems()}
            result.changes = engine.library.reload()
            result.watch = watch_paths(*engine.library.watched_folders())
        except Exception as exc:  # shown by the GUI, which says what went wrong
            result.error = exc
        # RuntimeError: the app quit (and deleted the relay) while this ran.
        with contextlib.suppress(RuntimeError):
            self._relay.finished.emit(result)

    def _finished(self, result: ReloadResult) -> None:
        thread, self._thread = self._thread, None
        if thread is not None:
            thread.join()
        self.done.emit(result)
        again, self._again = self._again, None
        if again is not None:
            self.start(manual=again)

    def wait(self, timeout: float = 10.0) -> None:
        """Wait for a running reload's thread to end (on quit); its result is dropped."""
        self._again = None
        thread = self._thread
        if thread is not None:
            thread.join(timeout)


class _Relay(QObject):
    """Lives in the GUI thread; the worker emits through it (queued across threads)."""

    finished = Signal(object)
