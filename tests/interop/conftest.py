"""Fixtures for installer tests: the CLI run in-process against the test's own folders."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gibberish import paths
from gibberish.cli import cli


@pytest.fixture
def gib() -> Callable[..., Result]:
    def run(*args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)

    return run


@pytest.fixture
def user_skills() -> Path:
    return paths.user_skills_dir()


@pytest.fixture
def state_file() -> Path:
    return paths.data_dir() / "installed.json"
