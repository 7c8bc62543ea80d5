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

    def microphone_moved(self) -> bool:
        self.asked.set()
        self.answer.wait(10)
        return self.moved


def _threads_named(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name]


def test_a_moved_answer_is_told_on_the_gui_thread_once(qtbot) -> None:
    engine = SlowEngine(moved=True)
    told: list[bool] = []
    recheck = MicrophoneRecheck(
        lambda: engine, lambda: told.append(QThread.currentThread().isMainThread())
    )
    recheck.start()
    recheck.start()  # asked again while the first question is under way: not twice
    assert engine.asked.wait(5)
    assert len(_threads_named("gibberish-microphone")) == 1
    engine.answer.set()
    qtbot.waitUntil(lambda: told == [True], timeout=5_000)


def test_an_unchanged_answer_tells_nothing(qtbot) -> None:
    engine = SlowEngine(moved=False)
    engine.answer.set()
    told: list[bool] = []
    recheck = MicrophoneRecheck(lambda: engine, lambda: told.append(True))
    recheck.start()
    qtbot.waitUntil(lambda: not _threads_named("gibberish-microphone"), timeout=5_000)
    qtbot.wait(50)
    assert told == []


def test_an_answer_after_the_application_ended_is_no_error() -> None:
    engine = SlowEngine(moved=True)
    errors: list[BaseException] = []
    previous = threading.excepthook
    threading.excepthook = lambda args: errors.append(args.exc_value)  # type: ignore[assignment]
    try:
        recheck = MicrophoneRecheck(lambda: engine, lambda: None)
        recheck.start()
        assert engine.asked.wait(5)
        shiboken6.delete(recheck)  # the window and its objects gone with the application
        engine.answer.set()
        for thread in _threads_named("gibberish-microphone"):
            thread.join(5)
    finally:
        threading.excepthook = previous
    assert errors == []
