"""Titles from tool names, safe Markdown in descriptions, unbroken arguments, notices."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QTextLayout
from PySide6.QtWidgets import QLabel

from gibberish.engine.core import Engine
from gibberish.runner.envelope import RunStatus
from gibberish.ui.approval.dialog import ApprovalDialog
from gibberish.ui.formatting import NBSP, command_text, human_title, inline_markdown
from gibberish.ui.runs.param_form import ParameterForm
from gibberish.ui.widgets import CodeBox
from tests.ui.conftest import param_table, tool_block, wait_for_result, write_skill

HOSTILE = (
    "Show `git log` <img src=x onerror=1> <a href='http://evil'>click</a> **now** <h1>big</h1>"
)


def test_titles_come_from_tool_names() -> None:
    assert human_title("git_log") == "Git log"
    assert human_title("list-large") == "List large"


def test_markdown_is_rendered_and_markup_stays_text() -> None:
    html = inline_markdown(HOSTILE)
    assert "<code>git log</code>" in html and "<b>now</b>" in html
    assert "<img" not in html and "<a " not in html and "<h1>" not in html
    assert "&lt;img src=x onerror=1&gt;" in html


def test_a_hostile_description_is_shown_literally(qtbot, engine: Engine, skills_dir: Path) -> None:
    write_skill(
        skills_dir,
        "hostile",
        [
            tool_block(
                "git_log",
                HOSTILE,
                "echo {{text}}",
                param_table([("text", "string", "yes", HOSTILE)]),
            )
        ],
        extra="read_only: true",
    )
    engine.library.reload()
    target = engine.library.find_tool("hostile.git_log")
    form = ParameterForm(target.skill, target.tool, lambda a: engine.runs.render(target, a))
    qtbot.addWidget(form)
    assert form.windowTitle() == "Git log — gibberish"
    about = form.findChild(QLabel, "form-description")
    shown = about.text()
    assert about.textFormat() == Qt.TextFormat.PlainText  # markup is never read as markup
    assert "`" not in shown and "git log" in shown and "<a href=" in shown  # no raw Markdown
    dialog = ApprovalDialog(engine.runs.prepare("hostile.git_log", {"text": "x"}))
    qtbot.addWidget(dialog)
    assert dialog.windowTitle() == "Run “Git log”? — gibberish"
    tool = dialog.findChild(QLabel, "approval-tool").text()
    assert "<code>git log</code>" in tool and "&lt;img" in tool and "<img" not in tool


def test_form_and_result_windows_have_different_titles(qtbot, controller) -> None:
    session = controller.launch("hello.echo_text", {"text": "x"})
    wait_for_result(qtbot, session)
    assert session.window.windowTitle() == "Echo text — succeeded — gibberish"
    about = session.window.findChild(QLabel, "result-description").text()
    assert "hello.echo_text" not in about  # people's words; the id is in the details
    assert "hello.echo_text" in session.window.findChild(QLabel, "result-command").toolTip()


def test_a_quoted_argument_never_wraps_inside(qtbot) -> None:
    argv = ["grep", "--ignore-case", "--", "a pattern with several words in it", "some/file.txt"]
    box = CodeBox(command_text(argv))
    qtbot.addWidget(box)
    box.resize(360, 200)
    box.show()
    text = box.toPlainText()
    start = text.index("'a")
    end = text.index("it'") + 3
    block = box.document().firstBlock()
    layout: QTextLayout = block.layout()
    assert layout.lineCount() > 1  # it does wrap
    for i in range(1, layout.lineCount()):
        position = layout.lineAt(i).textStart()
        assert not start < position < end, f"line {i} starts inside the quoted argument"


def test_copying_a_command_gives_plain_spaces(qtbot) -> None:
    box = CodeBox(command_text(["echo", "a b"]))
    qtbot.addWidget(box)
    box.selectAll()
    box.copy()
    assert QGuiApplication.clipboard().text() == "echo 'a b'"
    assert NBSP not in QGuiApplication.clipboard().text()


def test_a_notification_says_tick_or_cross_the_tool_and_the_duration(
    qtbot, controller, notifications
) -> None:
    session = controller.launch("hello.echo_text", {"text": "first line of output"})
    session.window.close()
    qtbot.waitUntil(lambda: bool(notifications), timeout=10_000)
    title, body, failed = notifications[-1]
    assert session.result.status is RunStatus.SUCCEEDED
    assert title == "✓ Echo text" and not failed
    assert body.startswith("Finished in ") and "hello.echo_text" not in body  # no ids
    assert "first line" not in body
