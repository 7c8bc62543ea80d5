"""The bundled git tools in a hostile repository: nothing its .git/config names may run.

The repository is real: its config points every command-running setting git knows at
a script that leaves a marker file. Plain ``git`` runs them (the control); the bundled
tools must not run any. The sandbox is off here, so this tests the configuration
itself and not the read-only file system that would also stop the markers.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from gibberish.engine.core import Engine, EngineOptions
from tests.helpers.builders import needs_git

pytestmark = needs_git

HOOKED = (
    "core.fsmonitor",
    "core.pager",
    "diff.external",
    "filter.evil.clean",
    "filter.evil.smudge",
    "filter.evil.process",
    "diff.evil.textconv",
    "diff.evil.command",
    "gpg.program",
    "gpg.ssh.program",
    "pager.status",
    "pager.log",
    "pager.diff",
    "pager.branch",
)


def git(repo: Path, *args: str, **kwargs) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, timeout=30, **kwargs
    )


@pytest.fixture
def hostile_repo(tmp_path: Path) -> tuple[Path, Path]:
    """A repository whose config runs a marker script from every hook it can."""
    repo, markers, hooks = tmp_path / "repo", tmp_path / "markers", tmp_path / "hooks"
    for folder in (repo, markers, hooks):
        folder.mkdir()
    git(repo, "init", "-q", check=True)
    git(repo, "config", "user.email", "a@example.org", check=True)
    git(repo, "config", "user.name", "A", check=True)
    (repo / "a.txt").write_text("one\n")
    git(repo, "add", "a.txt", check=True)
    git(repo, "commit", "-qm", "first", check=True)
    for key in HOOKED:
        script = tmp_path / f"{key}.sh"
        script.write_text(f'#!/bin/sh\ntouch "{markers}/{key}"\ncat\n')
        script.chmod(0o755)
        git(repo, "config", key, str(script), check=True)
    hook = hooks / "post-index-change"
    hook.write_text(f'#!/bin/sh\ntouch "{markers}/post-index-change"\n')
    hook.chmod(0o755)
    git(repo, "config", "core.hooksPath", str(hooks), check=True)
    git(repo, "config", "log.showSignature", "true", check=True)
    git(repo, "config", "filter.evil.required", "true", check=True)
    (repo / ".gitattributes").write_text("* filter=evil diff=evil\n")
    (repo / "a.txt").write_text("two\n")
    os.utime(repo / "a.txt", (1, 1))  # stat differs from the index: git must look inside
    return repo, markers


def test_plain_git_runs_what_the_repository_says(hostile_repo) -> None:
    """The control: the repository really is hostile."""
    repo, markers = hostile_repo
    git(repo, "status")
    git(repo, "diff")
    assert {"core.fsmonitor", "filter.evil.process"} <= {p.name for p in markers.iterdir()}


def test_the_bundled_git_tools_run_none_of_it(hostile_repo, no_sandbox) -> None:
    repo, markers = hostile_repo
    engine = Engine(EngineOptions(include_user=False))
    outputs = {}
    for name, tool, args in (
        ("status", "git_status", {}),
        ("log", "git_log", {"count": 3}),
        ("diff", "git_diff", {}),
        ("staged", "git_diff", {"staged": True}),
        ("branches", "git_branches", {}),
    ):
        prepared = engine.runs.prepare(f"git.{tool}", args, cwd=repo)
        assert prepared.decision.runs, prepared.decision.reason
        outputs[name] = engine.runs.run(prepared).envelope
    assert sorted(p.name for p in markers.iterdir()) == []
    assert "a.txt" in outputs["status"].output, outputs["status"]
    assert "first" in outputs["log"].output, outputs["log"]
    assert "-one" in outputs["diff"].output and "+two" in outputs["diff"].output
    assert all(envelope.success for envelope in outputs.values()), outputs
