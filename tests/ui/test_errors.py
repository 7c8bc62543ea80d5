"""Exceptions in slots and threads: logged to the state folder, shown once, the app goes on."""

from __future__ import annotations

import sys
import threading

import pytest
from PySide6.QtCore import QTimer

from gibberish import paths
from gibberish.ui.errors import ErrorReporter, guard, log_path


@pytest.fixture
def reporter():
    shown: list[tuple[str, str]] = []
    rep = ErrorReporter(show=lambda title, text: shown.append((title, text)))
    rep.install()
    yield rep
    rep.uninstall()


def test_log_lives_in_the_state_folder() -> None:
    assert log_path() == paths.state_dir() / "gibberish.log"


def test_exception_in_a_guarded_slot_is_logged_and_shown_once(
    qtbot, reporter, controller, monkeypatch
) -> None:
    def broken(*_args, **_kwargs):
        raise RuntimeError("boom in the menu")

    monkeypatch.setattr(controller.engine.runs, "recent", broken)
    controller.menu.aboutToShow.emit()  # rebuild_menu reads the recent runs: fails
    controller.menu.aboutToShow.emit()  # the same failure again: logged, not shown again
    assert reporter.reported == 2
    assert len(reporter.shown) == 1
    assert "boom in the menu" in reporter.shown[0]
    text = log_path().read_text()
    assert text.count("RuntimeError: boom in the menu") == 2
    assert "Traceback" in text
    # The app keeps working.
    monkeypatch.undo()
    session = controller.launch("hello.say_hello")
    qtbot.waitUntil(lambda: session.result is not None)
    assert session.window.status == "succeeded"


@pytest.mark.qt_no_exception_capture
def test_unguarded_slot_goes_through_sys_excepthook(qtbot, reporter) -> None:
    assert sys.excepthook == reporter._excepthook

    def explode() -> None:
        raise ValueError("unguarded slot")

    QTimer.singleShot(0, explode)
    qtbot.waitUntil(lambda: reporter.reported == 1)
    assert "unguarded slot" in reporter.shown[0]
    assert "ValueError: unguarded slot" in log_path().read_text()


def test_exception_in_a_thread_is_shown_on_the_gui_thread(qtbot, reporter) -> None:
    def explode() -> None:
        raise KeyError("thread trouble")

    thread = threading.Thread(target=explode)
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: len(reporter.shown) == 1)
    assert "thread trouble" in reporter.shown[0]


def test_guard_without_a_reporter_logs_only() -> None:
    @guard
    def fails() -> None:
        raise OSError("quiet")

    assert fails() is None
    assert "OSError: quiet" in log_path().read_text()
