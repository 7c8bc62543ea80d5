"""Fixtures for the skill manager's tests: the CLI in-process, and sources of every kind."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gibberish import paths
from gibberish.cli import cli
from tests.interop.builders import git


@pytest.fixture
def gib() -> Callable[..., Result]:
    """The CLI run in-process against the test's own HOME and XDG folders (no terminal)."""

    def run(*args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(cli, ["--no-bundled", *args], input=input, catch_exceptions=False)

    return run


@pytest.fixture
def user_skills() -> Path:
    return paths.user_skills_dir()


@pytest.fixture
def state() -> Callable[[], dict]:
    return lambda: json.loads((paths.data_dir() / "installed.json").read_text())["skills"]


def bare_repo(work: Path, bare: Path) -> Path:
    """A bare repository cloned from ``work`` (real git), the way a server holds one."""
    git(work.parent, "clone", "-q", "--bare", str(work), str(bare))
    return bare


def push(work: Path, bare: Path) -> None:
    git(work, "push", "-q", str(bare), "main")
