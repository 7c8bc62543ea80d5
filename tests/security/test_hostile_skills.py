"""One bad skill never breaks the others: every command over a folder of hostile skills.

Each command must report the bad skill's problem (or leave it out) and carry on with the
rest; none may end in an internal error.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from tests.helpers import hostile_skills
from tests.helpers.skill_folders import child_env


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return hostile_skills.build(tmp_path_factory.mktemp("hostile") / "skills")


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir(exist_ok=True)
    return home


def _run(skills: Path, *args: str) -> tuple[int, str]:
    base = ["--no-bundled", "--no-user-skills", "--skills-dir", str(skills)]
    result = CliRunner().invoke(cli, [*base, *args])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    assert "internal error" not in result.output, (args, result.output)
    return result.exit_code, result.output


COMMANDS = [
    ("skills", "list"),
    ("skills", "check"),
    ("sync", "--dry-run", "claude-code"),
    ("sync", "claude-code"),
    ("search", "usage"),
    ("context", "list"),
    ("prompt",),
]


@pytest.mark.parametrize("args", COMMANDS, ids=" ".join)
def test_every_command_carries_on_past_the_bad_skills(hostile, home, args) -> None:
    code, out = _run(hostile, *args)
    assert code in (0, 1), out
    if args[0] == "sync":
        assert " create " in out, out
    elif args[0] != "prompt":
        assert "good-" in out, out


def test_sync_copies_the_good_and_reports_the_bad(hostile, home) -> None:
    code, out = _run(hostile, "sync", "claude-code")
    assert code == 0, out
    copies = home / ".claude" / "skills"
    for name in (*hostile_skills.GOOD, "loop-pair", "dangling-rel", "fifo-inside"):
        assert (copies / name / "SKILL.md").is_file(), name
    assert not (copies / "fifo-inside" / "pipe.md").exists()
    assert "skip-invalid" in out and "fifo-skillmd" in out.replace("\n", "")
    assert not (copies / "big-file").exists()  # a 50 MB file: skipped whole, said why
    assert "more than the 16 MiB a synced file may have" in out.replace("\n", "")


def test_search_names_the_skills_it_skipped(hostile, home) -> None:
    code, out = _run(hostile, "search", "usage")
    assert code == 0
    assert "loop-pair  SKILL.md" in out and "good-guide  SKILL.md" in out
    # a skill that failed to load is never searched, and the note says why
    assert "note: dangling skipped: failed to load (E-PATH-ESCAPE)" in out.replace("\n", "")
    assert "dangling  " not in out


@pytest.mark.parametrize("name", [*hostile_skills.GOOD[:1], *hostile_skills.ODD_BUT_USABLE])
def test_stub_compile_and_the_gateway_work_on_each_usable_skill(
    hostile, home, tmp_path, name
) -> None:
    for args in (
        ("stub", name, "--out", str(tmp_path / "stubs")),
        ("compile", name, "--stdout"),
        ("outline", name),
        ("sources", name),
        ("context", "show", name),
    ):
        code, out = _run(hostile, *args)
        assert code == 0, (args, out)


@pytest.mark.parametrize("name", hostile_skills.BROKEN)
def test_a_broken_skill_is_a_sentence_not_a_crash(hostile, home, tmp_path, name) -> None:
    for args in (("stub", name, "--out", str(tmp_path / "s")), ("compile", name, "--stdout")):
        code, out = _run(hostile, *args)
        assert code in (0, 1, 2) and out.strip(), (args, out)


def test_mcp_skills_search_reports_and_carries_on(hostile, home) -> None:
    from tests.mcp.test_mcp_server import with_session

    async def body(session):
        return await session.call_tool("skills_search", {"query": "usage"})

    found = with_session(hostile, body)
    assert found.is_error is False
    hits = {h["skill"] for h in found.structured_content["hits"]}
    assert {"good-guide", "loop-pair", "dangling-rel"} <= hits
    skipped = {s["skill"] for s in found.structured_content["skipped"]}
    assert "dangling" in skipped


def _without_dac_override() -> list[str] | None:
    """A prefix that runs a command unable to bypass file modes, or None."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv", path=os.defpath + ":/usr/sbin:/sbin")
    if setpriv is None:
        return None
    prefix = [setpriv, "--inh-caps=-all", "--bounding-set=-dac_override,-dac_read_search"]
    probe = subprocess.run([*prefix, sys.executable, "-c", "pass"], capture_output=True)
    return prefix if probe.returncode == 0 else None


def test_unreadable_files_and_folders_are_that_skills_problem(tmp_path, home) -> None:
    prefix = _without_dac_override()
    if prefix is None:
        pytest.skip("running as root without setpriv (util-linux) to drop the file-mode override")
    skills = hostile_skills.build(tmp_path / "skills", many=10)
    hostile_skills.make_unreadable(skills)
    (home / ".gemini").mkdir()
    base = [sys.executable, "-m", "gibberish", "--no-bundled", "--no-user-skills"]

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        argv = [*prefix, *base, "--skills-dir", str(skills), *args]
        done = subprocess.run(argv, capture_output=True, text=True, env=child_env(), timeout=120)
        assert "internal error" not in done.stdout + done.stderr, (args, done.stderr)
        return done

    synced = run("sync", "gemini-cli")
    assert synced.returncode == 0, synced.stderr
    assert "unreadable-file/secret.md: cannot be read" in synced.stdout.replace("\n", "")
    assert (home / ".gemini" / "skills" / "good-guide" / "SKILL.md").is_file()
    assert not (home / ".gemini" / "skills" / "unreadable-file").exists()
    searched = run("search", "usage")
    assert searched.returncode == 0 and "good-guide" in searched.stdout
    assert "unreadable-dir skipped" in searched.stderr and "Permission denied" in searched.stderr
    outlined = run("outline", "unreadable-file")
    assert outlined.returncode == 1 and "E013" in outlined.stderr and "Errno" not in outlined.stderr
    assert run("stub", "good-guide", "--out", str(tmp_path / "stubs")).returncode == 0
