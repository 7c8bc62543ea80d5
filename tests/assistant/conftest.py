"""Fixtures: the spec's example skills and a loopback model server; no thread may outlive a test."""

from __future__ import annotations

import socket
import threading

import pytest

from gibberish.assistant.naming import ToolCatalog
from gibberish.skills.model import SkillDefinition
from tests.assistant.builders import deploy_skill, git_skill, summarize_skill


@pytest.fixture
def example_skills() -> list[SkillDefinition]:
    return [git_skill(), summarize_skill(), deploy_skill()]


@pytest.fixture
def catalog(example_skills) -> ToolCatalog:
    return ToolCatalog.from_skills(example_skills)


@pytest.fixture
def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(autouse=True)
def no_threads_left():
    before = set(threading.enumerate())
    yield
    leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
    assert not leaked, f"threads left running: {leaked}"
