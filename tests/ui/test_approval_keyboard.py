"""The approval dialog driven by the keyboard alone, and what its buttons say they do."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage, QPalette
from PySide6.QtWidgets import QLabel, QPushButton

from gibberish.engine.core import Engine
from gibberish.engine.run_flow import Answer
from gibberish.ui.approval.dialog import ApprovalDialog
from tests.helpers import sandbox
from tests.ui.conftest import tool_block, write_skill


def shown(qtbot, prepared) -> ApprovalDialog:
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    dialog.show()
    dialog.activateWindow()
    qtbot.waitUntil(dialog.isActiveWindow)  # shortcuts and mnemonics need an active window
    qtbot.waitUntil(lambda: dialog.focusWidget() is dialog.cancel_button)
    return dialog


def test_enter_presses_the_focused_button_not_the_default(qtbot, engine: Engine) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))
    assert dialog.cancel_button.isDefault()
    dialog.once_button.setFocus()
    qtbot.waitUntil(lambda: dialog.focusWidget() is dialog.once_button)
    qtbot.keyClick(dialog.once_button, Qt.Key.Key_Return)
    assert dialog.answer is Answer.ONCE


def test_tab_then_enter_on_trust_trusts(qtbot, engine: Engine) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))
    dialog.always_button.setFocus()
    qtbot.keyClick(dialog.always_button, Qt.Key.Key_Enter)
    assert dialog.answer is Answer.ALWAYS


def test_plain_enter_on_the_default_cancels(qtbot, engine: Engine) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))
    qtbot.keyClick(dialog.cancel_button, Qt.Key.Key_Return)
    assert dialog.answer is Answer.CANCEL and not dialog.isVisible()


@pytest.mark.parametrize("key", [Qt.Key.Key_Return, Qt.Key.Key_Enter])
def test_ctrl_enter_runs_once(qtbot, engine: Engine, key: Qt.Key) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))
    qtbot.keyClick(dialog.cancel_button, key, Qt.KeyboardModifier.ControlModifier)
    assert dialog.answer is Answer.ONCE


@pytest.mark.parametrize(
    ("key", "answer"),
    [
        (Qt.Key.Key_R, Answer.ONCE),
        (Qt.Key.Key_T, Answer.ALWAYS),
        (Qt.Key.Key_C, Answer.CANCEL),
    ],
)
def test_mnemonics(qtbot, engine: Engine, key: Qt.Key, answer: Answer) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))
    dialog.answer = None  # type: ignore[assignment]  # so Cancel must set it
    qtbot.keyClick(dialog, key, Qt.KeyboardModifier.AltModifier)
    qtbot.waitUntil(lambda: dialog.answer is answer)  # a mnemonic animates the click


def test_escape_cancels_from_any_button(qtbot, engine: Engine) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))
    dialog.once_button.setFocus()
    qtbot.keyClick(dialog.once_button, Qt.Key.Key_Escape)
    assert dialog.answer is Answer.CANCEL and not dialog.isVisible()


def _ring_pixels(button: QPushButton) -> int:
    """Pixels of the highlight colour on the button's edge."""
    image: QImage = button.grab().toImage()
    highlight = button.palette().color(QPalette.ColorRole.Highlight)
    count = 0
    for x in range(image.width()):
        for y in (1, 2, image.height() - 2, image.height() - 3):
            colour = image.pixelColor(x, y)
            if (
                abs(colour.red() - highlight.red())
                + abs(colour.green() - highlight.green())
                + abs(colour.blue() - highlight.blue())
                < 40
            ):
                count += 1
    return count


def test_focus_ring_differs_from_the_default_outline(qtbot, engine: Engine) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))
    # Cancel is the default; focus is elsewhere: the default outline has no ring colour.
    dialog.once_button.setFocus()
    qtbot.waitUntil(lambda: dialog.focusWidget() is dialog.once_button)
    focused = _ring_pixels(dialog.once_button)
    dialog.always_button.setFocus()
    qtbot.waitUntil(lambda: dialog.focusWidget() is dialog.always_button)
    assert focused > dialog.once_button.width()  # a ring along the top and bottom edges
    assert _ring_pixels(dialog.once_button) < focused / 4


def test_every_button_has_a_mnemonic(qtbot, engine: Engine) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))
    for button in dialog.findChildren(QPushButton):
        assert "&" in button.text(), button.text()


def _again(dialog: ApprovalDialog) -> str:
    label = dialog.findChild(QLabel, "approval-asks-again")
    assert label is not None
    return label.text()


def test_buttons_name_their_effect_and_the_dialog_says_when_it_asks_again(
    qtbot, engine: Engine
) -> None:
    dialog = shown(qtbot, engine.runs.prepare("hello.say_hello"))  # read-only user skill
    assert dialog.always_button.text().replace("&", "") == "Trust this version"
    assert dialog.once_button.text().replace("&", "") == "Run once"
    if sandbox.active():  # read-only is enforced: a model's run of it runs too
        assert "runs without asking until any of its files changes" in _again(dialog)
    else:  # read-only is the author's word only: a model's run of it asks (ADR 0057)
        assert "runs without asking when you start it yourself" in _again(dialog)
    assert "next time it asks for approval again" in _again(dialog)


def test_a_skill_that_changes_things_says_who_it_keeps_asking(qtbot, engine: Engine) -> None:
    dialog = shown(qtbot, engine.runs.prepare("slow.fail"))  # not read_only
    assert "runs without asking when you start it yourself" in _again(dialog)
    assert "when a model or what was heard starts it, it asks every time" in _again(dialog)


def test_always_ask_and_installed_say_so(qtbot, engine: Engine, skills_dir: Path) -> None:
    write_skill(
        skills_dir,
        "careful",
        [tool_block("go", "Go.", "echo go")],
        extra="read_only: true\nalways_ask: true",
    )
    write_skill(
        skills_dir, "imported", [tool_block("go", "Go.", "echo go")], extra="read_only: true"
    )
    (skills_dir / "imported" / ".gibberish-source.json").write_text('{"url": "https://x"}')
    engine.library.reload()
    assert "asks before every run, as it requests" in _again(
        shown(qtbot, engine.runs.prepare("careful.go"))
    )
    installed = _again(shown(qtbot, engine.runs.prepare("imported.go")))
    assert installed.startswith("Trust this version: remembers these exact files.")
    assert "Once you trust this version, it runs without asking" in installed
