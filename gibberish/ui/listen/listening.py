"""Listen from the tray: one utterance on a worker thread, its states back on the GUI thread.

The microphone (or, in tests, a WAV file: ``Seams.audio``) is read and decoded by
``voice.spoken.listen`` on a plain thread, so the tray never freezes. ``state`` says what the
tray icon should show: ``listening`` while audio is read, ``thinking`` once the end of
speech is found and the recognizer finishes, ``idle`` after. The answer comes back as
``heard`` (a ``gibberish.assistant.proposal.Proposal``) or ``failed`` (a sentence for the person).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal

from gibberish.logger import logger

if TYPE_CHECKING:
    from gibberish.engine.core import Engine
    from gibberish.skills.model import Mode

log = logger("gibberish.ui")

LISTENING = "listening"
THINKING = "thinking"
IDLE = "idle"


class _Watched:
    """An audio source that reports when its frames stop being read (end of speech), and
    how loud they are (for the level meter)."""

    def __init__(self, source: Any, done: Callable[[], None]) -> None:
        self.source = source
        self.description = source.description
        self._done = done
        self._level = 0.0

    @property
    def level(self) -> float:
        """The source's own level (a microphone's, live), else that of the last frames
        read (a file), 0..1 of full scale."""
        own = getattr(self.source, "level", None)
        return float(own) if isinstance(own, int | float) else self._level

    def frames(self, size: int) -> Iterator[bytes]:
        from gibberish.voice.audio import loudness

        measure = not isinstance(getattr(self.source, "level", None), int | float)
        try:  # a microphone measures its own level in its callback: not again here
            for frame in self.source.frames(size):
                if measure:
                    self._level = loudness(frame)
                yield frame
        finally:
            self._level = 0.0
            self._done()

    def stop(self) -> None:
        stop = getattr(self.source, "stop", None)
        if stop is not None:
            stop()


class Listening(QObject):
    state = Signal(str)
    heard = Signal(object)  # gibberish.assistant.proposal.Proposal
    failed = Signal(str)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._thread: threading.Thread | None = None
        self._source: _Watched | None = None
        self._cancelled = threading.Event()

    @property
    def level(self) -> float:
        """How loud the audio being listened to is now, 0..1 (0 when not listening)."""
        return self._source.level if self._source is not None and self.busy else 0.0

    @property
    def busy(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def start(self, engine: Engine, mode: Mode, source: Any, *, held: bool = False) -> bool:
        """Listen once; False when already listening (a second press then stops it).
        ``held``: a key held down, whose release ends the recording (``stop``)."""
        if self.busy:
            self.stop()
            return False
        self._source = _Watched(source, lambda: self.state.emit(THINKING))
        self._cancelled = threading.Event()
        self.state.emit(LISTENING)
        self._thread = threading.Thread(
            target=self._work,
            args=(engine, mode, self._source, held, self._cancelled),
            name="gibberish-listen",
        )
        self._thread.daemon = True
        self._thread.start()
        return True

    def _work(
        self, engine: Engine, mode: Mode, source: _Watched, held: bool, cancelled: threading.Event
    ) -> None:
        from gibberish.engine.core import EngineError
        from gibberish.voice.spoken import listen

        try:
            proposal = listen(engine, source, mode=mode, held=held)
        except EngineError as exc:
            if not cancelled.is_set():
                self.failed.emit(str(exc))
        except Exception as exc:  # a bug must not kill the tray silently
            log.exception("listening failed")
            if not cancelled.is_set():
                self.failed.emit(f"Listening failed: {type(exc).__name__}: {exc}")
        else:
            if not cancelled.is_set():  # cancelled: what was heard is dropped
                self.heard.emit(proposal)
        finally:
            self.state.emit(IDLE)

    def stop(self) -> None:
        """End the recording now (toggle mode's second press)."""
        if self._source is not None:
            self._source.stop()

    def cancel(self) -> None:
        """End the recording and drop what it heard: nothing is proposed (Esc, or the
        listen key pressed again while listening one utterance)."""
        if self.busy:
            self._cancelled.set()
            self.stop()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    def wait(self, timeout: float = 10.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout)
