"""The microphone asked after the hotkey, not before the command bar shows.

Whether a microphone is in use (one half of Meeting mode) is a question to the sound
server, asked by running ``pactl``: a process of 5–10 ms that the person would wait on
between the hotkey and the bar. So the bar opens in the mode of the microphone's last
answer, the microphone is asked on a thread right after, and only when its answer moved
is the mode taken again and the bar listed anew — a few milliseconds later, before a
person has typed.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Qt, Signal

from gibberish.logger import logger

if TYPE_CHECKING:
    from gibberish.engine.core import Engine

log = logger("gibberish.ui")


class MicrophoneRecheck(QObject):
    """Asks the Engine's microphone on a thread; ``moved`` comes on the GUI thread."""

    _answered = Signal(bool)

    def __init__(self, engine: Callable[[], Engine], moved: Callable[[], None]) -> None:
        super().__init__()
        self._engine = engine
        self._moved = moved
        self._lock = threading.Lock()
        self._asking = False
        self._answered.connect(self._on_answer, Qt.ConnectionType.QueuedConnection)

    def start(self) -> threading.Thread | None:
        """Ask now, on a thread (a question already under way is not asked twice: then
        None)."""
        with self._lock:
            if self._asking:
                return None
            self._asking = True
        thread = threading.Thread(target=self._ask, name="gibberish-microphone", daemon=True)
        thread.start()
        return thread

    def _ask(self) -> None:
        moved = False
        try:
            moved = self._engine().microphone_moved()
        except Exception as exc:  # a question about the desktop never stops the bar
            log.warning("asking the microphone failed: %s", exc, exc_info=True)
        finally:
            with self._lock:
                self._asking = False
        try:
            self._answered.emit(moved)
        except RuntimeError:  # the application ended while the sound server answered
            log.debug("the microphone answered after the application ended")

    def _on_answer(self, moved: bool) -> None:
        if moved:
            self._moved()
