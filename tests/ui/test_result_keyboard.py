"""The result window with the keyboard: cancel keys, focus after a run ends, "No output"."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from tests.ui.conftest import tool_block, wait_for_result, write_skill


def running(qtbot, controller):
    session = controller.launch("slow.nap")
    window = session.window
    qtbot.waitUntil(lambda: "started" in window.output_text(), timeout=5000)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    return session, window


def test_enter_on_a_focused_cancel_button_cancels(qtbot, controller) -> None:
    session, window = running(qtbot, controller)
    window.cancel_button.setFocus()
    qtbot.waitUntil(window.cancel_button.hasFocus)
    qtbot.keyClick(window.cancel_button, Qt.Key.Key_Return)
    wait_for_result(qtbot, session)
    assert window.status == "cancelled"


@pytest.mark.parametrize("keys", ["Ctrl+C", "Ctrl+."])
def test_cancel_shortcuts(qtbot, controller, keys: str) -> None:
    session, window = running(qtbot, controller)
    window.view.setFocus()
    qtbot.waitUntil(window.view.hasFocus)
    key = Qt.Key.Key_C if keys == "Ctrl+C" else Qt.Key.Key_Period
    qtbot.keyClick(window.view, key, Qt.KeyboardModifier.ControlModifier)
    wait_for_result(qtbot, session)
    assert window.status == "cancelled"


def test_ctrl_c_with_a_selection_copies_and_keeps_running(qtbot, controller) -> None:
    from PySide6.QtGui import QGuiApplication

    session, window = running(qtbot, controller)
    window.view.setFocus()
    window.view.selectAll()
    qtbot.keyClick(window.view, Qt.Key.Key_C, Qt.KeyboardModifier.ControlModifier)
    assert QGuiApplication.clipboard().text().startswith("started")
    assert window.status == "running"
    window.request_cancel()
    wait_for_result(qtbot, session)


def test_focus_stays_off_close_when_the_run_ends(qtbot, controller) -> None:
    session, window = running(qtbot, controller)
    window.cancel_button.setFocus()
    qtbot.waitUntil(window.cancel_button.hasFocus)
    window.request_cancel()
    wait_for_result(qtbot, session)
    assert window.focusWidget() is not window.close_button
    qtbot.keyClick(window.focusWidget(), Qt.Key.Key_Space)  # meant for Cancel
    assert window.isVisible()


def test_a_finished_run_with_no_output_says_so(qtbot, controller, skills_dir) -> None:
    write_skill(
        skills_dir, "quiet", [tool_block("hush", "Print nothing.", "true")], extra="read_only: true"
    )
    controller.reload()
    session = controller.launch("quiet.hush")
    wait_for_result(qtbot, session)
    assert session.window.output_text() == ""
    assert session.window.view.placeholderText() == "No output"
