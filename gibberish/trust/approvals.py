"""The signed approval store: which skill fingerprints the user chose to "Always allow".

File: ``approvals.json`` in the data folder (``paths.data_dir()``)::

    {
      "approvals": {
        "<skill name>": {
          "approved_at": "2025-01-31T09:12:44+00:00",
          "digest": "<fingerprint digest>",
          "files": {"SKILL.md": "<sha256>", "scripts/run.sh": "<sha256>"},
          "path": "/home/me/.config/gibberish/skills/<skill name>"
        }
      },
      "format": 2,
      "generation": 7,
      "signature": "<hex HMAC-SHA256>"
    }

``signature`` is HMAC-SHA256, keyed by ``KeyProvider``, over the canonical JSON of every
other field (sorted keys, no whitespace, ASCII). Reading verifies it; a file that fails
— edited, truncated, not JSON, signed with another key — counts as no approvals, is
moved aside as ``approvals.json.bad-<UTC time>`` rather than deleted, and the user is
told once through ``notices()``.

``generation`` goes up by one on every write, and the provider keeps the last one beside
the key (``KeyProvider.generation()``). A correctly signed file whose generation is
*lower* than the recorded one is an old copy put back — perhaps to bring back an
approval that was revoked — and is treated like a tampered file. The counter is read
and raised under the same file lock as the file. A file *ahead* of the counter (a writer
killed between writing the file and recording its generation) is accepted and the
counter catches up. When no counter is recorded yet (first run after an upgrade), the
file is accepted and counting starts; a ``format: 1`` file from before generations is
rewritten at once with generation 1.

Writes are read-modify-write under a ``filelock.FileLock`` (``approvals.json.lock``), so
two processes approving at once both land, and the new file is written to a temporary
file, fsynced and renamed over the old one, so a crash never leaves half a file.

Only "Always allow" is stored. "Run once" is the caller's business and never reaches the
store. Approvals are per skill name *and* fingerprint: another skill renamed to an
approved skill's name has a different fingerprint, so it asks.

No method raises for a store problem: failures become notices, and an approval that
cannot be read counts as not given.
"""

from __future__ import annotations

import builtins
import contextlib
import hmac
import re
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from types import MappingProxyType
from typing import Any

from filelock import FileLock
from filelock import Timeout as LockTimeout
from msgspec import Struct, field

from gibberish import paths
from gibberish.fileio import atomic_write_bytes, fsync_dir, remove_stale_temps
from gibberish.trust._notices import Notices
from gibberish.trust.fingerprint import Fingerprint, what_changed
from gibberish.trust.keys import KeyProvider, KeyUnavailableError
from gibberish.trust.policy import ApprovalState
from gibberish.trust.signing import InvalidSignedFile, dump_signed, load_signed, set_aside, sign

__all__ = ["ApprovalRecord", "ApprovalStore", "KeyProvider", "KeyUnavailableError"]

FILE_NAME = "approvals.json"
FORMAT = 2
LEGACY_FORMAT = 1
"""Files written before the generation counter; read once, then rewritten as ``FORMAT``."""
MAX_BYTES = 32 << 20
"""Far more than any real store (about 1 KiB per approval); a bigger file is not ours."""
_HEX64 = re.compile(r"[0-9a-f]{64}")


class ApprovalRecord(Struct, frozen=True):
    """One stored approval, for listing (``gibberish approvals list``, the settings page)."""

    skill: str
    digest: str
    approved_at: datetime
    path: Path | None = None
    files: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))


class _Unreadable(Exception):
    """The store cannot be consulted right now; the message is a short reason (a clause)."""


class _Invalid(Exception):
    """The file exists but is not a valid signed store; the message says what is wrong."""


class ApprovalStore:
    """Approvals of skill fingerprints, in a signed JSON file (see the module docstring)."""

    def __init__(
        self,
        path: Path | None = None,
        *,
        key_provider: KeyProvider | None = None,
        lock_timeout: float = 10.0,
    ) -> None:
        self.path = Path(path) if path is not None else paths.data_dir() / FILE_NAME
        self._keys = key_provider or KeyProvider(key_file=self.path.with_name("approvals.key"))
        self._lock = FileLock(str(self.path) + ".lock", timeout=lock_timeout)
        self._lock_timeout = lock_timeout
        self._notices = Notices()

    # -- public API ---------------------------------------------------------------------

    def state_for(self, skill_name: str, fp: Fingerprint) -> ApprovalState:
        """Is this exact fingerprint of ``skill_name`` approved, and if not, what changed?"""
        try:
            approvals = self._read()
        except _Unreadable as exc:
            self._unreadable(exc)
            return ApprovalState(approved=False)
        entry = approvals.get(skill_name)
        if entry is None:
            return ApprovalState(approved=False)
        if hmac.compare_digest(entry["digest"], fp.digest):
            return ApprovalState(approved=True)
        return ApprovalState(approved=False, changed_files=what_changed(entry["files"], fp.files))

    def approve(self, skill_name: str, fp: Fingerprint, *, skill_dir: Path | None = None) -> None:
        """Record that the user allows this fingerprint of ``skill_name`` to run."""
        entry = {
            "digest": fp.digest,
            "files": dict(fp.files),
            "approved_at": datetime.now(UTC).isoformat(timespec="seconds"),
            "path": str(skill_dir) if skill_dir is not None else None,
        }

        def change(approvals: dict[str, Any]) -> bool:
            approvals[skill_name] = entry
            return True

        try:
            self._update(change)
        except _Unreadable as exc:
            self._notices.add(
                f"The approval of “{skill_name}” could not be saved ({exc}); "
                "it will ask again next time."
            )

    def revoke(self, skill_name: str) -> bool:
        """Forget the approval of ``skill_name``; False when there was none (or on error)."""
        removed = False

        def change(approvals: dict[str, Any]) -> bool:
            nonlocal removed
            removed = approvals.pop(skill_name, None) is not None
            return removed

        try:
            self._update(change)
        except _Unreadable as exc:
            self._notices.add(f"The approval of “{skill_name}” could not be removed ({exc}).")
            return False
        return removed

    def reset(self) -> None:
        """Forget every approval (the file is removed; a missing file means none)."""
        try:
            with self._locked():
                with contextlib.suppress(FileNotFoundError):
                    self.path.unlink()
                fsync_dir(self.path.parent)
        except _Unreadable as exc:
            self._notices.add(f"The approvals could not be reset ({exc}).")
        except OSError as exc:
            self._notices.add(f"The approvals could not be reset ({self.path}: {_why(exc)}).")

    def list(self) -> list[ApprovalRecord]:
        """Every stored approval, sorted by skill name (empty when the store is unreadable)."""
        try:
            approvals = self._read()
        except _Unreadable as exc:
            self._unreadable(exc)
            return []
        return [
            ApprovalRecord(
                skill=name,
                digest=entry["digest"],
                approved_at=_parse_time(entry["approved_at"]),
                path=Path(entry["path"]) if entry["path"] else None,
                files=MappingProxyType(dict(entry["files"])),
            )
            for name, entry in sorted(approvals.items())
        ]

    def notices(self) -> builtins.list[str]:
        """One-time messages for the user; each is returned once (drain semantics)."""
        pending = self._notices.drain()
        extra = getattr(self._keys, "notices", None)
        if callable(extra):
            pending = list(extra()) + pending
        return pending

    # -- internals ----------------------------------------------------------------------

    def _unreadable(self, exc: _Unreadable) -> None:
        self._notices.add(
            f"Your approvals could not be read ({exc}), so every skill asks before it runs for now."
        )

    def _key(self) -> bytes:
        try:
            return self._keys.key()
        except KeyUnavailableError as exc:
            raise _Unreadable(str(exc)) from None
        except Exception as exc:  # a custom provider must not crash the caller either
            raise _Unreadable(f"the signing key failed: {type(exc).__name__}") from None

    def _generation(self) -> int | None:
        """The recorded generation (None if none); call with the lock held."""
        reader = getattr(self._keys, "generation", None)
        if not callable(reader):
            return None  # a provider without a counter: no replay check
        try:
            value = reader()
        except KeyUnavailableError as exc:
            raise _Unreadable(str(exc)) from None
        except Exception as exc:
            raise _Unreadable(f"the approvals counter failed: {type(exc).__name__}") from None
        if value is not None and (isinstance(value, bool) or not isinstance(value, int)):
            raise _Unreadable("the approvals counter is not a number")
        return value

    def _set_generation(self, value: int) -> None:
        """Record the generation of the file just written or found; with the lock held."""
        writer = getattr(self._keys, "set_generation", None)
        if not callable(writer):
            return
        try:
            writer(value)
        except KeyUnavailableError as exc:
            raise _Unreadable(str(exc)) from None
        except Exception as exc:
            raise _Unreadable(f"the approvals counter failed: {type(exc).__name__}") from None

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            with self._lock:
                yield
        except LockTimeout:
            raise _Unreadable(
                f"the approvals file {self.path} stayed locked by another process for "
                f"{self._lock_timeout:g} s"
            ) from None

    def _read(self) -> dict[str, Any]:
        key = self._key()
        try:
            with self._locked():
                return self._load(key)[0]
        except OSError as exc:
            raise _Unreadable(f"{self.path}: {_why(exc)}") from None

    def _update(self, change: Callable[[dict[str, Any]], bool]) -> None:
        key = self._key()
        try:
            with self._locked():
                approvals, generation = self._load(key)
                if change(approvals):
                    self._write(approvals, generation + 1, key)
        except OSError as exc:
            raise _Unreadable(f"{self.path}: {_why(exc)}") from None

    def _write(self, approvals: Mapping[str, Any], generation: int, key: bytes) -> None:
        """Write the file, then record its generation; call with the lock held.

        In this order, a writer killed in between leaves a file one generation ahead of
        the counter, which the next read accepts (and catches up with). The other order
        would leave the good file looking like an old copy.
        """
        atomic_write_bytes(self.path, _serialize(approvals, generation, key))
        self._set_generation(generation)

    def _load(self, key: bytes) -> tuple[dict[str, Any], int]:
        """The verified approvals and the current generation; call with the lock held.

        Bad files and old copies are moved aside (and count as no approvals).
        """
        remove_stale_temps(self.path)
        recorded = self._generation()
        current = recorded or 0
        try:
            with open(self.path, "rb") as handle:
                raw = handle.read(MAX_BYTES + 1)  # bounded: never load a huge file whole
        except FileNotFoundError:
            return {}, current
        try:
            approvals, generation = _verify(raw, key)
        except _Invalid as exc:
            self._quarantine(f"failed its signature check ({exc})")
            return {}, current
        if generation is None:  # written before generations existed
            if recorded is not None:
                self._quarantine(
                    "is in the old format although newer files were written since, so it is "
                    "an old copy put back"
                )
                return {}, current
            # First run after the upgrade: start counting now, so no other old copy
            # (they all lack a generation) can be put back from here on.
            self._write(approvals, 1, key)
            return approvals, 1
        if recorded is not None and generation < recorded:
            self._quarantine(
                f"is an older copy than the last one gibberish saved (generation "
                f"{generation}, expected {recorded}), perhaps put back to undo a change"
            )
            return {}, current
        if recorded is None or generation > recorded:
            self._set_generation(generation)  # start counting, or catch up after a crash
        return approvals, generation

    def _quarantine(self, problem: str) -> None:
        kept = set_aside(self.path)
        self._notices.add(
            f"The approvals file {problem}, so gibberish treats it as if no skill were "
            f"approved; {kept}."
        )


def _sign(payload: Mapping[str, Any], key: bytes) -> str:
    return sign(payload, key)


def _serialize(approvals: Mapping[str, Any], generation: int, key: bytes) -> bytes:
    return dump_signed({"format": FORMAT, "generation": generation, "approvals": approvals}, key)


def _verify(raw: bytes, key: bytes) -> tuple[dict[str, Any], int | None]:
    """The approvals and generation of a signed file (generation None for a ``format: 1``
    file), or ``_Invalid`` saying why it cannot be trusted."""
    try:
        payload = load_signed(raw, key, max_bytes=MAX_BYTES)
    except InvalidSignedFile as exc:
        raise _Invalid(str(exc)) from None
    generation = _generation(payload)
    approvals = payload["approvals"]
    if not isinstance(approvals, dict) or not all(_valid_entry(e) for e in approvals.values()):
        raise _Invalid("its entries are malformed")
    return approvals, generation


def _generation(payload: dict[str, Any]) -> int | None:
    """The generation of a signed payload (None for the legacy format), or ``_Invalid``."""
    version = payload.get("format")
    if version == LEGACY_FORMAT and set(payload) == {"format", "approvals"}:
        return None
    if version != FORMAT or set(payload) != {"format", "generation", "approvals"}:
        raise _Invalid(f"it is in a format this version does not know ({version})")
    generation = payload["generation"]
    if isinstance(generation, bool) or not isinstance(generation, int) or generation < 1:
        raise _Invalid("its generation is not a positive number")
    return generation


def _valid_entry(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and isinstance(entry.get("digest"), str)
        and _HEX64.fullmatch(entry["digest"]) is not None
        and isinstance(entry.get("files"), dict)
        and all(isinstance(k, str) and isinstance(v, str) for k, v in entry["files"].items())
        and isinstance(entry.get("approved_at"), str)
        and (entry.get("path") is None or isinstance(entry.get("path"), str))
    )


def _parse_time(text: str) -> datetime:
    try:
        return datetime.fromisoformat(text)
    except ValueError:
        return datetime.fromtimestamp(0, UTC)


def _why(exc: OSError) -> str:
    return exc.strerror or str(exc) or type(exc).__name__
