"""Per-skill secrets in the keyring, names in an index, values never in text."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import keyring
import pytest

from gibberish import paths
from gibberish.skills.model import SkillDefinition
from gibberish.trust.secrets import (
    SERVICE,
    MissingSecretError,
    SecretStore,
    SecretStoreError,
    SecretValues,
)

from .conftest import BrokenKeyring, MemoryKeyring

VALUE = "ghp_s3cr3t-value-XYZ"


def skill(name: str = "git", secrets: tuple[str, ...] = ("GITHUB_TOKEN",)) -> SkillDefinition:
    return SkillDefinition(name=name, source_path=Path(f"/skills/{name}/SKILL.md"), secrets=secrets)


@pytest.fixture(params=["plaintext-default", "memory"])
def store(request, memory_keyring_factory) -> SecretStore:
    """Both the conftest's default keyring and a ``keyring.set_keyring`` one."""
    if request.param == "memory":
        memory_keyring_factory()
    return SecretStore()


@pytest.fixture
def memory_keyring_factory():
    previous = keyring.get_keyring()
    installed: list[MemoryKeyring] = []

    def install() -> MemoryKeyring:
        backend = MemoryKeyring()
        keyring.set_keyring(backend)
        installed.append(backend)
        return backend

    yield install
    keyring.set_keyring(previous)


def test_set_get_delete_names(store: SecretStore) -> None:
    assert store.get("git", "GITHUB_TOKEN") is None
    assert store.names("git") == []
    store.set("git", "GITHUB_TOKEN", VALUE)
    store.set("git", "OTHER", "x")
    assert store.get("git", "GITHUB_TOKEN") == VALUE
    assert keyring.get_password(SERVICE, "git/GITHUB_TOKEN") == VALUE
    assert store.names("git") == ["GITHUB_TOKEN", "OTHER"]
    assert store.names("other-skill") == []
    assert store.delete("git", "GITHUB_TOKEN") is True
    assert store.delete("git", "GITHUB_TOKEN") is False
    assert store.get("git", "GITHUB_TOKEN") is None
    assert store.names("git") == ["OTHER"]


def test_the_index_holds_names_only(store: SecretStore) -> None:
    store.set("git", "GITHUB_TOKEN", VALUE)
    index = paths.data_dir() / "secrets-index.json"
    assert store.index_path == index
    assert json.loads(index.read_text()) == {"git": ["GITHUB_TOKEN"]}
    assert VALUE not in index.read_text()


def test_secrets_are_per_skill(store: SecretStore) -> None:
    store.set("git", "TOKEN", "a")
    store.set("gitlab", "TOKEN", "b")
    assert store.get("git", "TOKEN") == "a"
    assert store.get("gitlab", "TOKEN") == "b"


def test_resolve_returns_declared_values_only(store: SecretStore) -> None:
    store.set("git", "GITHUB_TOKEN", VALUE)
    store.set("git", "UNDECLARED", "nope")
    values = store.resolve(skill())
    assert values == {"GITHUB_TOKEN": VALUE}
    assert store.resolve(skill(secrets=())) == {}


def test_missing_secret_error_says_how_to_set_it(store: SecretStore) -> None:
    with pytest.raises(MissingSecretError) as info:
        store.resolve(skill())
    error = info.value
    assert error.skill == "git"
    assert error.names == ("GITHUB_TOKEN",)
    assert "run `gibberish secrets set git GITHUB_TOKEN`" in str(error)
    assert error.message == str(error)


def test_missing_several_secrets_lists_each_command(store: SecretStore) -> None:
    store.set("deploy", "B", "set")
    with pytest.raises(MissingSecretError) as info:
        store.resolve(skill("deploy", ("A", "B", "C")))
    assert info.value.names == ("A", "C")
    message = str(info.value)
    assert "`gibberish secrets set deploy A`" in message
    assert "`gibberish secrets set deploy C`" in message
    assert "set deploy B" not in message


def test_values_never_appear_in_repr_or_str(store: SecretStore, caplog) -> None:
    caplog.set_level(logging.DEBUG)
    store.set("git", "GITHUB_TOKEN", VALUE)
    values = store.resolve(skill())
    for text in (repr(values), str(values), f"{values}", repr(store), str(store)):
        assert VALUE not in text
    assert "GITHUB_TOKEN" in repr(values)
    assert isinstance(values, dict) and isinstance(values, SecretValues)
    assert {**values}["GITHUB_TOKEN"] == VALUE  # still usable as an environment
    assert VALUE not in caplog.text


def test_keyring_errors_never_echo_the_value(tmp_path: Path) -> None:
    class Echoing(MemoryKeyring):
        def set_password(self, service: str, username: str, password: str) -> None:
            raise keyring.errors.PasswordSetError(f"refused to store {password!r}")

    store = SecretStore(index_path=tmp_path / "index.json", backend=Echoing())
    with pytest.raises(SecretStoreError) as info:
        store.set("git", "GITHUB_TOKEN", VALUE)
    assert VALUE not in str(info.value)
    assert info.value.__cause__ is None and info.value.__context__ is not None
    assert info.value.__suppress_context__
    assert "GITHUB_TOKEN" in str(info.value)
    assert store.names("git") == []  # not indexed when not stored


def test_a_broken_keyring_is_a_clear_error(tmp_path: Path) -> None:
    store = SecretStore(index_path=tmp_path / "index.json", backend=BrokenKeyring())
    with pytest.raises(SecretStoreError, match="could not read GITHUB_TOKEN for git"):
        store.get("git", "GITHUB_TOKEN")
    with pytest.raises(SecretStoreError):
        store.resolve(skill())


@pytest.mark.parametrize(
    ("skill_name", "name"),
    [("git", "A/B"), ("git", ""), ("git", "1ABC"), ("git/x", "A"), ("", "A"), ("git", "A B")],
)
def test_bad_names_are_refused(tmp_path: Path, skill_name: str, name: str) -> None:
    store = SecretStore(index_path=tmp_path / "index.json", backend=MemoryKeyring())
    with pytest.raises(ValueError):
        store.set(skill_name, name, VALUE)


def test_empty_value_is_refused(tmp_path: Path) -> None:
    store = SecretStore(index_path=tmp_path / "index.json", backend=MemoryKeyring())
    with pytest.raises(SecretStoreError):
        store.set("git", "GITHUB_TOKEN", "")


def test_a_damaged_index_only_loses_names(tmp_path: Path) -> None:
    index = tmp_path / "index.json"
    backend = MemoryKeyring()
    store = SecretStore(index_path=index, backend=backend)
    store.set("git", "GITHUB_TOKEN", VALUE)
    index.write_text("{not json")
    assert store.names("git") == []
    assert store.get("git", "GITHUB_TOKEN") == VALUE
    assert store.delete("git", "GITHUB_TOKEN") is True
