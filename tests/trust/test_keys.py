"""Where the approvals key lives: the keyring when it is secure, else a 0600 file."""

from __future__ import annotations

import stat
from pathlib import Path

import keyring.backends.fail
import keyring.backends.null
import pytest
from keyrings.alt.file import PlaintextKeyring

from gibberish.trust.approvals import ApprovalStore
from gibberish.trust.fingerprint import fingerprint
from gibberish.trust.keys import (
    GENERATION_USERNAME,
    SERVICE,
    USERNAME,
    KeyProvider,
    keyring_is_secure,
)

from .conftest import InsecureKeyring, MemoryKeyring


@pytest.mark.parametrize(
    "backend",
    [
        keyring.backends.fail.Keyring(),
        keyring.backends.null.Keyring(),
        PlaintextKeyring(),
        InsecureKeyring(),
    ],
    ids=["fail", "null", "plaintext", "priority-0.5"],
)
def test_insecure_backends_are_recognised(backend) -> None:
    assert keyring_is_secure(backend) is False


def test_a_secure_backend_is_recognised() -> None:
    assert keyring_is_secure(MemoryKeyring()) is True


def test_a_chainer_is_judged_by_the_backend_it_writes_to_first() -> None:
    class Chain(MemoryKeyring):
        def __init__(self, backends) -> None:
            super().__init__()
            self.backends = backends

    assert keyring_is_secure(Chain([MemoryKeyring(), PlaintextKeyring()])) is True
    assert keyring_is_secure(Chain([PlaintextKeyring()])) is False
    assert keyring_is_secure(Chain([])) is False


@pytest.mark.parametrize(
    "backend",
    [keyring.backends.fail.Keyring(), keyring.backends.null.Keyring(), InsecureKeyring()],
    ids=["fail", "null", "priority-0.5"],
)
def test_insecure_keyring_falls_back_to_a_0600_key_file_with_one_notice(
    tmp_path: Path, skill_dir: Path, backend
) -> None:
    key_file = tmp_path / "data" / "approvals.key"
    provider = KeyProvider(key_file=key_file, backend=backend)
    store = ApprovalStore(tmp_path / "data" / "approvals.json", key_provider=provider)
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    assert store.state_for("demo", fp).approved
    store.approve("other", fp)

    assert provider.storage == "file"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert len(bytes.fromhex(key_file.read_text())) == 32
    notices = store.notices()
    assert len(notices) == 1
    assert "No secure keyring" in notices[0] and str(key_file) in notices[0]
    assert "0600" in notices[0]
    assert store.notices() == []
    if isinstance(backend, InsecureKeyring):
        assert backend.passwords == {}  # nothing was put in the insecure keyring

    # another process (a new provider) finds the same key
    again = KeyProvider(key_file=key_file, backend=backend)
    assert again.key() == provider.key()
    assert not list(key_file.parent.glob(".approvals.key.*"))  # no temp files left


def test_a_key_file_readable_by_others_is_made_private(tmp_path: Path) -> None:
    key_file = tmp_path / "approvals.key"
    first = KeyProvider(key_file=key_file, backend=InsecureKeyring()).key()
    key_file.chmod(0o644)
    provider = KeyProvider(key_file=key_file, backend=InsecureKeyring())
    assert provider.key() == first
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert any("readable by others" in n for n in provider.notices())


def test_a_damaged_key_file_is_replaced(tmp_path: Path) -> None:
    key_file = tmp_path / "approvals.key"
    key_file.write_text("garbage")
    provider = KeyProvider(key_file=key_file, backend=InsecureKeyring())
    key = provider.key()
    assert len(key) == 32
    assert key_file.read_text() == key.hex()
    assert any("damaged" in n for n in provider.notices())


def test_a_planted_key_file_is_never_adopted_by_an_empty_secure_keyring(
    tmp_path: Path, skill_dir: Path
) -> None:
    # M3: someone who can write the data folder (but not read the keyring) plants a key
    # file and an approvals file signed with it, hoping the keyring adopts the key.
    key_file = tmp_path / "approvals.key"
    path = tmp_path / "approvals.json"
    fp = fingerprint(skill_dir)
    attacker = KeyProvider(key_file=key_file, backend=InsecureKeyring())
    ApprovalStore(path, key_provider=attacker).approve("demo", fp)
    planted = key_file.read_bytes()

    secure = MemoryKeyring()
    provider = KeyProvider(key_file=key_file, backend=secure)
    store = ApprovalStore(path, key_provider=provider)
    assert store.state_for("demo", fp).approved is False  # the forged approval is ignored
    assert provider.storage == "keyring"
    assert secure.passwords[(SERVICE, USERNAME)] != planted.decode()
    assert bytes.fromhex(secure.passwords[(SERVICE, USERNAME)]) != attacker.key()
    assert not key_file.exists()
    [aside] = tmp_path.glob("approvals.key.unused-*")
    assert aside.read_bytes() == planted  # kept, not deleted, never used
    notices = store.notices()
    assert any("approvals were reset" in n and str(aside) in n for n in notices)
    assert any("failed its signature check" in n for n in notices)

    # from now on the keyring key is used, and the store works
    store.approve("demo", fp)
    again = ApprovalStore(path, key_provider=KeyProvider(key_file=key_file, backend=secure))
    assert again.state_for("demo", fp).approved is True
    assert again.notices() == []
    assert not key_file.exists()


def test_an_empty_secure_keyring_without_a_key_file_says_nothing(tmp_path: Path) -> None:
    provider = KeyProvider(key_file=tmp_path / "approvals.key", backend=MemoryKeyring())
    assert len(provider.key()) == 32
    assert provider.notices() == []
    assert list(tmp_path.glob("approvals.key*")) == [tmp_path / "approvals.key.lock"]


def test_the_default_backend_comes_from_keyring_set_keyring(
    memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    provider = KeyProvider(key_file=tmp_path / "approvals.key")
    key = provider.key()
    assert provider.storage == "keyring"
    assert memory_keyring.passwords[(SERVICE, USERNAME)] == key.hex()
    assert provider.key() is key  # cached


def test_the_generation_counter_lives_beside_the_key(tmp_path: Path) -> None:
    secure = MemoryKeyring()
    in_keyring = KeyProvider(key_file=tmp_path / "k" / "approvals.key", backend=secure)
    assert in_keyring.generation() is None
    in_keyring.set_generation(7)
    assert in_keyring.generation() == 7
    assert secure.passwords[(SERVICE, GENERATION_USERNAME)] == "7"
    assert not in_keyring.generation_file.exists()

    in_file = KeyProvider(key_file=tmp_path / "f" / "approvals.key", backend=InsecureKeyring())
    assert in_file.generation() is None
    in_file.set_generation(3)
    assert in_file.generation() == 3
    assert in_file.generation_file == tmp_path / "f" / "approvals.generation"
    assert in_file.generation_file.read_text() == "3\n"
    assert stat.S_IMODE(in_file.generation_file.stat().st_mode) == 0o600
    with pytest.raises(ValueError):
        in_file.set_generation(-1)


@pytest.mark.parametrize("stored", ["", "abc", "-3", "1e9", "٣", "9" * 40])
def test_a_malformed_counter_counts_as_missing(tmp_path: Path, stored: str) -> None:
    secure = MemoryKeyring()
    secure.passwords[(SERVICE, GENERATION_USERNAME)] = stored
    assert KeyProvider(key_file=tmp_path / "approvals.key", backend=secure).generation() is None
