"""``run_application``: start, quit from the menu or by a signal, and a failing start-up."""

from __future__ import annotations

import gc
import os
import signal
import time

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from gibberish.ui.application import run_application
from gibberish.ui.errors import log_path
from gibberish.ui.gui_gc import GuiGarbageCollector
from gibberish.ui.menu.launcher import LauncherWindow


def _launcher() -> LauncherWindow | None:
    for widget in QApplication.topLevelWidgets():
        if isinstance(widget, LauncherWindow) and widget.isVisible():
            return widget
    return None


def test_launcher_mode_runs_until_quit(qtbot, engine) -> None:
    seen: list[list[str]] = []

    deadline = time.monotonic() + 30

    def press_quit() -> None:
        launcher = _launcher()
        loaded = launcher is not None and "tool:hello.say_hello" in launcher.names()
        if not loaded and time.monotonic() < deadline:
            QTimer.singleShot(20, press_quit)  # the skills load on a worker thread
            return
        assert launcher is not None
        seen.append(launcher.names())
        seen.append(gc.isenabled())  # collection runs on the GUI thread only (gui_gc.py)
        launcher.trigger("quit")

    QTimer.singleShot(0, press_quit)
    assert run_application(lambda: engine, no_tray=False, tray_available=False) == 0
    assert "tool:hello.say_hello" in seen[0]
    assert seen[1] is False and gc.isenabled()
    assert "gibberish started (launcher)" in log_path().read_text()
    assert _launcher() is None


def test_sigterm_quits_cleanly(qtbot, engine) -> None:
    QTimer.singleShot(300, lambda: os.kill(os.getpid(), signal.SIGTERM))
    assert run_application(lambda: engine, tray_available=True) == 0
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_engine_that_cannot_start_is_a_message_not_a_traceback(qtbot) -> None:
    from gibberish.ui.seams import Seams

    shown = []

    def broken():
        raise PermissionError("skills folder is not readable")

    seams = Seams(show_fatal=lambda title, text: shown.append(text))
    assert run_application(broken, seams=seams) == 1
    assert "skills folder is not readable" in shown[0]
    assert "PermissionError" in log_path().read_text()


def test_the_gui_thread_collector_frees_cycles_by_the_thresholds(qtbot) -> None:
    import weakref

    class Node:
        pass

    collector = GuiGarbageCollector(interval_ms=10_000)
    try:
        collector.threshold = (10**9, 0, 0)
        assert collector.check() is None  # nothing due: nothing collected
        assert not gc.isenabled()
        collector.threshold = (0, 10**9, 10**9)  # anything allocated makes gen 0 due
        node = Node()
        node.me = node  # a cycle: only the cyclic collector frees it
        ref = weakref.ref(node)
        del node
        assert ref() is not None
        assert collector.check() == 0  # the young generation, where the cycle is
        assert ref() is None
    finally:
        collector.stop()
        collector.deleteLater()
    assert gc.isenabled()
