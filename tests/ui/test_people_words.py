"""What a person reads, for every bundled tool: no ``skill.tool`` id, no raw Markdown.

Every view of the everyday loop is rendered for each bundled tool — the command bar's
rows (filtered and with an empty query, recent runs included), the parameter form with
its folder row, the approval (as a dialog and as a step in the window), the output, the
tray menu's entries, the welcome, and the Problems
dialog for a broken skill — and the text a person sees (visible labels, buttons, rows,
menu entries; not tooltips and not the *Details* a person opens on purpose) is checked.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel, QLineEdit, QWidget

from gibberish.engine import run_history
from gibberish.engine.core import Engine, EngineOptions
from gibberish.engine.run_flow import FolderOffer
from gibberish.ui.command_bar.bar import DESCRIPTION_ROLE, CommandBar
from gibberish.ui.command_bar.welcome import Welcome, key_help
from gibberish.ui.formatting import human_title
from gibberish.ui.runs.param_form import ParameterForm
from gibberish.ui.runs.result_window import ResultWindow
from tests.helpers.source_strings import string_literals

RAW_MARKDOWN = re.compile(r"`|\*\*|\]\(|^#{1,6} |__\w", re.M)


@pytest.fixture(scope="module")
def bundled() -> Engine:
    return Engine(EngineOptions(include_user=False))


def visible_text(root: QWidget) -> list[str]:
    """The text of every label, button and line edit a person sees in ``root``."""
    found = []
    for widget in root.findChildren(QWidget):
        if not widget.isVisibleTo(root):
            continue
        if isinstance(widget, QLabel | QAbstractButton | QLineEdit):
            found.append(widget.text())
    return [t for t in found if t]


def problems(texts: Iterable[str], refs: set[str]) -> list[str]:
    bad = []
    for text in texts:
        for ref in refs:
            if ref in text:
                bad.append(f"id {ref!r} in {text!r}")
        if RAW_MARKDOWN.search(text.replace("&", "")):
            bad.append(f"raw Markdown in {text!r}")
    return bad


def refs_of(engine: Engine) -> set[str]:
    return {t.ref for t in engine.library.tools()}


def test_the_bar_rows_say_titles_and_descriptions(qtbot, bundled: Engine) -> None:
    refs = refs_of(bundled)
    tools = bundled.library.tools()
    run_history.add("git.git_log", {"count": 5}, Path.home())
    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.past_runs = run_history.runs()
    bar.pinned = ["system.disk_usage"]
    bar.set_tools(tools)
    bar.popup()
    shown = []
    for query in ("", "git", "disk", "note", "web"):
        bar.input.setText(query)
        for row in range(bar.model.rowCount()):
            index = bar.model.index(row, 0)
            shown += [str(index.data()), str(index.data(DESCRIPTION_ROLE))]
    shown += visible_text(bar)
    assert any(t.startswith("Number of commits to show: 5") for t in shown)  # args in words
    assert problems(shown, refs) == []


@pytest.mark.parametrize("ref", sorted(refs_of(Engine(EngineOptions(include_user=False)))))
def test_each_form_and_output_reads_in_peoples_words(
    qtbot, bundled: Engine, ref: str, tmp_path: Path
) -> None:
    target = bundled.library.find_tool(ref)
    form = ParameterForm(
        target.skill,
        target.tool,
        lambda a: bundled.runs.render(target, a),
        folder=FolderOffer(tmp_path, "the folder of the focused window"),
    )
    qtbot.addWidget(form)
    form.show()
    assert problems(visible_text(form), refs_of(bundled)) == []
    assert not form.findChild(QWidget, "form-tool-id").isVisibleTo(form)  # the id: in Details
    form.details_button.click()
    assert ref in form.findChild(QLabel, "form-tool-id").text()  # one click away
    argv = ["/opt/skills/x/scripts/safe-git", "log", "-n", "5"]
    window = ResultWindow(
        ref, argv, cwd=tmp_path, description=target.tool.description, tool=target.tool
    )
    qtbot.addWidget(window)
    window.show()
    assert window.findChild(QLabel, "result-command").text() == "git log -n 5"
    assert problems(visible_text(window), refs_of(bundled)) == []


def test_the_readable_command_is_the_program_and_the_values() -> None:
    from gibberish.ui.formatting import readable_command

    engine = Engine(EngineOptions(include_user=False))
    target = engine.library.find_tool("git.git_log")
    prepared = engine.runs.prepare(target, {"count": 10})
    assert readable_command(target.tool, prepared.argv) == "git log -n 10"
    assert "safe-git" in " ".join(prepared.argv)  # the exact argv is still the wrapper's


def test_the_menu_entries_and_the_welcome_say_no_ids(qtbot, bundled: Engine) -> None:
    from gibberish.ui.controller import Controller

    ctl = Controller(bundled, tray_available=True)
    ctl.start()
    try:
        qtbot.waitUntil(lambda: ctl.host.is_ready, timeout=20_000)
        ctl.rebuild_menu()
        texts = []

        def walk(menu) -> None:
            for action in menu.actions():
                texts.append(action.text())
                if action.menu() is not None:
                    action.menu().aboutToShow.emit()
                    walk(action.menu())

        walk(ctl.menu)
        assert problems(texts, refs_of(bundled)) == []
    finally:
        ctl.shutdown()
    welcome = Welcome(
        key_help("sway", ["/usr/bin/gibberish"]), ("system.disk_usage", "Disk usage"), print
    )
    qtbot.addWidget(welcome)
    welcome.show()
    texts = visible_text(welcome)
    assert problems(texts, refs_of(bundled)) == []
    assert any("bindsym Ctrl+Alt+space exec /usr/bin/gibberish" in t for t in texts) or (
        welcome.findChild(QWidget, "welcome-command").toPlainText()
        == "bindsym Ctrl+Alt+space exec /usr/bin/gibberish"
    )


def sample_arguments(tool) -> dict[str, str]:
    """A value for each required parameter, so that every bundled tool can be prepared."""
    return {
        p.name: "https://example.org" if p.name == "url" else "x"
        for p in tool.parameters
        if p.required
    }


@pytest.mark.parametrize("ref", sorted(refs_of(Engine(EngineOptions(include_user=False)))))
def test_each_approval_reads_in_peoples_words(qtbot, bundled: Engine, ref: str) -> None:
    """The approval, as a dialog and as a step in the window: the tool's title and
    description first; its id only in the *Details* a person opens."""
    from gibberish.ui.approval.dialog import ApprovalDialog

    target = bundled.library.find_tool(ref)
    prepared = bundled.runs.prepare(target, sample_arguments(target.tool))
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    dialog.show()
    texts = [*visible_text(dialog), dialog.windowTitle()]
    assert problems(texts, refs_of(bundled)) == []
    assert dialog.windowTitle() == f"Run “{human_title(target.tool.name)}”? — gibberish"
    details = dialog.findChild(QAbstractButton, "approval-details")
    assert not dialog.findChild(QWidget, "approval-tool-id").isVisibleTo(dialog)
    details.click()
    assert ref in dialog.findChild(QLabel, "approval-tool-id").text()  # one click away
    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.popup()
    step = ApprovalDialog(prepared)
    bar.steps.show_dialog(step)
    assert step.isVisibleTo(bar)
    assert problems(visible_text(bar), refs_of(bundled)) == []
    step.reject()


def raw_names(engine: Engine) -> set[str]:
    """Skill and tool names that read as identifiers (``count_words``, ``text-tools``):
    a person reads their titles."""
    names = {s.name for s in engine.library.skills()}
    names |= {t.tool.name for t in engine.library.tools()}
    return {n for n in names if "_" in n or "-" in n}


def approval_problems(prepared, names: set[str], refs: set[str]) -> list[str]:
    """What the approval of ``prepared`` shows a person (the reason, the rows, the title),
    details closed: no id, no raw Markdown, no raw name, the Skill row by its title."""
    from gibberish.ui.approval.dialog import ApprovalDialog

    dialog = ApprovalDialog(prepared)
    dialog.show()
    texts = [*visible_text(dialog), dialog.windowTitle()]
    bad = problems(texts, refs)
    bad += [
        f"name {n!r} in {t!r}" for t in texts for n in names if re.search(rf"\b{re.escape(n)}\b", t)
    ]
    skill_row = dialog.findChild(QLabel, "approval-skill").text()
    if not skill_row.startswith(f"{human_title(prepared.skill.name)}  ·  "):
        bad.append(f"the Skill row reads {skill_row!r}")
    if prepared.skill.version and prepared.skill.version in skill_row:
        bad.append(f"the version in the Skill row {skill_row!r}")
    dialog.close()
    dialog.deleteLater()
    return bad


@pytest.mark.parametrize("ref", sorted(refs_of(Engine(EngineOptions(include_user=False)))))
def test_each_bundled_approval_names_titles_not_names(qtbot, bundled: Engine, ref: str) -> None:
    target = bundled.library.find_tool(ref)
    for own_run in (False, True):
        prepared = bundled.runs.prepare(target, sample_arguments(target.tool), own_run=own_run)
        assert approval_problems(prepared, raw_names(bundled), refs_of(bundled)) == []


def test_a_first_run_approval_names_the_skill_and_tool_by_their_titles(
    qtbot, tmp_path: Path
) -> None:
    """A user skill nobody approved yet: the reason says “Count words”, not count_words,
    and the Skill row "Text tools", not "text-tools 1.0.0" (both are in the Details)."""
    from tests.helpers.builders import write_skill

    write_skill(tmp_path, "text-tools", tool="count_words", command="wc -w")
    engine = Engine(
        EngineOptions(extra_skills_dirs=(tmp_path,), include_user=False, include_bundled=False)
    )
    prepared = engine.runs.prepare("text-tools.count_words", {})
    assert prepared.decision.first_run
    assert "“Count words”" in prepared.decision.reason
    assert approval_problems(prepared, raw_names(engine), refs_of(engine)) == []


MARKDOWN_HELPERS = "formatting.py"
"""Turns a skill's Markdown into text: its patterns hold backticks."""
ALLOWED_IN_SOURCE = {
    ("problem_dialog.py", "A code block is opened with ``` and never closed."),  # on purpose
    ("shortcuts_tab.py", "`"),  # removes backticks from a backend's message
    ("launcher.py", "`"),  # removes backticks from why there is no tray
}


def ui_strings() -> Iterable[tuple[str, int, str]]:
    """Every string literal of ``gibberish/ui`` (f-strings' text parts too), docstrings
    left out: (file name, line, text)."""
    root = Path(__file__).resolve().parents[2] / "gibberish" / "ui"
    for path in sorted(root.rglob("*.py")):
        for line, text in string_literals(path):
            yield path.name, line, text


def test_no_ui_string_shows_backticks() -> None:
    """A backtick in a label is Markdown shown raw (quote a command “like this”). Counted
    nouns ("1 skill", not "1 skill(s)") are checked for all of gibberish/ in
    tests/test_words.py."""
    bad = []
    for name, line, text in ui_strings():
        if "`" in text and name != MARKDOWN_HELPERS and (name, text) not in ALLOWED_IN_SOURCE:
            bad.append(f"{name}:{line}: {text!r} (a backtick shown raw)")
    assert bad == []


def test_plural_and_sizes_read_right() -> None:
    from gibberish.ui.formatting import human_bytes, plural

    assert plural(1, "skill") == "1 skill" and plural(2, "skill") == "2 skills"
    assert plural(0, "match", "matches") == "0 matches"
    assert human_bytes(1) == "1 byte" and human_bytes(2) == "2 bytes"
