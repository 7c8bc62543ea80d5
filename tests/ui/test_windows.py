"""New windows are centred on the active screen and fit it; the launcher keeps its rows."""

from __future__ import annotations

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QWidget

from gibberish.ui.menu.launcher import LauncherWindow
from gibberish.ui.placement import FILL, place
from tests.ui.conftest import make_controller, wait_for_result


def test_a_window_taller_than_the_screen_is_fitted_and_centred(qtbot) -> None:
    area = QGuiApplication.primaryScreen().availableGeometry()
    window = QWidget()
    qtbot.addWidget(window)
    window.resize(area.width() * 2, area.height() * 2)  # what 2× scale does to a big window
    place(window)
    assert window.width() <= area.width() * FILL and window.height() <= area.height() * FILL
    assert area.contains(window.geometry())
    centre = window.geometry().center()
    assert abs(centre.x() - area.center().x()) <= 2 and abs(centre.y() - area.center().y()) <= 2


def test_a_result_shows_in_the_one_window_on_screen(qtbot, controller) -> None:
    area = QGuiApplication.primaryScreen().availableGeometry()
    session = controller.launch("hello.say_hello")
    wait_for_result(qtbot, session)
    bar = controller.text.command_bar
    assert session.window.window() is bar and bar.isVisible()  # no window of its own
    assert area.contains(bar.frameGeometry())


def test_the_launcher_keeps_expanded_rows_across_starts(qtbot, engine) -> None:
    first = make_controller(engine, tray=False)
    first.start()
    launcher: LauncherWindow = first.surface.launcher
    launcher.tree.collapseAll()
    launcher.find_item("skill:slow").setExpanded(True)
    first.shutdown()

    second = make_controller(engine, tray=False)
    second.start()
    again = second.surface.launcher
    assert again.find_item("skill:slow").isExpanded()
    assert not again.find_item("skill:hello").isExpanded()
    second.shutdown()
