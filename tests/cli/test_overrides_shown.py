"""A user skill that hides a bundled one of the same name says so in the list and the tray."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from gibberish import paths
from gibberish.cli import cli
from tests.skills.fixtures.skillkit import write_skill

BROKEN = "---\nname: files\nversion: 1.0.0\ndescription: [unclosed\n---\n"


def _user_files(broken: bool) -> Path:
    root = paths.user_skills_dir()
    if broken:
        folder = root / "files"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(BROKEN)
        return folder
    return write_skill(root, "files").parent


def test_list_marks_a_user_skill_that_overrides_a_bundled_one() -> None:
    _user_files(broken=False)
    result = CliRunner().invoke(cli, ["skills", "list"])
    line = next(row for row in result.output.splitlines() if row.startswith("files "))
    assert "user" in line and "overrides" in line
    assert "files overrides another skill" in result.output and "bundled" in result.output
    data = {
        s["name"]: s
        for s in json.loads(CliRunner().invoke(cli, ["skills", "list", "--json"]).output)
    }
    assert "overrides the bundled skill" in data["files"]["overrides"]
    assert "overrides" not in data["git"]


def test_a_broken_user_skill_that_hides_the_bundled_one_is_not_silent() -> None:
    _user_files(broken=True)
    result = CliRunner().invoke(cli, ["skills", "list"])
    line = next(row for row in result.output.splitlines() if row.startswith("files "))
    assert "error" in line and "overrides" in line
