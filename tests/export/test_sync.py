"""``gibberish sync``: plans, writes, second runs, and never touching what is not ours."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish import paths
from gibberish.cli import cli
from gibberish.export import agents
from gibberish.export.sync import Action
from gibberish.export.sync_all import apply_sync, plan_sync
from gibberish.skills.parser import parse_skill_file
from tests.helpers.skill_folders import ART_FILES, INSTRUCTION_SKILL, write_skill


def _sync(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["--no-bundled", "sync", *args])
    return result.exit_code, result.output


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The test's home; PATH holds no agent program, so detection sees only folders."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return Path(os.environ["HOME"])


@pytest.fixture
def art(home: Path) -> Path:
    return write_skill(paths.user_skills_dir(), "art", INSTRUCTION_SKILL, ART_FILES)


def test_dry_run_then_sync_then_nothing_to_do(home: Path, art: Path) -> None:
    (home / ".claude").mkdir()
    code, out = _sync("--dry-run")
    assert code == 0, out
    assert "claude-code  create  ~/.claude/skills/art/SKILL.md" in out
    assert "Dry run" in out and not (home / ".claude" / "skills").exists()

    code, out = _sync()
    assert code == 0, out
    copied = home / ".claude" / "skills" / "art"
    assert (copied / "SKILL.md").read_bytes() == (art / "SKILL.md").read_bytes()
    assert (copied / "docs" / "colors.txt").read_text() == "teal, coral\n"

    code, out = _sync()
    assert code == 0 and "nothing to do" in out, out


def test_detects_installed_agents_only(home: Path, art: Path) -> None:
    (home / ".gemini").mkdir()
    (home / ".cursor").mkdir()
    code, out = _sync("--dry-run")
    assert code == 0, out
    assert "~/.gemini/skills/art/SKILL.md" in out and "~/.cursor/skills/art/SKILL.md" in out
    assert ".claude" not in out and ".agents" not in out


def test_every_target_gets_its_folder(home: Path, art: Path, tmp_path: Path) -> None:
    code, out = _sync(*agents.TARGET_NAMES)
    assert code == 0, out
    for name in agents.TARGET_NAMES:
        folder = agents.target(name).skills_dir(home, None)
        if folder is None:
            assert "opencode: has no user-level skills folder" in out
            continue
        assert (folder / "art" / "SKILL.md").is_file(), name
    project = tmp_path / "proj"
    project.mkdir()
    code, out = _sync("--project", str(project), *agents.TARGET_NAMES)
    assert code == 0, out
    for rel in (".claude", ".agents", ".gemini", ".cursor", ".github", ".devin", ".opencode"):
        assert (project / rel / "skills" / "art" / "SKILL.md").is_file(), rel


def test_an_edited_file_survives_and_is_reported(home: Path, art: Path) -> None:
    _sync("claude-code")
    copied = home / ".claude" / "skills" / "art" / "SKILL.md"
    copied.write_text(copied.read_text() + "\nMy own note.\n")
    (art / "SKILL.md").write_text(INSTRUCTION_SKILL.replace("1.0.0", "1.1.0"))
    code, out = _sync("claude-code")
    assert code == 0, out
    assert "skip-edited" in out and "~/.claude/skills/art/SKILL.md" in out
    assert copied.read_text().endswith("My own note.\n")
    assert "1.0.0" in copied.read_text()


def test_unedited_files_follow_the_skill_and_removals_spare_foreign_files(
    home: Path, art: Path
) -> None:
    _sync("claude-code")
    target = home / ".claude" / "skills" / "art"
    (art / "SKILL.md").write_text(INSTRUCTION_SKILL.replace("1.0.0", "2.0.0"))
    (art / "unused.txt").unlink()
    code, out = _sync("claude-code")
    assert "update" in out and "remove" in out, out
    assert "2.0.0" in (target / "SKILL.md").read_text()
    assert not (target / "unused.txt").exists()

    (target / "mine.txt").write_text("a person's file\n")
    (art / "SKILL.md").unlink()  # the skill goes away
    code, out = _sync("claude-code")
    assert code == 0, out
    assert (target / "mine.txt").read_text() == "a person's file\n"
    assert not (target / "SKILL.md").exists() and not (target / "code.js").exists()
    assert target.is_dir()  # not empty: the folder stays


def test_removing_a_skill_removes_the_folders_it_created(home: Path, art: Path) -> None:
    _sync("gemini-cli")
    assert (home / ".gemini" / "skills" / "art" / "docs").is_dir()
    for path in sorted(art.rglob("*"), reverse=True):
        path.unlink() if path.is_file() else path.rmdir()
    art.rmdir()
    code, out = _sync("gemini-cli")
    assert code == 0, out
    assert not (home / ".gemini" / "skills" / "art").exists()
    assert (home / ".gemini" / "skills").is_dir()


def test_a_foreign_skill_folder_is_never_touched(home: Path, art: Path) -> None:
    foreign = home / ".claude" / "skills" / "art"
    foreign.mkdir(parents=True)
    (foreign / "SKILL.md").write_text("someone else's\n")
    code, out = _sync("claude-code")
    assert code == 0, out
    assert "skip-foreign" in out and "not written by gibberish" in out
    assert (foreign / "SKILL.md").read_text() == "someone else's\n"


def test_invalid_for_agents_is_skipped_with_the_reason(home: Path) -> None:
    skills = paths.user_skills_dir()
    write_skill(skills, "Bad_Name", INSTRUCTION_SKILL.replace("name: art", "name: Bad_Name"))
    skill = parse_skill_file(skills / "Bad_Name" / "SKILL.md")
    plan = plan_sync([skill], [agents.target("claude-code")], home=home)
    [step] = plan.folders[0].steps
    assert step.action is Action.SKIP_INVALID
    assert "E-" in step.reason and "SKILL.md" in step.reason
    apply_sync(plan)
    assert not (home / ".claude" / "skills" / "Bad_Name").exists()


def test_link_mode_links_and_unlinks(home: Path, art: Path) -> None:
    code, out = _sync("cursor", "--link")
    assert code == 0, out
    link = home / ".cursor" / "skills" / "art"
    assert link.is_symlink() and link.resolve() == art.resolve()
    assert "nothing to do" in _sync("cursor", "--link")[1]
    code, out = _sync("cursor")  # back to copies
    assert code == 0, out
    assert not link.is_symlink() and (link / "SKILL.md").is_file()


def test_shared_folders_are_planned_once(home: Path, art: Path) -> None:
    _code, out = _sync("codex", "agents", "--dry-run")
    assert "codex, agents  create  ~/.agents/skills/art/SKILL.md" in out, out


def test_unknown_target_and_no_agent_are_clear_errors(art: Path) -> None:
    code, out = _sync("emacs")
    assert code == 2 and "unknown agent 'emacs'" in out
    code, out = _sync()
    assert code == 2 and "no coding agent found" in out


def test_ownership_record_is_plain_json_with_hashes(home: Path, art: Path) -> None:
    _sync("claude-code")
    [record] = (paths.state_dir() / "sync").glob("skills-*.json")
    data = json.loads(record.read_text())
    assert data["destination"] == str(home / ".claude" / "skills")
    assert len(data["files"]["art/SKILL.md"]) == 64


def test_a_skill_with_a_link_leading_outside_is_never_exported(home: Path, art: Path) -> None:
    secret = home / "secret.txt"
    secret.write_text("private\n")
    (art / "leak.txt").symlink_to(secret)
    (home / ".claude").mkdir()
    code, out = _sync()
    assert code == 0, out
    assert not (home / ".claude" / "skills" / "art").exists()
    assert "private" not in "".join(
        p.read_text() for p in (home / ".claude").rglob("*") if p.is_file()
    )


def test_settings_mcp_servers_must_be_tables() -> None:
    from gibberish.settings import load_settings

    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('mcp_servers = ["x"]\n')
    loaded = load_settings()
    assert loaded.settings.mcp_servers == {}
    assert any("mcp_servers = ['x'] is not valid" in n for n in loaded.notices)
    config.write_text('[mcp_servers.x]\ncommand = "x-mcp"\n')
    assert load_settings().settings.mcp_servers == {"x": {"command": "x-mcp"}}


def test_a_file_edited_between_plan_and_write_is_left_alone(home: Path, art: Path) -> None:
    target = agents.target("claude-code")
    skill = parse_skill_file(art / "SKILL.md")
    apply_sync(plan_sync([skill], [target], home=home))
    (art / "SKILL.md").write_text(INSTRUCTION_SKILL.replace("1.0.0", "3.0.0"))
    plan = plan_sync([parse_skill_file(art / "SKILL.md")], [target], home=home)
    copied = home / ".claude" / "skills" / "art" / "SKILL.md"
    copied.write_text("edited just now\n")  # after the plan, before the write
    errors = apply_sync(plan)
    assert errors == [f"{copied} changed while syncing; left alone (sync again)"]
    assert copied.read_text() == "edited just now\n"


def test_a_program_on_path_counts_as_installed(home: Path, art: Path) -> None:
    program = Path(os.environ["PATH"]) / "opencode"
    program.write_text("#!/bin/sh\n")
    program.chmod(0o755)
    assert [t.name for t in agents.detect_installed(home)] == ["opencode"]
    code, out = _sync("--project", str(home))
    assert code == 0 and "~/.opencode/skills/art/SKILL.md" in out, out
