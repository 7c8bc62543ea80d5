"""Opt-in sync formats: a combined AGENTS.md, Copilot's repository instructions and Cursor
rules, each in the shape that agent documents, owning only what gibberish wrote."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
import yaml

from gibberish import paths
from tests.helpers.builders import write_skill
from tests.helpers.instruction_skills import instruction_text

BEGIN = "<!-- gibberish:begin"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    skills = paths.user_skills_dir()
    for name in ("style", "review"):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(instruction_text(name, f"Rules of {name}.\n"))
    write_skill(skills, "tooled")  # a tool skill: never in an instructions file
    root = tmp_path / "proj"
    root.mkdir()
    return root


def _sync(gib, project: Path, *args: str):
    return gib("--no-bundled", "sync", "--project", str(project), *args)


def test_agents_md_keeps_the_persons_text_and_owns_one_section(gib, project) -> None:
    agents_md = project / "AGENTS.md"
    agents_md.write_text("# Our project\n\nRun `make test`.\n")
    result = _sync(gib, project, "agents-md")
    assert result.exit_code == 0, result.output
    text = agents_md.read_text()
    assert text.startswith("# Our project\n\nRun `make test`.\n\n" + BEGIN)
    assert "## review\n\nThe review instructions, for tests.\n\nRules of review." in text
    assert "## style" in text and "tooled" not in text
    assert "nothing to do" in _sync(gib, project, "agents-md").output
    agents_md.write_text(text.replace("Run `make test`.", "Run `make check`."))
    skill = paths.user_skills_dir() / "style" / "SKILL.md"
    skill.write_text(instruction_text("style", "New rules.\n"))
    assert _sync(gib, project, "agents-md").exit_code == 0
    text = agents_md.read_text()
    assert "Run `make check`." in text and "New rules." in text and text.count(BEGIN) == 1
    agents_md.write_text(text.replace("New rules.", "My own rules."))
    skill.write_text(instruction_text("style", "Newer rules.\n"))
    result = _sync(gib, project, "agents-md")
    assert "skip-edited" in result.output and "My own rules." in agents_md.read_text()


def test_copilot_instructions_are_plain_markdown_and_project_only(gib, project) -> None:
    result = _sync(gib, project, "copilot-instructions")
    assert result.exit_code == 0, result.output
    text = (project / ".github" / "copilot-instructions.md").read_text()
    assert not text.startswith("---") and "## review" in text and "## style" in text
    user_level = gib("--no-bundled", "sync", "copilot-instructions")
    assert "written only into a project" in user_level.output


def test_cursor_rules_are_agent_requested_mdc_files(gib, project) -> None:
    rules = project / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "review.mdc").write_text("their own rule\n")
    result = _sync(gib, project, "cursor-rules")
    assert result.exit_code == 0, result.output
    text = (rules / "style.mdc").read_text()
    front = yaml.safe_load(text.split("---\n")[1])
    assert front["description"] == "The style instructions, for tests."
    assert front["alwaysApply"] is False and "globs" in front
    assert "Rules of style." in text
    assert (rules / "review.mdc").read_text() == "their own rule\n"
    assert "skip-foreign" in result.output
    assert not (rules / "tooled.mdc").exists()
    os.remove(paths.user_skills_dir() / "style" / "SKILL.md")
    os.rmdir(paths.user_skills_dir() / "style")
    assert _sync(gib, project, "cursor-rules").exit_code == 0
    assert not (rules / "style.mdc").exists()


def test_formats_can_be_chosen_in_the_config(gib, project) -> None:
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[sync]\ntargets = ["agents-md"]\n')
    result = _sync(gib, project)
    assert result.exit_code == 0, result.output
    assert (project / "AGENTS.md").read_text().startswith(BEGIN)
