"""Fixtures for the trust tests: skill folders on disk and an in-memory secure keyring."""

from __future__ import annotations

from pathlib import Path

import keyring
import keyring.backend
import keyring.errors
import pytest

from tests.skills.fixtures.skillkit import make_skill, tool_block


class MemoryKeyring(keyring.backend.KeyringBackend):
    """A keyring that keeps passwords in a dict and claims to be secure (priority 5)."""

    priority = 5  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()
        self.passwords: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.passwords.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.passwords[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        try:
            del self.passwords[(service, username)]
        except KeyError:
            raise keyring.errors.PasswordDeleteError("not found") from None


class BrokenKeyring(MemoryKeyring):
    """A secure-looking keyring that fails every call, like a locked or unreachable one."""

    def get_password(self, service: str, username: str) -> str | None:
        raise keyring.errors.KeyringLocked("the keyring is locked")

    set_password = get_password  # type: ignore[assignment]
    delete_password = get_password  # type: ignore[assignment]


class InsecureKeyring(MemoryKeyring):
    """A backend that works but says it is not recommended (priority below 1)."""

    priority = 0.5  # type: ignore[assignment]


@pytest.fixture
def memory_keyring():
    """Install a MemoryKeyring as *the* keyring (``keyring.set_keyring``), restored after."""
    previous = keyring.get_keyring()
    backend = MemoryKeyring()
    keyring.set_keyring(backend)
    try:
        yield backend
    finally:
        keyring.set_keyring(previous)


def write_skill(root: Path, name: str = "demo", *, body: str = "echo hi") -> Path:
    """A small skill folder: SKILL.md and a script under scripts/."""
    return make_skill(
        root,
        name,
        tools=[tool_block("run", "Runs it.", "./scripts/run.sh")],
        scripts={"scripts/run.sh": f"#!/bin/sh\n{body}\n"},
        description="Demo skill.",
    )


@pytest.fixture
def skill_dir(tmp_path: Path) -> Path:
    return write_skill(tmp_path / "skills")
