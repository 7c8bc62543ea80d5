"""Instruction skills (Agent Skills: prose, no tools, no version) through install,
update, uninstall, the lock, ``skills list``, and sync after install/uninstall."""

from __future__ import annotations

import json
import os
import shutil
import tomllib
from pathlib import Path

import pytest

from gibberish import paths
from gibberish.engine.core import Engine, EngineOptions
from gibberish.export import agents
from gibberish.export.sync_all import apply_sync, plan_sync
from gibberish.skills.library import SkillLibrary
from tests.helpers.builders import (
    commit_files,
    git_repo,
    loopback,
    needs_git,
    skill_text,
    tar_with,
    write_skill,
    zip_with,
)
from tests.helpers.instruction_skills import SHAPES, instruction_text, write_all, write_shape


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The test's home, with no agent program on PATH (detection sees only folders)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return Path(os.environ["HOME"])


def _state(state_file: Path) -> dict:
    return json.loads(state_file.read_text())["skills"]


def test_every_shape_installs_from_its_folder(tmp_path, gib, user_skills, state_file) -> None:
    for folder in write_all(tmp_path / "src"):
        result = gib("install", str(folder), "--yes", "--no-sync")
        assert result.exit_code == 0, result.output
        assert "instructions for a model, no tools" in result.output
        assert "each run shows where the skill came from" not in result.output
    assert sorted(p.name for p in user_skills.iterdir()) == sorted(SHAPES)
    assert (user_skills / "with-references" / "references" / "guide.md").is_file()
    record = json.loads((user_skills / "plain-guide" / ".gibberish-source.json").read_text())
    assert record["source"] == str(tmp_path / "src" / "plain-guide") and record["version"] == ""
    assert set(_state(state_file)) == set(SHAPES)


def test_a_skills_folder_lists_them_as_instructions_never_as_problems(
    tmp_path, gib, user_skills
) -> None:
    write_all(user_skills)
    write_skill(user_skills, "tooled")
    engine = Engine(EngineOptions(include_bundled=False))
    assert engine.library.problems() == []
    assert {s.name: s.kind for s in engine.library.skills()} == {
        **dict.fromkeys(SHAPES, "instructions"),
        "tooled": "tools",
    }
    listing = gib("--no-bundled", "skills", "list")
    rows = {line.split()[0]: line.split() for line in listing.output.splitlines()[1:] if line}
    assert rows["plain-guide"][3] == "instructions" and rows["tooled"][3] == "tools"
    assert "failed to load" not in listing.output
    data = json.loads(gib("--no-bundled", "skills", "list", "--json").output)
    assert {d["name"]: d["kind"] for d in data}["long-description"] == "instructions"


def test_archives_and_a_url_install_instruction_skills(tmp_path, gib, user_skills) -> None:
    text = instruction_text("zipped").encode()
    zip_with(tmp_path / "z.zip", [("zipped/SKILL.md", text, 0), ("zipped/refs/a.md", b"a\n", 0)])
    zip_with(
        tmp_path / "s.skill", [("dotskill/SKILL.md", instruction_text("dotskill").encode(), 0)]
    )
    tar_with(tmp_path / "t.tar.gz", [("tarred/SKILL.md", instruction_text("tarred").encode())])
    for name in ("z.zip", "s.skill", "t.tar.gz"):
        result = gib("install", str(tmp_path / name), "--yes", "--no-sync")
        assert result.exit_code == 0, result.output
    with loopback() as server:
        url = server.file(
            "/fetched.zip",
            zip_with(
                tmp_path / "u.zip", [("fetched/SKILL.md", instruction_text("fetched").encode(), 0)]
            ).read_bytes(),
        )
        result = gib("install", url, "--yes", "--no-sync")
        assert result.exit_code == 0, result.output
    assert sorted(p.name for p in user_skills.iterdir()) == [
        "dotskill",
        "fetched",
        "tarred",
        "zipped",
    ]
    assert (user_skills / "zipped" / "refs" / "a.md").read_text() == "a\n"


@needs_git
def test_git_subdir_install_update_and_uninstall(tmp_path, gib, user_skills, state_file) -> None:
    repo = git_repo(
        tmp_path / "repo",
        {
            "skills/guide/SKILL.md": instruction_text("guide", "Version one.\n"),
            "skills/guide/references/more.md": "more\n",
            "README.md": "a collection\n",
        },
    )
    result = gib("install", f"file://{repo}#main:skills/guide", "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    entry = _state(state_file)["guide"]
    assert entry["kind"] == "git" and len(entry["resolved"]) == 40 and entry["path"] == ""
    assert "up to date" in gib("update", "guide", "--yes").output
    commit_files(repo, {"skills/guide/SKILL.md": instruction_text("guide", "Version two.\n")}, "2")
    result = gib("update", "guide", "--yes")
    assert result.exit_code == 0 and "updated" in result.output, result.output
    assert "Version two." in (user_skills / "guide" / "SKILL.md").read_text()
    result = gib("uninstall", "guide")
    assert result.exit_code == 0, result.output
    assert not (user_skills / "guide").exists() and "guide" not in _state(state_file)


@needs_git
def test_dependencies_and_the_project_lock(tmp_path, gib) -> None:
    repo = git_repo(
        tmp_path / "repo",
        {
            "base/SKILL.md": instruction_text("base"),
            "top/SKILL.md": "---\nname: top\ndescription: Needs base.\ndependencies:\n"
            "  skills:\n    - ../base\n---\n\nUse base first.\n",
        },
    )
    project = tmp_path / "proj"
    project.mkdir()
    (project / "gibberish.toml").write_text("")
    source = f"file://{repo}#main:top"
    result = gib("install", "--project", str(project), source, "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    skills = project / ".gibberish" / "skills"
    assert sorted(p.name for p in skills.iterdir() if not p.name.startswith(".")) == ["base", "top"]
    lock = tomllib.loads((project / "gibberish.lock").read_text())
    assert {"base", "top"} <= set(json.dumps(lock).replace('"', " ").split())
    before = (skills / "top" / "SKILL.md").read_bytes()
    shutil.rmtree(project / ".gibberish")  # a fresh clone: only the manifest and the lock
    # the repository is a folder outside the project: agreed to with --allow-outside
    result = gib("install", "--project", str(project), "--yes", "--no-sync", "--allow-outside")
    assert result.exit_code == 0, result.output
    assert (skills / "top" / "SKILL.md").read_bytes() == before
    assert (skills / "base" / "SKILL.md").is_file()


def test_sync_skill_never_removes_another_skills_copy(home, gib, user_skills) -> None:
    (home / ".claude").mkdir()
    write_shape(user_skills, "plain-guide")
    write_shape(user_skills, "with-references")
    assert gib("--no-bundled", "sync", "claude-code").exit_code == 0
    copies = home / ".claude" / "skills"
    assert (copies / "with-references" / "references" / "guide.md").is_file()
    result = gib("--no-bundled", "sync", "claude-code", "--skill", "plain-guide")
    assert result.exit_code == 0, result.output
    assert (copies / "with-references" / "SKILL.md").is_file(), result.output
    assert "remove" not in result.output


def test_instruction_skills_sync_to_every_agent_target(home, user_skills) -> None:
    folder = write_shape(user_skills, "with-references")
    skill = SkillLibrary([]).load_folder(folder)
    assert skill.kind == "instructions"
    targets = [t for t in agents.TARGETS if t.user_dir]
    plan = plan_sync([skill], targets, home=home)
    assert apply_sync(plan) == []
    for target in targets:
        copied = home / target.user_dir / "with-references"
        assert (copied / "SKILL.md").read_bytes() == (folder / "SKILL.md").read_bytes(), target


def test_install_syncs_when_asked_and_uninstall_takes_its_copies_out(
    tmp_path, home, gib, user_skills
) -> None:
    (home / ".gemini").mkdir()
    (home / ".claude").mkdir()
    write_shape(user_skills, "plain-guide")  # a skill of one's own, synced before
    assert gib("--no-bundled", "sync").exit_code == 0
    folder = write_shape(tmp_path / "src", "with-references")
    result = gib("install", str(folder), "--yes")  # not a terminal: says how, copies nothing
    assert "gibberish sync --skill with-references" in result.output
    assert not (home / ".gemini" / "skills" / "with-references").exists()
    gib("uninstall", "with-references")
    result = gib("install", str(folder), "--yes", "--sync")
    assert result.exit_code == 0, result.output
    for agent in (".gemini", ".claude"):
        assert (home / agent / "skills" / "with-references" / "SKILL.md").is_file()
    edited = home / ".claude" / "skills" / "with-references" / "references" / "guide.md"
    edited.write_text("my notes\n")
    result = gib("uninstall", "with-references")
    assert result.exit_code == 0, result.output
    assert not (home / ".gemini" / "skills" / "with-references").exists()
    assert edited.read_text() == "my notes\n" and "skip-edited" in result.output
    assert not (home / ".claude" / "skills" / "with-references" / "SKILL.md").exists()
    for agent in (".gemini", ".claude"):  # the other skill's copies stay
        assert (home / agent / "skills" / "plain-guide" / "SKILL.md").is_file()


def test_sync_targets_come_from_the_config(home, gib, user_skills) -> None:
    write_shape(user_skills, "plain-guide")
    (home / ".claude").mkdir()  # detected, but the config names gemini-cli only
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[sync]\ntargets = ["gemini-cli"]\n')
    result = gib("--no-bundled", "sync")
    assert result.exit_code == 0, result.output
    assert (home / ".gemini" / "skills" / "plain-guide" / "SKILL.md").is_file()
    assert not (home / ".claude" / "skills").exists()


def test_a_tool_skill_still_installs_as_before(tmp_path, gib, user_skills) -> None:
    write_skill(tmp_path / "src", "alpha")
    result = gib("install", str(tmp_path / "src" / "alpha"), "--yes", "--no-sync")
    assert result.exit_code == 0 and "hello: echo hi" in result.output
    assert "each run shows where the skill came from" in result.output
    assert skill_text("alpha") == (user_skills / "alpha" / "SKILL.md").read_text()


def test_a_relative_dependency_resolves_inside_the_archive(tmp_path, gib, user_skills) -> None:
    top = "---\nname: top\ndescription: Needs base.\ndependencies:\n  skills:\n    - ../base\n---\n\nx\n"
    zip_with(
        tmp_path / "c.zip",
        [
            ("top/SKILL.md", top.encode(), 0),
            ("base/SKILL.md", instruction_text("base").encode(), 0),
        ],
    )
    result = gib("install", str(tmp_path / "c.zip"), "--name", "top", "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in user_skills.iterdir()) == ["base", "top"]
    escaping = top.replace("../base", "../../outside")
    zip_with(tmp_path / "e.zip", [("top/SKILL.md", escaping.encode(), 0)])
    result = gib("install", str(tmp_path / "e.zip"), "--yes", "--replace", "--no-sync")
    assert result.exit_code == 1 and "leads out of the source" in result.output


def _read_terminal(fd: int) -> bytes:
    """What the child wrote next; b"" once its terminal closed (a minute at most)."""
    import select

    ready, _, _ = select.select([fd], [], [], 60)
    assert ready, "the child wrote nothing for a minute"
    try:
        return os.read(fd, 4096)
    except OSError:  # EIO: the child exited and closed the terminal
        return b""


def test_on_a_terminal_install_asks_whether_to_sync(tmp_path, home, user_skills) -> None:
    import pty
    import subprocess
    import sys

    from tests.helpers.skill_folders import child_env

    (home / ".claude").mkdir()
    folder = write_shape(tmp_path / "src", "plain-guide")
    main, child = pty.openpty()
    argv = [sys.executable, "-m", "gibberish", "install", str(folder), "--yes"]
    with subprocess.Popen(argv, stdin=child, stdout=child, stderr=child, env=child_env()) as proc:
        os.close(child)
        seen = b""
        while b"Copy them to your agents now (claude-code)?" not in seen:
            chunk = _read_terminal(main)
            assert chunk, seen
            seen += chunk
        os.write(main, b"y\n")
        while chunk := _read_terminal(main):
            seen += chunk
    os.close(main)
    assert proc.returncode == 0, seen.decode(errors="replace")
    assert (home / ".claude" / "skills" / "plain-guide" / "SKILL.md").is_file()


def test_sync_skill_never_removes_an_mcp_server_another_skill_needs(home, gib, user_skills) -> None:
    (home / ".claude").mkdir()
    needs = (
        "---\nname: needs-files\ndescription: Needs an MCP server.\ndependencies:\n  mcp:\n"
        "    files:\n      command: files-server\n---\n\nUse the files server.\n"
    )
    (user_skills / "needs-files").mkdir(parents=True)
    (user_skills / "needs-files" / "SKILL.md").write_text(needs)
    write_shape(user_skills, "plain-guide")
    # a skill's MCP server is written only when agreed to (no terminal here)
    assert gib("--no-bundled", "sync", "claude-code", "--allow-mcp", "files").exit_code == 0
    config = home / ".claude.json"
    assert "files" in json.loads(config.read_text())["mcpServers"]
    result = gib("--no-bundled", "sync", "claude-code", "--skill", "plain-guide")
    assert result.exit_code == 0, result.output
    assert "files" in json.loads(config.read_text())["mcpServers"], result.output
