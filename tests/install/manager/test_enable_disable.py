"""``gibberish disable`` / ``enable``: a skill turned off without being deleted.

Off means gone from the library (so from the menu, the model feed, MCP and ``run``),
its synced copies taken out of the agents' folders, its files, install record and lock
entry kept; on brings it back and copies it to the agents again.
"""

from __future__ import annotations

import json
import os

import pytest

from gibberish import paths
from gibberish.engine.core import Engine, EngineOptions
from gibberish.install.project import read_lock
from gibberish.skills.disabled import DISABLED_FILE
from tests.helpers.builders import git_repo, needs_git, skill_text, write_skill, zip_with
from tests.install.manager.conftest import bare_repo


@pytest.fixture
def claude_home() -> object:
    home = paths.Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[sync]\ntargets = ["claude-code"]\n')
    return home / ".claude" / "skills"


def _library_names() -> set[str]:
    engine = Engine(EngineOptions(include_bundled=False))
    return {s.name for s in engine.library.skills()}


def test_disable_hides_everywhere_keeps_files_and_sync_follows(
    tmp_path, gib, user_skills, claude_home
) -> None:
    write_skill(tmp_path / "src", "alpha")
    write_skill(tmp_path / "src", "beta")
    result = gib("install", str(tmp_path / "src"), "-y", "--sync")
    assert result.exit_code == 0, result.output
    assert (claude_home / "alpha" / "SKILL.md").is_file()

    result = gib("disable", "alpha")
    assert result.exit_code == 0, result.output
    assert "alpha is off" in result.output
    assert not (claude_home / "alpha").exists()  # the copy gibberish made is gone
    assert (claude_home / "beta" / "SKILL.md").is_file()  # another skill's copy stays
    assert (user_skills / "alpha" / "SKILL.md").is_file()  # nothing deleted
    assert _library_names() == {"beta"}
    listing = gib("skills", "list")
    assert "alpha" in listing.output and "disabled" in listing.output
    installed = json.loads(gib("installed", "--json").output)
    assert {r["name"]: r["enabled"] for r in installed} == {"alpha": False, "beta": True}
    run = gib("run", "alpha.hello")
    assert run.exit_code != 0
    # a full sync never brings it back
    assert gib("sync").exit_code == 0
    assert not (claude_home / "alpha").exists()

    result = gib("enable", "alpha", "--sync")
    assert result.exit_code == 0, result.output
    assert "alpha is on" in result.output
    assert (claude_home / "alpha" / "SKILL.md").is_file()
    assert _library_names() == {"alpha", "beta"}
    assert not (user_skills / DISABLED_FILE).exists()


def test_enable_without_terminal_says_how_to_sync(tmp_path, gib, claude_home) -> None:
    write_skill(tmp_path / "src", "alpha")
    gib("install", str(tmp_path / "src" / "alpha"), "-y", "--no-sync")
    gib("disable", "alpha")
    result = gib("enable", "alpha")
    assert result.exit_code == 0
    assert "gibberish sync --skill alpha" in result.output
    assert gib("disable", "alpha").output.strip() == "alpha is off."
    assert gib("disable", "alpha").output.strip() == "alpha was already off."


@pytest.mark.parametrize("name", ["nothere", "../alpha", ".hidden", "a/b"])
def test_disable_refuses_what_is_not_a_skill_here(tmp_path, gib, name) -> None:
    result = gib("disable", name)
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert not (paths.user_skills_dir() / DISABLED_FILE).exists()


def test_own_skill_can_be_turned_off_and_uninstall_forgets_the_switch(
    tmp_path, gib, user_skills
) -> None:
    write_skill(user_skills, "mine")
    assert gib("disable", "mine").exit_code == 0
    assert _library_names() == set()
    archive = zip_with(tmp_path / "z.zip", [("zipped/SKILL.md", skill_text("zipped").encode(), 0)])
    gib("install", str(archive), "-y")
    gib("disable", "zipped")
    assert gib("uninstall", "zipped").exit_code == 0
    assert json.loads((user_skills / DISABLED_FILE).read_text())["disabled"] == ["mine"]


@needs_git
def test_disabled_skill_in_a_project_is_kept_off_in_the_lock(tmp_path, gib) -> None:
    work = git_repo(tmp_path / "work", {"skills/gitskill/SKILL.md": skill_text("gitskill")})
    bare = bare_repo(work, tmp_path / "served.git")
    project = tmp_path / "proj"
    project.mkdir()
    (project / "gibberish.toml").write_text("")
    result = gib("install", f"file://{bare}#main", "--project", str(project), "-y")
    assert result.exit_code == 0, result.output
    assert gib("disable", "gitskill", "--project", str(project)).exit_code == 0
    assert read_lock(project)["gitskill"]["enabled"] is False
    update = gib("update", "gitskill", "--project", str(project), "-y")
    assert update.exit_code == 0
    assert read_lock(project)["gitskill"]["enabled"] is False  # an update keeps it off
    assert gib("enable", "gitskill", "--project", str(project), "--no-sync").exit_code == 0
    assert "enabled" not in read_lock(project)["gitskill"]


@pytest.mark.parametrize(
    "content",
    [b"not json", b'{"format": 2, "disabled": ["alpha"]}', b'{"format": 1, "disabled": "alpha"}',
     b"\xff\xfe", b'["alpha"]'],
)  # fmt: skip
def test_a_damaged_list_turns_nothing_off(tmp_path, gib, user_skills, content) -> None:
    write_skill(user_skills, "alpha")
    (user_skills / DISABLED_FILE).write_bytes(content)
    assert _library_names() == {"alpha"}
    assert gib("disable", "alpha").exit_code == 0  # rewritten whole
    assert _library_names() == set()


def test_a_bundled_skill_is_turned_off_in_the_persons_own_list(tmp_path, monkeypatch) -> None:
    """The bundled folder is not the person's to write: their own list names the skill,
    and the library leaves it out; a project cannot turn it off for them."""
    from click.testing import CliRunner

    from gibberish.cli import cli
    from gibberish.skills.disabled import disabled_names

    bundled = tmp_path / "bundled"
    write_skill(bundled, "helper")
    monkeypatch.setenv("GIBBERISH_BUNDLED_SKILLS", str(bundled))

    def run(*args: str):  # type: ignore[no-untyped-def]
        return CliRunner().invoke(cli, list(args), catch_exceptions=False)

    def loaded() -> set[str]:
        return {s.name for s in Engine(EngineOptions()).library.skills()}

    assert "helper" in loaded()
    result = run("disable", "helper")
    assert result.exit_code == 0, result.output
    assert result.output.strip() == "helper is off."
    assert "helper" not in loaded()
    assert disabled_names(paths.user_skills_dir()) == {"helper"}
    assert (bundled / "helper" / "SKILL.md").is_file()
    assert not (bundled / DISABLED_FILE).exists()  # nothing written into the bundled folder
    assert run("disable", "helper").output.strip() == "helper was already off."

    project = tmp_path / "work"
    project.mkdir()
    (project / "gibberish.toml").write_text("", encoding="utf-8")
    refused = run("enable", "helper", "--project", str(project), "--no-sync")
    assert refused.exit_code != 0
    refused = run("disable", "other-name", "--project", str(project))
    assert refused.exit_code != 0 and "not in" in refused.output

    result = run("enable", "helper", "--no-sync")
    assert result.exit_code == 0, result.output
    assert "helper" in loaded()
    assert not (paths.user_skills_dir() / DISABLED_FILE).exists()
    assert run("enable", "helper", "--no-sync").output.strip() == "helper was already on."
