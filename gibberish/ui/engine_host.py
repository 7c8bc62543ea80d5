"""Builds the Engine in the background after the tray is up, and hands it to the GUI once.

Importing the Engine (parser, runner, trust store, model feed) and parsing every SKILL.md
costs several times what Qt itself costs to start. None of it is needed to *show* the
tray: the menu can be drawn from ``menu_cache`` first. So the controller starts with a
host that is not ready yet, and the host builds the Engine on a worker thread once the
event loop runs. ``ready`` / ``failed`` arrive on the GUI thread (queued signals).

Until then nothing in the GUI thread touches the Engine. Code that needs it anyway (a
click on a cached menu entry in the first few hundred milliseconds) calls ``get()``,
which waits for the worker — the only blocking wait, and a short one.

Tests and callers that already have an Engine pass it in: the host is ready at once and
everything stays synchronous.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from gibberish.engine.core import Engine

EngineSource = Any
"""An ``Engine``, or a zero-argument callable returning one."""


class EngineHost(QObject):
    ready = Signal()
    failed = Signal(object)

    def __init__(self, source: EngineSource, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._engine: Engine | None = None
        self._error: BaseException | None = None
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._factory: Callable[[], Engine] | None = None
        if callable(source) and not hasattr(source, "skills"):
            self._factory = source
        else:
            self._engine = source
            self._done.set()
        self._announce = _Announcer()
        # Automatic connection: emitted from the worker thread to an object living in the
        # GUI thread, so Qt queues it (and ``_finished`` runs on the GUI thread).
        self._announce.done.connect(self._finished)

    @property
    def is_ready(self) -> bool:
        return self._done.is_set() and self._engine is not None

    @property
    def loading(self) -> bool:
        return not self._done.is_set()

    def start(self) -> None:
        """Start building the Engine on a worker thread (no-op when already built)."""
        if self._done.is_set() or self._thread is not None:
            return
        self._thread = threading.Thread(target=self._build, name="gibberish-engine", daemon=True)
        self._thread.start()

    def _build(self) -> None:
        assert self._factory is not None
        try:
            engine = self._factory()
            engine.library.ensure_loaded()  # parse every SKILL.md here, not on the GUI thread
        except BaseException as exc:  # handed to the GUI, which says what went wrong
            self._error = exc
        else:
            self._engine = engine
        self._done.set()
        # RuntimeError: the app quit (and deleted the announcer) while the Engine loaded.
        with contextlib.suppress(RuntimeError):
            self._announce.done.emit()

    def _finished(self) -> None:
        if self._error is not None:
            self.failed.emit(self._error)
        else:
            self.ready.emit()

    def get(self) -> Engine:
        """The Engine, waiting for the worker if it is still loading; raises its error."""
        if not self._done.is_set():
            self.start()
            self._done.wait()
        if self._error is not None:
            raise self._error
        assert self._engine is not None
        return self._engine


class _Announcer(QObject):
    """Lives in the GUI thread; the worker emits through it (queued across threads)."""

    done = Signal()
