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
from gibberish.trust.keys import SERVICE, USERNAME, KeyProvider, keyring_is_secure

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


def test_a_key_file_is_moved_into_a_keyring_that_became_available(
    tmp_path: Path, skill_dir: Path
) -> None:
    key_file = tmp_path / "approvals.key"
    path = tmp_path / "approvals.json"
    fp = fingerprint(skill_dir)
    ApprovalStore(
        path, key_provider=KeyProvider(key_file=key_file, backend=InsecureKeyring())
    ).approve("demo", fp)
    secure = MemoryKeyring()
    store = ApprovalStore(path, key_provider=KeyProvider(key_file=key_file, backend=secure))
    assert store.state_for("demo", fp).approved  # old approvals still valid
    assert (SERVICE, USERNAME) in secure.passwords
    assert not key_file.exists()
    assert store.notices() == []


def test_the_default_backend_comes_from_keyring_set_keyring(
    memory_keyring: MemoryKeyring, tmp_path: Path
) -> None:
    provider = KeyProvider(key_file=tmp_path / "approvals.key")
    key = provider.key()
    assert provider.storage == "keyring"
    assert memory_keyring.passwords[(SERVICE, USERNAME)] == key.hex()
    assert provider.key() is key  # cached
