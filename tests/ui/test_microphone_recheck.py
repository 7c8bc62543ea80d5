"""The microphone asked on a thread after the hotkey: told on the GUI thread, and quiet
when the application ended before the sound server answered."""

from __future__ import annotations

import threading

import shiboken6
from PySide6.QtCore import QThread

from gibberish.ui.menu.microphone_recheck import MicrophoneRecheck


class SlowEngine:
    """An Engine whose microphone answers when the test lets it."""

    def __init__(self, moved: bool) -> None:
        self.moved = moved
        self.answer = threading.Event()
        self.asked = threading.Event()
        self.questions = 0

    def microphone_moved(self) -> bool:
        self.questions += 1
        self.asked.set()
        self.answer.wait(10)
        return self.moved


def test_a_moved_answer_is_told_on_the_gui_thread_once(qtbot) -> None:
    engine = SlowEngine(moved=True)
    told: list[bool] = []
    recheck = MicrophoneRecheck(
        lambda: engine, lambda: told.append(QThread.currentThread().isMainThread())
    )
    asking = recheck.start()
    assert recheck.start() is None  # asked again while the first question is under way
    assert asking is not None and engine.asked.wait(5)
    engine.answer.set()
    asking.join(5)
    qtbot.waitUntil(lambda: told == [True], timeout=5_000)
    assert engine.questions == 1


def test_an_unchanged_answer_tells_nothing(qtbot) -> None:
    engine = SlowEngine(moved=False)
    engine.answer.set()
    told: list[bool] = []
    recheck = MicrophoneRecheck(lambda: engine, lambda: told.append(True))
    asking = recheck.start()
    assert asking is not None
    asking.join(5)
    qtbot.wait(50)  # the queued answer, had there been one, is delivered by now
    assert told == [] and engine.questions == 1


def test_an_answer_after_the_application_ended_is_no_error() -> None:
    engine = SlowEngine(moved=True)
    errors: list[BaseException] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: errors.append(args.exc_value)  # type: ignore[assignment]
    try:
        recheck = MicrophoneRecheck(lambda: engine, lambda: None)
        asking = recheck.start()
        assert asking is not None and engine.asked.wait(5)
        shiboken6.delete(recheck)  # the window and its objects gone with the application
        engine.answer.set()
        asking.join(5)
        assert not asking.is_alive()
    finally:
        threading.excepthook = previous
    assert errors == []
