"""``gibberish stub --target``: built into .skillc/runtime, then linked or copied into
agents' skills folders; what is there and not a stub deployment is left alone."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.helpers.instruction_skills import instruction_text


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    (root / "guide").mkdir(parents=True)
    (root / "guide" / "SKILL.md").write_text(instruction_text("guide", "# Guide\n\n## Tone\n"))
    return root


def test_global_deploy_links_each_agent_folder_to_the_runtime(skills, gib) -> None:
    home = Path(os.environ["HOME"])
    result = gib("--skills-dir", str(skills), "stub", "guide", "--target", "claude-code,agents")
    assert result.exit_code == 0, result.output
    runtime = home / ".skillc" / "runtime" / "guide"
    assert "- Tone" in (runtime / "SKILL.md").read_text()
    for folder in (".claude/skills", ".agents/skills"):
        link = home / folder / "guide"
        assert link.is_symlink() and os.readlink(link) == str(runtime)
    assert result.output.count(" link ") == 2
    again = gib("--skills-dir", str(skills), "stub", "guide", "--target", "claude-code")
    assert again.exit_code == 0 and "up to date" in again.output
    theirs = home / ".gemini" / "skills" / "guide"
    theirs.parent.mkdir(parents=True)
    theirs.symlink_to(skills / "guide", target_is_directory=True)  # a link of their own
    result = gib("--skills-dir", str(skills), "stub", "guide", "--target", "gemini-cli")
    assert result.exit_code == 1 and "left alone" in result.output
    assert os.readlink(theirs) == str(skills / "guide")


def test_project_copy_and_what_is_not_ours_is_left_alone(skills, gib, tmp_path) -> None:
    project = tmp_path / "proj"
    foreign = project / ".cursor" / "skills" / "guide"
    foreign.mkdir(parents=True)
    (foreign / "SKILL.md").write_text("someone's own\n")
    args = ["--skills-dir", str(skills), "stub", "guide", "--project", str(project), "--copy"]
    result = gib(*args, "--target", "claude-code", "--target", "cursor")
    assert result.exit_code == 1, result.output
    copied = project / ".claude" / "skills" / "guide"
    assert not copied.is_symlink() and "- Tone" in (copied / "SKILL.md").read_text()
    assert (copied / ".skillc" / "manifest.json").is_file()
    assert (project / ".skillc" / "runtime" / "guide" / "SKILL.md").is_file()
    assert (foreign / "SKILL.md").read_text() == "someone's own\n"
    assert "left alone" in result.output
    (skills / "guide" / "SKILL.md").write_text(instruction_text("guide", "# Guide\n\n## Voice\n"))
    result = gib(*args, "--target", "claude-code")
    assert result.exit_code == 0, result.output
    assert "- Voice" in (copied / "SKILL.md").read_text()


def test_stub_needs_an_out_folder_or_a_target(skills, gib) -> None:
    result = gib("--skills-dir", str(skills), "stub", "guide")
    assert result.exit_code == 2 and "--target" in result.output
    result = gib("--skills-dir", str(skills), "stub", "guide", "--target", "nope")
    assert result.exit_code == 2 and "unknown agent" in result.output


def test_a_stub_whose_name_is_no_skill_name_is_not_deployed(tmp_path, gib) -> None:
    folder = tmp_path / "odd"
    folder.mkdir()
    (folder / "SKILL.md").write_text("---\nname: Odd Name\ndescription: D.\n---\n\n# Odd\n")
    result = gib("stub", str(folder), "--target", "claude-code")
    assert result.exit_code == 1 and "not a skill name" in result.output
    assert not (Path(os.environ["HOME"]) / ".claude" / "skills").exists()
