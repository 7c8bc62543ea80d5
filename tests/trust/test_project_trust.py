"""A cloned project is not the person's own until they trust its folder (finding 6).

Variants: a project skill named like a bundled skill (``git``) or like a user skill; the
person's working folder deep inside the project; the same project through a symlink;
a copy of a trusted project elsewhere; ``gibberish install`` from the project's lock
without a terminal, with ``--yes``, saying no at a terminal, and with lock sources
outside the project (absolute path, ``../`` path, ``file://``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish import paths
from gibberish.cli import cli
from gibberish.cli import install as install_cli
from gibberish.engine.core import Engine, EngineOptions
from gibberish.skills.model import Trust
from gibberish.trust import projects
from tests.helpers.builders import skill_text


def project_with(root: Path, *names: str) -> Path:
    (root / ".gibberish" / "skills").mkdir(parents=True)
    (root / "gibberish.toml").write_text("", encoding="utf-8")
    for name in names:
        folder = root / ".gibberish" / "skills" / name
        folder.mkdir()
        (folder / "SKILL.md").write_text(skill_text(name, command="echo project"), "utf-8")
    return root


def engine_in(folder: Path) -> Engine:
    engine = Engine(EngineOptions())
    engine.library.follow_project(folder)
    return engine


def test_an_untrusted_project_skill_loads_untrusted_and_asks_with_a_warning(tmp_path) -> None:
    project = project_with(tmp_path / "clone", "helper")
    engine = engine_in(project / "src" if (project / "src").mkdir() is None else project)
    skill = engine.library.require("helper")
    assert skill.trust is Trust.UNTRUSTED
    decision = engine.runs.prepare("helper.hello").decision
    assert decision.banner and not decision.can_always_allow


@pytest.mark.parametrize("shadowed", ["bundled", "user"])
def test_an_untrusted_project_never_replaces_your_skill_and_says_so(
    tmp_path: Path, shadowed: str
) -> None:
    name = "git" if shadowed == "bundled" else "mine"
    if shadowed == "user":
        mine = paths.user_skills_dir() / "mine"
        mine.mkdir(parents=True)
        (mine / "SKILL.md").write_text(skill_text("mine", command="echo mine"), "utf-8")
    project = project_with(tmp_path / "clone", name)
    engine = engine_in(project)
    kept = engine.library.require(name)
    assert kept.trust is (Trust.BUNDLED if shadowed == "bundled" else Trust.USER)
    assert not str(kept.directory).startswith(str(project))
    warning = engine.library.overrides()[name].message
    assert str(project) in warning and "untrusted" in warning


def test_trusting_the_folder_makes_its_skills_the_persons_own(tmp_path: Path) -> None:
    project = project_with(tmp_path / "clone", "git", "helper")
    runner = CliRunner()
    result = runner.invoke(cli, ["project", "trust", str(project / ".gibberish")])
    assert result.exit_code == 0 and "helper" in result.output
    engine = engine_in(project)
    assert engine.library.require("helper").trust is Trust.USER
    assert str(engine.library.require("git").directory).startswith(str(project))  # first, as chosen
    assert "overrides the bundled" in engine.library.overrides()["git"].message
    assert str(project) in runner.invoke(cli, ["project", "list"]).output
    assert runner.invoke(cli, ["project", "untrust", str(project)]).exit_code == 0
    assert engine_in(project).library.require("helper").trust is Trust.UNTRUSTED


def test_trust_follows_the_real_folder_not_the_path(tmp_path: Path) -> None:
    project = project_with(tmp_path / "clone", "helper")
    projects.trust(project)
    link = tmp_path / "link"
    os.symlink(project, link)
    assert engine_in(link).library.require("helper").trust is Trust.USER
    copy = tmp_path / "copy"
    shutil.copytree(project, copy)
    assert engine_in(copy).library.require("helper").trust is Trust.UNTRUSTED


def test_the_engine_switches_when_the_person_trusts_the_folder_mid_session(tmp_path) -> None:
    project = project_with(tmp_path / "clone", "helper")
    engine = engine_in(project)
    assert engine.library.require("helper").trust is Trust.UNTRUSTED
    projects.trust(project)
    assert engine.library.follow_project(project) is True
    assert engine.library.require("helper").trust is Trust.USER


def test_the_cli_in_an_untrusted_project_lists_its_skills_as_untrusted(
    tmp_path: Path, monkeypatch
) -> None:
    project = project_with(tmp_path / "clone", "helper")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(cli, ["skills", "list", "--json"])
    assert result.exit_code == 0, result.output
    assert '"untrusted"' in result.output
    assert "is not trusted" in result.output and "gibberish project trust" in result.output


# -- install from the project's lock --------------------------------------------------------


def locked_project(root: Path, source: str) -> Path:
    project = project_with(root)
    (project / "gibberish.lock").write_text(
        f'format = 1\n[skills.private]\nsource = "{source}"\npinned = "{source}"\n',
        encoding="utf-8",
    )
    return project


def private_skill(tmp_path: Path) -> Path:
    folder = tmp_path / "home-skills" / "private"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_text("private", command="echo secret"), "utf-8")
    return folder


@pytest.mark.parametrize("form", ["absolute", "relative", "file-url"])
def test_a_lock_source_outside_the_project_is_refused(tmp_path: Path, form: str) -> None:
    private = private_skill(tmp_path)
    project_dir = tmp_path / "clone"
    text = {
        "absolute": str(private),
        "relative": os.path.relpath(private, project_dir),
        "file-url": f"file://{private}",
    }[form]
    project = locked_project(project_dir, text)
    result = CliRunner().invoke(cli, ["install", "--project", str(project), "--yes"])
    assert result.exit_code == 1
    assert "outside the project" in result.output
    assert not (project / ".gibberish" / "skills" / "private").exists()


def test_without_a_terminal_a_lock_is_listed_and_refused_without_yes(tmp_path: Path) -> None:
    project = project_with(tmp_path / "clone")
    inside = project / "vendor" / "inner"
    inside.mkdir(parents=True)
    (inside / "SKILL.md").write_text(skill_text("inner"), "utf-8")
    (project / "gibberish.toml").write_text('[skills]\ninner = "vendor/inner"\n', "utf-8")
    result = CliRunner().invoke(cli, ["install", "--project", str(project)])
    assert result.exit_code == 1 and "--yes" in result.output
    assert "inner" in result.output and "vendor/inner" in result.output
    assert not (project / ".gibberish" / "skills" / "inner").exists()
    done = CliRunner().invoke(cli, ["install", "--project", str(project), "--yes"])
    assert done.exit_code == 0, done.output
    assert (project / ".gibberish" / "skills" / "inner" / "SKILL.md").is_file()


@pytest.mark.parametrize(("answers", "installed"), [("n\n", False), ("y\n", True)])
def test_at_a_terminal_the_person_is_asked(
    tmp_path: Path, monkeypatch, answers: str, installed: bool
) -> None:
    monkeypatch.setattr(install_cli, "_interactive", lambda: True)
    project = project_with(tmp_path / "clone")
    inside = project / "vendor" / "inner"
    inside.mkdir(parents=True)
    (inside / "SKILL.md").write_text(skill_text("inner"), "utf-8")
    (project / "gibberish.toml").write_text('[skills]\ninner = "vendor/inner"\n', "utf-8")
    result = CliRunner().invoke(cli, ["install", "--project", str(project)], input=answers)
    asked = result.output.index("Install 1 skill?")
    assert "vendor/inner" in result.output[:asked] and "echo hi" in result.output[:asked]
    assert (project / ".gibberish" / "skills" / "inner").exists() is installed


@pytest.mark.parametrize(("answers", "installed"), [("n\n", False), ("y\n", True)])
def test_a_locked_skill_is_fetched_shown_with_its_commands_then_asked(
    tmp_path: Path, monkeypatch, answers: str, installed: bool
) -> None:
    project = project_with(tmp_path / "clone")
    inside = project / "vendor" / "inner"
    inside.mkdir(parents=True)
    (inside / "SKILL.md").write_text(skill_text("inner", command="echo locked"), "utf-8")
    first = CliRunner().invoke(cli, ["install", str(inside), "--project", str(project), "--yes"])
    assert first.exit_code == 0, first.output
    shutil.rmtree(project / ".gibberish" / "skills" / "inner")
    monkeypatch.setattr(install_cli, "_interactive", lambda: True)
    result = CliRunner().invoke(cli, ["install", "--project", str(project)], input=answers)
    asked = result.output.index("Install 1 skill from the lock?")
    assert "echo locked" in result.output[:asked]
    assert (project / ".gibberish" / "skills" / "inner").exists() is installed


def test_an_outside_source_needs_its_own_yes_at_a_terminal(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(install_cli, "_interactive", lambda: True)
    private = private_skill(tmp_path)
    project = project_with(tmp_path / "clone")
    (project / "gibberish.toml").write_text(f'[skills]\nprivate = "{private}"\n', "utf-8")
    result = CliRunner().invoke(cli, ["install", "--project", str(project), "--yes"], input="n\n")
    assert "outside the project" in result.output and "Copy files from outside" in result.output
    assert not (project / ".gibberish" / "skills" / "private").exists()
