"""Ranking without a model (description words, synonyms, use) and the form's memory."""

from __future__ import annotations

import json

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication

from gibberish import paths
from gibberish.assistant.fuzzy import FuzzyIndex
from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.command_bar.bar import CommandBar
from gibberish.ui.runs import form_memory
from gibberish.ui.runs.param_form import FormPrompter, ParameterForm
from tests.ui.conftest import param_table, tool_block, write_skill


def bundled() -> Engine:
    return Engine(EngineOptions(include_user=False))


def test_the_last_commits_rank_git_log_first() -> None:
    index = FuzzyIndex.for_tools(bundled().library.tools())
    ranked = [m.name for m in index.rank("show me the last 5 commits", 5, require_all=False)]
    assert ranked[0] == "git_log"
    assert ranked.index("git_log") < ranked.index("git_diff")


def test_synonyms_find_a_tool_by_another_word() -> None:
    index = FuzzyIndex.for_tools(bundled().library.tools())
    assert index.rank("commit history", 1)[0].name == "git_log"  # history → log


def test_recent_and_frequent_tools_come_first_on_an_empty_query(qtbot, engine: Engine) -> None:
    bar = CommandBar()
    qtbot.addWidget(bar)
    bar.history = ["slow.fail", "hello.say_hello", "hello.say_hello", "kinds.all_types"]
    bar.set_tools(engine.library.tools())
    assert bar.refs()[:3] == ["hello.say_hello", "slow.fail", "kinds.all_types"]


def accept_form_with(values: dict) -> None:
    form = next(
        w for w in QApplication.topLevelWidgets() if isinstance(w, ParameterForm) and w.isVisible()
    )
    for name, value in values.items():
        form.fields[name].set(value)
    form.ok_button.click()


def test_the_form_remembers_the_last_values_but_never_secrets(
    qtbot, engine: Engine, skills_dir
) -> None:
    write_skill(
        skills_dir,
        "login",
        [
            tool_block(
                "sign_in",
                "Sign in.",
                "echo {{user}} {{password}}",
                param_table(
                    [("user", "string", "yes", "Who"), ("password", "string", "yes", "Secret")]
                ),
            )
        ],
    )
    engine.library.reload()
    target = engine.library.find_tool("login.sign_in")
    render = lambda args: engine.runs.render(target, args)  # noqa: E731
    QTimer.singleShot(0, lambda: accept_form_with({"user": "ada", "password": "hunter2"}))
    assert FormPrompter().ask(target.skill, target.tool, render) == {
        "user": "ada",
        "password": "hunter2",
    }
    stored = (paths.state_dir() / "form-values.json").read_text()
    assert "hunter2" not in stored and json.loads(stored)["login.sign_in"] == {"user": "ada"}
    seen: dict = {}

    def look_and_cancel() -> None:
        form = next(
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, ParameterForm) and w.isVisible()
        )
        seen.update(form.values())
        form.reject()

    QTimer.singleShot(0, look_and_cancel)
    assert FormPrompter().ask(target.skill, target.tool, render) is None
    assert seen == {"user": "ada"}


def test_a_broken_memory_file_is_ignored(tmp_path) -> None:
    path = paths.state_dir() / "form-values.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("{not json")
    assert form_memory.remembered("x.y") == {}
    form_memory.remember("x.y", {"a": 1})
    assert form_memory.remembered("x.y") == {"a": 1}
