"""Scripting without surprises: without a terminal nothing is asked (no prompt is even
printed); each refusal names the flag that answers it; piped tables keep every cell
whole; the exit codes are the documented ones."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gibberish.cli import common
from tests.helpers.builders import git_repo, needs_git, skill_text, write_skill, zip_with
from tests.install.manager.conftest import bare_repo

LONG = "Summarises long meeting notes into decisions and actions. " * 3


def _sources(tmp_path, kind: str, command: str) -> str:
    text = skill_text("alpha", command=command)
    if kind == "folder":
        folder = tmp_path / kind / "alpha"
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(text)
        return str(folder)
    if kind == "archive":
        tmp_path.mkdir(parents=True, exist_ok=True)
        return str(zip_with(tmp_path / "alpha.zip", [("alpha/SKILL.md", text.encode(), 0)]))
    work = git_repo(tmp_path / f"w{command[-2:]}", {"alpha/SKILL.md": text})
    return f"file://{bare_repo(work, tmp_path / f'b{command[-2:]}.git')}#main"


@pytest.mark.parametrize("kind", ["folder", "archive", pytest.param("git", marks=needs_git)])
def test_yes_never_replaces_and_the_refusal_names_replace(tmp_path, gib, user_skills, kind) -> None:
    first = _sources(tmp_path / "a", "folder", "echo v1")
    assert gib("install", first, "-y").exit_code == 0
    other = _sources(tmp_path / "b", kind, "echo v2")
    result = gib("install", other, "-y")
    assert result.exit_code == 1
    assert "--replace" in result.output and "already installed" in result.output
    assert "Aborted" not in result.output and "?" not in result.output.split("Not installed")[1]
    assert "echo v1" in (user_skills / "alpha" / "SKILL.md").read_text()
    result = gib("install", other, "-y", "--replace")
    assert result.exit_code == 0, result.output
    assert "echo v2" in (user_skills / "alpha" / "SKILL.md").read_text()


def test_without_a_terminal_no_question_is_printed(tmp_path, gib, user_skills) -> None:
    write_skill(tmp_path / "src", "alpha")
    write_skill(tmp_path / "src", "beta")
    many = gib("install", str(tmp_path / "src"))
    assert many.exit_code == 1 and "Install which" not in many.output
    assert "--name" in many.output and "--yes" in many.output
    one = gib("install", str(tmp_path / "src" / "alpha"))
    assert one.exit_code == 1 and "Install 1 skill?" not in one.output
    assert "--yes" in one.output and not user_skills.joinpath("alpha").exists()
    assert gib("install", str(tmp_path / "src"), "--name", "alpha", "-y").exit_code == 0

    (tmp_path / "src" / "alpha" / "SKILL.md").write_text(skill_text("alpha", command="echo 2"))
    update = gib("update", "alpha")
    assert update.exit_code == 1 and "Update alpha?" not in update.output
    assert "--yes" in update.output


def test_uninstall_without_a_terminal_keeps_dependencies_and_says_how(
    tmp_path, gib, user_skills
) -> None:
    write_skill(tmp_path / "src", "tool", extra="dependencies:\n  skills:\n    - ../helper\n")
    write_skill(tmp_path / "src", "helper")
    assert gib("install", str(tmp_path / "src" / "tool"), "-y").exit_code == 0
    result = gib("uninstall", "tool")
    assert result.exit_code == 0 and "remove them too?" not in result.output
    assert "Kept helper" in result.output and "--yes" in result.output


def test_piped_tables_keep_every_description_whole(user_skills) -> None:
    folder = user_skills / "long"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        skill_text("long").replace("The long skill, for tests.", LONG.strip())
    )
    env = {**os.environ, "COLUMNS": "40"}
    done = subprocess.run(
        [sys.executable, "-m", "gibberish", "--no-bundled", "skills", "list"],
        capture_output=True, text=True, env=env, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert LONG.strip() in done.stdout


def test_a_narrow_terminal_never_cuts_a_column_to_nothing(monkeypatch) -> None:
    monkeypatch.setattr(common, "stdout_is_terminal", lambda: True)
    monkeypatch.setattr(common, "terminal_width", lambda: 30)
    text = common.table(["NAME", "DESCRIPTION"], [["a-rather-long-skill-name", LONG]], flex=1)
    shown = text.splitlines()[1].split("  ", 1)[1].strip()
    assert len(shown) >= common.MIN_FLEX and shown.endswith("…")


def test_check_json_exit_codes(tmp_path, gib) -> None:
    write_skill(tmp_path / "src", "alpha")
    checked = gib("installed", "--check", "--json")
    assert checked.exit_code == 0 and json.loads(checked.output) == []
    assert "exits 3" in gib("installed", "--help").output
    assert "4 a high-risk finding" in " ".join(gib("audit", "--help").output.split())
