"""*Turn off* and *Skills turned off* in the tray: the rule of ``gibberish disable/enable``.

A real controller over a real Engine reading the person's skills folder (tmp XDG dirs):
the entry takes a skill out of the menu and the library at once, the submenu brings it
back, and the list of skills turned off is the one file the CLI reads and writes.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from gibberish import paths
from gibberish.cli import cli
from gibberish.engine.core import Engine, EngineOptions
from gibberish.skills.disabled import DISABLED_FILE, disabled_names
from gibberish.trust import projects
from tests.helpers.builders import write_skill
from tests.ui.conftest import make_controller, standard_skills


@pytest.fixture
def user_skills() -> Path:
    return standard_skills(paths.user_skills_dir())


@pytest.fixture
def tray(qtbot, user_skills: Path) -> Iterator[Any]:
    engine = Engine(EngineOptions(include_bundled=False))
    ctl = make_controller(engine)
    ctl.start()
    seen: list[tuple[str, str, bool]] = []
    ctl.notified.connect(lambda title, body, failed: seen.append((title, body, failed)))
    ctl.seen = seen
    yield ctl
    ctl.shutdown()
    ctl.deleteLater()


def gib(*args: str) -> Any:
    return CliRunner().invoke(cli, ["--no-bundled", *args], catch_exceptions=False)


def top(ctl: Any) -> QMenu:
    ctl.menu.aboutToShow.emit()
    return ctl.menu


def names(menu: QMenu) -> list[str]:
    return [a.objectName() for a in menu.actions() if not a.isSeparator()]


def submenu(menu: QMenu, name: str) -> QMenu:
    sub = menu.findChild(QMenu, name)
    assert sub is not None, f"no submenu {name!r}"
    sub.aboutToShow.emit()
    return sub


def trigger(menu: QMenu, name: str) -> None:
    found = menu.findChild(QAction, name)
    assert found is not None, f"no action {name!r}"
    found.trigger()


def library(ctl: Any) -> set[str]:
    return {s.name for s in ctl.engine.library.skills()}


def test_turn_off_takes_the_skill_out_and_turn_on_brings_it_back(tray: Any, user_skills) -> None:
    sub = submenu(top(tray), "skill:hello")
    assert names(sub) == ["tool:hello.say_hello", "tool:hello.echo_text", "turn-off:hello"]
    assert "turned-off" not in names(top(tray))  # nothing off: no submenu

    trigger(sub, "turn-off:hello")
    assert "hello" not in library(tray)  # the library (so the model feed) at once
    menu = top(tray)
    assert "skill:hello" not in names(menu)
    assert disabled_names(user_skills) == {"hello"}  # the CLI's own file
    assert (user_skills / "hello" / "SKILL.md").is_file()  # nothing deleted
    title, body, failed = tray.seen[-1]
    assert title == "“Hello” is off" and not failed
    assert "hello" not in body  # people's words: the title, not the name
    off = submenu(menu, "turned-off")
    assert menu.findChild(QMenu, "turned-off").title() == "Skills turned off (1)"
    assert names(off) == ["turn-on:hello"]

    trigger(off, "turn-on:hello")
    assert "hello" in library(tray)
    menu = top(tray)
    assert "skill:hello" in names(menu) and "turned-off" not in names(menu)
    assert not (user_skills / DISABLED_FILE).exists()
    assert tray.seen[-1][:1] == ("“Hello” is on again",)


def test_the_tray_and_the_cli_share_one_list(tray: Any, user_skills) -> None:
    trigger(submenu(top(tray), "skill:kinds"), "turn-off:kinds")
    listing = gib("skills", "list")
    assert "kinds" in listing.output and "disabled" in listing.output
    result = gib("enable", "kinds", "--no-sync")
    assert result.exit_code == 0 and "kinds is on" in result.output

    assert gib("disable", "slow").exit_code == 0
    tray.reload()
    menu = top(tray)
    assert "skill:slow" not in names(menu) and "skill:kinds" in names(menu)
    trigger(submenu(menu, "turned-off"), "turn-on:slow")
    assert "slow" in library(tray)
    assert gib("enable", "slow", "--no-sync").output.strip() == "slow was already on."


def test_turning_off_removes_the_copies_sync_made(tray: Any, user_skills) -> None:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[sync]\ntargets = ["claude-code"]\n')
    assert gib("sync").exit_code == 0
    copies = home / ".claude" / "skills"
    assert (copies / "hello" / "SKILL.md").is_file()

    trigger(submenu(top(tray), "skill:hello"), "turn-off:hello")
    assert not (copies / "hello").exists()
    assert (copies / "kinds" / "SKILL.md").is_file()  # another skill's copy stays
    assert "Removed the copies made for your agents (1)" in tray.seen[-1][1]


def test_a_skill_outside_the_own_folder_cannot_be_turned_off(qtbot, tmp_path) -> None:
    project = standard_skills(tmp_path / "elsewhere")
    engine = Engine(
        EngineOptions(extra_skills_dirs=(project,), include_user=False, include_bundled=False)
    )
    ctl = make_controller(engine)
    ctl.start()
    seen: list[tuple[str, str, bool]] = []
    ctl.notified.connect(lambda title, body, failed: seen.append((title, body, failed)))
    try:
        trigger(submenu(top(ctl), "skill:hello"), "turn-off:hello")
        title, body, failed = seen[-1]
        assert title == "Could not turn “Hello” off" and failed
        assert body.startswith(
            "Only skills in your own skills folder, in the project you work in, or bundled"
        )
        assert str(project) in body
        assert "hello" in library(ctl)
        assert not (project / DISABLED_FILE).exists()
    finally:
        ctl.shutdown()
        ctl.deleteLater()


@pytest.fixture
def project_tray(qtbot, tmp_path: Path) -> Iterator[Any]:
    """A tray following a trusted project with two skills installed by ``install
    --project`` (so its gibberish.lock lists them), and one skill of the person's own."""
    standard_skills(paths.user_skills_dir())
    project = tmp_path / "work"
    project.mkdir()
    (project / "gibberish.toml").write_text("", encoding="utf-8")
    for name in ("lint-rules", "deploy-notes"):
        source = write_skill(tmp_path / "sources", name)
        done = gib("install", str(source), "--project", str(project), "-y", "--no-sync")
        assert done.exit_code == 0, done.output
    projects.trust(project)
    engine = Engine(EngineOptions(include_bundled=False))
    engine.library.follow_project(project)
    ctl = make_controller(engine)
    ctl.start()
    seen: list[tuple[str, str, bool]] = []
    ctl.notified.connect(lambda title, body, failed: seen.append((title, body, failed)))
    ctl.seen = seen
    ctl.project = project
    yield ctl
    ctl.shutdown()
    ctl.deleteLater()


def test_a_project_skill_is_turned_off_and_on_in_the_project(project_tray: Any) -> None:
    project = project_tray.project
    skills = project / ".gibberish" / "skills"
    menu = top(project_tray)
    assert {"skill:lint-rules", "skill:deploy-notes", "skill:hello"} <= set(names(menu))

    trigger(submenu(menu, "skill:lint-rules"), "turn-off:lint-rules")
    title, _, failed = project_tray.seen[-1]
    assert title == "“Lint rules” is off" and not failed
    assert "lint-rules" not in library(project_tray)
    assert disabled_names(skills) == {"lint-rules"}  # the project's list, as --project writes
    assert disabled_names(paths.user_skills_dir()) == set()  # not the person's
    assert (skills / "lint-rules" / "SKILL.md").is_file()  # nothing deleted
    assert "enabled = false" in (project / "gibberish.lock").read_text("utf-8")
    listing = gib("installed", "--project", str(project), "--json")
    enabled = {row["name"]: row["enabled"] for row in json.loads(listing.output)}
    assert enabled == {"lint-rules": False, "deploy-notes": True}

    menu = top(project_tray)
    assert "skill:lint-rules" not in names(menu)
    assert names(submenu(menu, "turned-off")) == ["turn-on:lint-rules"]
    trigger(submenu(menu, "turned-off"), "turn-on:lint-rules")
    assert project_tray.seen[-1][:1] == ("“Lint rules” is on again",)
    assert "lint-rules" in library(project_tray)
    assert not (skills / DISABLED_FILE).exists()
    assert "enabled = false" not in (project / "gibberish.lock").read_text("utf-8")


def test_the_tray_and_disable_project_share_the_project_list(project_tray: Any) -> None:
    project = project_tray.project
    done = gib("disable", "deploy-notes", "--project", str(project))
    assert done.exit_code == 0, done.output
    project_tray.reload()
    menu = top(project_tray)
    assert "skill:deploy-notes" not in names(menu)
    assert names(submenu(menu, "turned-off")) == ["turn-on:deploy-notes"]
    trigger(submenu(menu, "turned-off"), "turn-on:deploy-notes")
    again = gib("enable", "deploy-notes", "--project", str(project), "--no-sync")
    assert again.output.strip() == "deploy-notes was already on."
    # The person's own skills still switch in their own folder beside the project's.
    trigger(submenu(top(project_tray), "skill:hello"), "turn-off:hello")
    assert disabled_names(paths.user_skills_dir()) == {"hello"}
    assert not (project / ".gibberish" / "skills" / DISABLED_FILE).exists()


def test_a_bundled_skill_is_turned_off_and_on_from_the_tray(qtbot, tmp_path, monkeypatch) -> None:
    bundled = standard_skills(tmp_path / "bundled")
    monkeypatch.setenv("GIBBERISH_BUNDLED_SKILLS", str(bundled))
    ctl = make_controller(Engine(EngineOptions()))
    ctl.start()
    seen: list[tuple[str, str, bool]] = []
    ctl.notified.connect(lambda title, body, failed: seen.append((title, body, failed)))
    try:
        trigger(submenu(top(ctl), "skill:hello"), "turn-off:hello")
        title, _, failed = seen[-1]
        assert title == "“Hello” is off" and not failed
        assert "hello" not in library(ctl)
        assert disabled_names(paths.user_skills_dir()) == {"hello"}  # the person's list
        assert not (bundled / DISABLED_FILE).exists()  # the bundled folder untouched
        menu = top(ctl)
        assert "skill:hello" not in names(menu)
        trigger(submenu(menu, "turned-off"), "turn-on:hello")
        assert seen[-1][:1] == ("“Hello” is on again",)
        assert "hello" in library(ctl)
    finally:
        ctl.shutdown()
        ctl.deleteLater()
