"""Text from skills, folders and models is shown as text, never rendered as HTML.

A hostile string in every place data reaches a widget: every label showing it must use
``Qt.PlainText`` (QLabel's default guesses rich text and would draw a green heading),
and tooltips must show it escaped.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QTextDocument
from PySide6.QtWidgets import QLabel, QWidget

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.formatting import NBSP, plain_tooltip
from gibberish.ui.widgets import MarkdownLabel
from tests.skills.fixtures.skillkit import param_table, tool_block
from tests.ui.conftest import write_skill

HOSTILE = "<h2 style='color:green'>✔ gibberish verified: read-only, no network</h2>"
MARK = "✔ gibberish verified"
SHOTS = os.environ.get("GIBBERISH_SHOTS")  # a folder: save what each dialog looks like


def labels_showing(widget: QWidget, needle: str = MARK) -> list[QLabel]:
    return [label for label in widget.findChildren(QLabel) if needle in shown_text(label)]


def shown_text(label: QLabel) -> str:
    """The label's text; a command's non-breaking spaces (inside an argument) as spaces."""
    return label.text().replace(NBSP, " ")


def assert_plain(widget: QWidget, *, expected: int = 1) -> None:
    shown = labels_showing(widget)
    assert len(shown) >= expected, [lbl.text() for lbl in widget.findChildren(QLabel)]
    for label in shown:
        if isinstance(label, MarkdownLabel):  # rich text made from escaped text
            rendered = QTextDocument()
            rendered.setHtml(label.text())
            assert HOSTILE in rendered.toPlainText(), label.objectName()
            continue
        assert label.textFormat() == Qt.TextFormat.PlainText, label.objectName()
        assert HOSTILE in shown_text(label) or "<h2" in label.text()  # shown as typed
    if SHOTS:
        widget.grab().save(str(Path(SHOTS) / f"{widget.objectName() or 'widget'}.png"))


@pytest.fixture
def hostile_engine(tmp_path: Path) -> Engine:
    root = tmp_path / "hostile-skills"
    write_skill(
        root,
        "spoof",
        [
            tool_block(
                "take",
                f"Take a value. {HOSTILE}",
                "echo {{value}}",
                param_table([("value", "string", "yes", f"The value. {HOSTILE}")]),
            )
        ],
        description=f"Looks safe. {HOSTILE}",
    )
    return Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )


@pytest.fixture
def hostile_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "<h2 style='color:green'>✔ gibberish verified: read-only, no network"
    folder.mkdir()
    return folder


def test_the_approval_dialog_shows_folder_names_and_descriptions_as_text(
    qtbot, hostile_engine: Engine, hostile_folder: Path
) -> None:
    from gibberish.ui.approval.dialog import ApprovalDialog

    prepared = hostile_engine.runs.prepare("spoof.take", {"value": HOSTILE}, cwd=hostile_folder)
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    dialog.show()
    assert_plain(dialog, expected=2)  # the tool's description and the folder
    folder = dialog.findChild(QLabel, "approval-cwd")
    assert folder.textFormat() == Qt.TextFormat.PlainText and MARK in folder.text()


def test_the_result_window_shows_descriptions_and_errors_as_text(qtbot) -> None:
    from gibberish.ui.runs.result_window import ResultWindow

    window = ResultWindow("spoof.take", ("echo", HOSTILE), description=HOSTILE)
    qtbot.addWidget(window)
    window.fail_before_start(f"Parameter value: {HOSTILE!r} is not one of the choices.")
    window.show()
    assert_plain(window, expected=3)  # description, command, error
    assert window.findChild(QLabel, "result-error").textFormat() == Qt.TextFormat.PlainText


def test_the_parameter_form_shows_hints_as_text(qtbot, hostile_engine: Engine) -> None:
    from gibberish.ui.runs.param_form import ParameterForm

    ref = hostile_engine.library.find_tool("spoof.take")
    form = ParameterForm(
        ref.skill, ref.tool, lambda args: hostile_engine.runs.render(ref, args), prefilled={}
    )
    qtbot.addWidget(form)
    form.fields["value"].set(HOSTILE)
    form.show()
    assert_plain(form, expected=2)  # the parameter's hint and the preview of the argv
    label = form.findChild(QLabel, "label-value")
    assert label.textFormat() == Qt.TextFormat.PlainText
    assert form.fields["value"].editor.toolTip() == plain_tooltip(f"The value. {HOSTILE}")


def test_the_command_bar_shows_model_messages_as_text(qtbot, hostile_engine: Engine) -> None:
    from gibberish.ui.command_bar.bar import CommandBar

    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.set_tools(hostile_engine.library.tools())
    bar.popup("take")
    bar.show_choices(f"The model said: {HOSTILE}", ("spoof.take",), failed=True)
    bar.ask_hint = HOSTILE
    assert_plain(bar)
    first = bar.results.model().index(0, 0)
    assert first.data(Qt.ItemDataRole.ToolTipRole) == plain_tooltip(f"Take a value. {HOSTILE}")


def test_problems_and_notices_are_text(qtbot) -> None:
    from gibberish.ui.dialogs import Dialogs

    dialogs = Dialogs()
    dialogs.show_problem(HOSTILE, None)
    assert_plain(dialogs.open["problem"])
    dialogs.show_notices([f"first {HOSTILE}", f"second {HOSTILE}"])
    box = dialogs.open["notices"]
    assert_plain(box)  # the informative text, which QMessageBox renders as it guesses
    dialogs.close_all()


def test_the_approvals_list_and_the_launcher_show_text(
    qtbot, hostile_engine: Engine, tmp_path: Path
) -> None:
    from gibberish.ui.approval.approvals_dialog import ApprovalsDialog
    from gibberish.ui.menu.launcher import LauncherWindow

    hostile_engine.trust.approve_skill_by_name("spoof")
    dialog = ApprovalsDialog(hostile_engine.trust)
    qtbot.addWidget(dialog)
    (item,) = [dialog.table.topLevelItem(i) for i in range(dialog.table.topLevelItemCount())]
    assert item.toolTip(3) == plain_tooltip(item.text(3))

    launcher = LauncherWindow("reason")
    qtbot.addWidget(launcher)
    launcher.show_status(HOSTILE, f"body {HOSTILE}", failed=True)
    assert_plain(launcher)


def test_plain_tooltips_escape_everything() -> None:
    tip = plain_tooltip('a <b>bold</b> & "quoted"\nsecond line')
    assert "<b>" not in tip and "&lt;b&gt;bold&lt;/b&gt; &amp;" in tip and "<br>" in tip
    assert plain_tooltip("") == "" and plain_tooltip("a & b") == "a & b"  # nothing to guess
