"""Every interactive widget of every window has a name a screen reader can say.

The walk goes through ``QAccessible`` (what assistive technology sees), not through the
widgets' own properties, and prints the count of named and unnamed widgets.
"""

from __future__ import annotations

from collections.abc import Iterator

from PySide6.QtCore import Qt
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from gibberish.app import Engine
from gibberish.export.plugin import choices
from gibberish.ui import accessibility
from gibberish.ui.approval.approvals_dialog import ApprovalsDialog
from gibberish.ui.approval.dialog import ApprovalDialog
from gibberish.ui.command_bar.bar import CommandBar
from gibberish.ui.export.dialog import ExportDialog
from gibberish.ui.runs.param_form import ParameterForm
from gibberish.ui.settings.dialog import SettingsDialog
from tests.ui.conftest import make_controller, wait_for_result

INTERACTIVE = (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSpinBox,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
)


def interactive(window: QWidget) -> Iterator[QWidget]:
    for widget in window.findChildren(QWidget):
        if not widget.isVisibleTo(window):
            continue
        if isinstance(widget, INTERACTIVE) or widget.focusPolicy() & Qt.FocusPolicy.TabFocus:
            if widget.parent() is not None and isinstance(widget.parent(), QAbstractSpinBox):
                continue  # a spin box's own line edit: the spin box is what is named
            if isinstance(widget.parent(), QComboBox):
                continue
            yield widget


def spoken_name(widget: QWidget) -> str:
    iface = QAccessible.queryAccessibleInterface(widget)
    return iface.text(QAccessible.Text.Name).strip() if iface is not None else ""


def windows(qtbot, engine: Engine) -> Iterator[tuple[str, QWidget]]:
    target = engine.library.find_tool("kinds.all_types")
    yield "approval", ApprovalDialog(engine.runs.prepare("hello.say_hello"))
    yield "form", ParameterForm(target.skill, target.tool, lambda a: engine.runs.render(target, a))
    bar = CommandBar()
    bar.set_tools(engine.library.tools())
    bar.popup("hello")
    yield "command bar", bar
    settings = SettingsDialog(engine.settings)
    for tab in range(settings.tabs.count()):  # a hidden tab's widgets are not listed
        settings.tabs.setCurrentIndex(tab)
        yield f"settings ({settings.tabs.tabText(tab).replace('&', '')})", settings
    engine.trust.approve_prepared(engine.runs.prepare("hello.say_hello"))
    yield "approvals", ApprovalsDialog(engine.trust)
    yield "export", ExportDialog(choices(engine.library.skills()))
    controller = make_controller(engine, tray=False)
    controller.start()
    yield "launcher", controller.surface.launcher
    session = controller.runs.start(engine.runs.prepare("hello.say_hello"), confirmed=True)
    wait_for_result(qtbot, session)
    yield "result", session.window
    controller.shutdown()


def test_every_interactive_widget_has_an_accessible_name(qtbot, engine: Engine) -> None:
    named, unnamed = 0, []
    for title, window in windows(qtbot, engine):
        window.show()
        for widget in interactive(window):
            if spoken_name(widget):
                named += 1
            else:
                unnamed.append(f"{title}: {type(widget).__name__} {widget.objectName()!r}")
        window.hide()
    print(f"\naccessible names: {named} named, {len(unnamed)} unnamed")
    assert not unnamed, "\n".join(unnamed)
    assert named > 30


def test_the_dismiss_button_is_not_named_by_its_glyph(qtbot, engine: Engine) -> None:
    controller = make_controller(engine, tray=False)
    controller.start()
    names = [spoken_name(w) for w in interactive(controller.surface.launcher)]
    assert "✕" not in names and "Hide this message" in names
    controller.shutdown()


def test_a_new_selection_in_the_results_is_announced(qtbot, engine: Engine) -> None:
    heard: list[str] = []
    accessibility.listeners.append(lambda view, text: heard.append(text))
    try:
        bar = CommandBar()
        qtbot.addWidget(bar)
        bar.set_tools(engine.library.tools())
        bar.popup("")
        heard.clear()
        qtbot.keyClick(bar.input, Qt.Key.Key_Down)
        assert heard and heard[-1] == bar.results.currentIndex().data()
        assert bar.current_ref() == bar.refs()[1]
    finally:
        accessibility.listeners.clear()


def test_every_button_of_every_window_has_a_mnemonic(qtbot, engine: Engine) -> None:
    from PySide6.QtGui import QKeySequence
    from PySide6.QtWidgets import QPushButton

    missing = []
    for title, window in windows(qtbot, engine):
        for button in window.findChildren(QPushButton):
            if button.text() and QKeySequence.mnemonic(button.text()).isEmpty():
                missing.append(f"{title}: {button.text()!r}")
    assert not missing, missing
