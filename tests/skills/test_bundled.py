"""The skills shipped in ``skills/``: clean under the gibberish profile, and they work."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
from pathlib import Path

import pytest

from gibberish import paths
from gibberish.skills.library import SkillLibrary, SkillSource
from gibberish.skills.model import Mode, Profile, Trust
from gibberish.skills.parser import parse_skill_file
from gibberish.skills.render import RenderError, render
from tests.conftest import BUNDLED_SKILLS

EXPECTED_TOOLS = {
    "git": ["git_status", "git_log", "git_diff", "git_branches"],
    "files": ["find_files", "list_folder", "read_file", "file_info"],
    "system": ["disk_usage", "memory_usage", "uptime", "top_processes"],
    "web": ["open_url", "web_search"],
    "notes": ["read_notes", "search_notes"],
    "take-note": ["add_note"],
}
READ_ONLY = {"git", "files", "system", "notes"}


@pytest.fixture(scope="module")
def bundled():
    lib = SkillLibrary([SkillSource(BUNDLED_SKILLS, Trust.BUNDLED)])
    lib.load()
    return lib


def test_bundled_dir_is_the_repo_skills_folder():
    assert paths.bundled_skills_dir().resolve() == BUNDLED_SKILLS.resolve()


def test_all_bundled_skills_load_with_zero_diagnostics(bundled):
    assert [d.format() for d in bundled.diagnostics()] == []
    assert sorted(s.name for s in bundled.skills()) == sorted(EXPECTED_TOOLS)


@pytest.mark.parametrize("profile", list(Profile))
def test_bundled_skills_are_clean_in_both_profiles(profile):
    for name in EXPECTED_TOOLS:
        skill = parse_skill_file(BUNDLED_SKILLS / name / "SKILL.md", profile=profile)
        assert [d.format() for d in skill.diagnostics] == []


@pytest.mark.parametrize("name", sorted(EXPECTED_TOOLS))
def test_bundled_skill_shape(bundled, name):
    skill = bundled.get(name)
    assert skill.trust is Trust.BUNDLED
    assert [t.name for t in skill.tools] == EXPECTED_TOOLS[name]
    assert skill.author == "gibberish"
    assert skill.read_only is (name in READ_ONLY)
    assert 1 <= skill.timeout_secs <= 60
    assert skill.modes
    for tool in skill.tools:
        assert tool.description and tool.command is not None


def test_scripts_exist_and_are_executable(bundled):
    for skill in bundled.skills():
        for tool in skill.tools:
            program = tool.command.program
            if program.startswith("./"):
                script = skill.directory / program[2:]
                assert script.is_file(), script
                assert script.stat().st_mode & stat.S_IXUSR, script
                assert script.read_text().startswith("#!/bin/sh\n")


def argv(bundled, skill: str, tool: str, **args) -> list[str]:
    s = bundled.get(skill)
    return render(s.tool(tool), args, skill_dir=s.directory, home=Path("/home/u"))


def test_git_commands(bundled):
    log = argv(bundled, "git", "git_log")
    assert log[0].endswith("/git/scripts/safe-git")  # every command-running setting off
    assert log[1:] == [
        "log", "--no-show-signature", "--oneline", "--decorate", "-n", "10",
    ]  # fmt: skip
    assert argv(bundled, "git", "git_diff", staged=True)[-1] == "--staged"
    assert "--staged" not in argv(bundled, "git", "git_diff")


def test_git_log_count_must_be_positive(bundled):
    # `--arg count=-5` once ran `git log -n -5`, which prints every commit
    with pytest.raises(RenderError, match="between 1 and 1000"):
        argv(bundled, "git", "git_log", count=-5)
    assert argv(bundled, "git", "git_log", count=3)[-1] == "3"


def test_find_refuses_option_injection(bundled):
    assert argv(bundled, "files", "find_files", pattern="*.pdf") == [
        "find", ".", "-maxdepth", "5", "-iname", "*.pdf",
    ]  # fmt: skip
    with pytest.raises(ValueError):
        argv(bundled, "files", "find_files", pattern="x", folder="-delete")


def test_web_search_percent_encodes_the_query(bundled):
    rendered = argv(bundled, "web", "web_search", query="rust & c++ ?")
    assert rendered[0].endswith("/web/scripts/open-in-browser.sh")
    assert rendered[1:] == ["https://duckduckgo.com/?q=rust%20%26%20c%2B%2B%20%3F"]


def test_web_opener_refuses_anything_but_web_addresses(bundled):
    script = bundled.get("web").directory / "scripts" / "open-in-browser.sh"
    for bad in ("file:///etc/passwd", "javascript:alert(1)", "-x", ""):
        done = subprocess.run([str(script), bad], capture_output=True, text=True, timeout=10)
        assert done.returncode == 2 and "must start with https://" in done.stderr


def test_notes_text_may_start_with_a_dash(bundled):
    assert argv(bundled, "take-note", "add_note", text="-rf $HOME")[-2:] == ["--", "-rf $HOME"]


def run_script(path: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([str(path), *args], env=env, capture_output=True, text=True, timeout=10)


def test_notes_scripts_append_and_read(tmp_path):
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path / "home")}
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    scripts = BUNDLED_SKILLS / "notes" / "scripts"
    append = BUNDLED_SKILLS / "take-note" / "scripts" / "append-note.sh"
    empty = run_script(scripts / "read-notes.sh", env=env)
    assert empty.returncode == 0 and "No notes yet" in empty.stdout
    added = run_script(append, "--", "buy milk\n$(rm -rf /) *", env=env)
    assert added.returncode == 0, added.stderr
    notes = tmp_path / "data" / "gibberish" / "notes.md"
    line = notes.read_text()
    assert line.endswith(" buy milk $(rm -rf /) *\n") and line.startswith("- ")
    assert run_script(append, "--", "  ", env=env).returncode == 2
    read = run_script(scripts / "read-notes.sh", "5", env=env)
    assert read.stdout == line
    assert run_script(scripts / "read-notes.sh", "x", env=env).returncode == 2
    del env["XDG_DATA_HOME"]
    run_script(append, "second", env=env)
    assert (tmp_path / "home" / ".local" / "share" / "gibberish" / "notes.md").exists()


@pytest.mark.skipif(shutil.which("ps") is None, reason="needs procps ps")
def test_top_processes_script():
    script = BUNDLED_SKILLS / "system" / "scripts" / "top-processes.sh"
    env = {"PATH": os.environ["PATH"]}
    ok = run_script(script, "mem", "3", env=env)
    assert ok.returncode == 0, ok.stderr
    lines = ok.stdout.splitlines()
    assert len(lines) == 4 and "PID" in lines[0]
    for bad in (["disk"], ["cpu", "0"], ["cpu", "101"], ["cpu", "1;ls"]):
        assert run_script(script, *bad, env=env).returncode == 2


def test_modes_make_sense(bundled):
    assert bundled.get("git").available_in(Mode.DEV)
    assert bundled.get("notes").available_in(Mode.MEETING)
    assert all(s.available_in(Mode.GLOBAL) for s in bundled.skills())
