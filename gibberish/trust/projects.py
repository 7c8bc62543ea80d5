"""Project folders the person trusts (``gibberish project trust``, or the tray's question).

A folder with a ``gibberish.toml`` may be a repository someone else wrote and the person
just cloned. Until they trust that folder, its ``.gibberish/skills`` load as
**untrusted** (every run asks, with the warning banner, and never "Trust this version")
and never hide a bundled or user skill of the same name; the library says which one
was kept (docs/security.md, "Project folders"). This follows Gemini CLI's trusted folders.

The list lives in ``$XDG_DATA_HOME/gibberish/trusted-projects.json`` (mode 0600), keyed
by the folder's real path, so a link to a project is the same project and a moved or
re-cloned folder must be trusted again. It is signed exactly as the approvals file is,
with the same key (:mod:`gibberish.trust.signing`, :class:`~gibberish.trust.keys.KeyProvider`):
another program that can write the data folder cannot add its own folder. A file that
fails the check — edited, written by hand, cut short, signed with another key — counts
as no trusted project, is set aside as ``trusted-projects.json.bad-<UTC time>``, and
``notices()`` says so once. Nothing here raises for a store problem.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from gibberish import paths
from gibberish.fileio import atomic_write_bytes
from gibberish.skills.library import SkillSource
from gibberish.skills.model import Trust
from gibberish.trust._notices import Notices
from gibberish.trust.keys import KeyProvider, KeyUnavailableError
from gibberish.trust.signing import InvalidSignedFile, dump_signed, load_signed, set_aside

FILE_NAME = "trusted-projects.json"
FORMAT = 2
"""``format: 1`` files were unsigned; they fail the check like any unsigned file."""
MAX_BYTES = 4 << 20
_NOTICES = Notices()


_PROVIDERS: dict[Path, KeyProvider] = {}


def key_provider() -> KeyProvider:
    """The approvals' key (the same keyring entry, or the same fallback file); one
    provider per data folder, so the keyring is asked once, not on every focus change."""
    folder = paths.data_dir()
    if folder not in _PROVIDERS:
        _PROVIDERS[folder] = KeyProvider()
    return _PROVIDERS[folder]


def notices() -> list[str]:
    """One-time messages about the list (a file that failed its check), drained."""
    return _NOTICES.drain()


class StoreError(Exception):
    """The list cannot be signed: the key cannot be read or created (the message says why)."""


def _signing_key() -> bytes:
    try:
        return key_provider().key()
    except KeyUnavailableError as exc:
        raise StoreError(str(exc)) from None
    except Exception as exc:  # a keyring backend must not crash the caller
        raise StoreError(f"the signing key failed: {type(exc).__name__}") from None


def store_path() -> Path:
    return paths.data_dir() / FILE_NAME


def _key(folder: Path) -> str:
    return os.path.realpath(folder)


def _read() -> dict[str, str]:
    """The verified list (real path → when), {} with a notice when it cannot be used."""
    try:
        key = _signing_key()
        with open(store_path(), "rb") as handle:
            raw = handle.read(MAX_BYTES + 1)
    except FileNotFoundError:
        return {}
    except (OSError, StoreError) as exc:
        reason = exc.strerror if isinstance(exc, OSError) else str(exc)
        _NOTICES.add(
            f"The list of trusted project folders could not be read ({reason}), so every "
            "project's skills load as untrusted for now."
        )
        return {}
    try:
        return _verify(raw, key)
    except InvalidSignedFile as exc:
        kept = set_aside(store_path())
        _NOTICES.add(
            f"The list of trusted project folders failed its signature check ({exc}), so "
            f"no project folder is trusted until you trust it again "
            f"(`gibberish project trust DIR`); {kept}."
        )
        return {}


def _verify(raw: bytes, key: bytes) -> dict[str, str]:
    payload = load_signed(raw, key, max_bytes=MAX_BYTES)
    if payload.get("format") != FORMAT or set(payload) != {"format", "trusted"}:
        raise InvalidSignedFile("it is in a format this version does not know")
    trusted = payload["trusted"]
    if not isinstance(trusted, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in trusted.items()
    ):
        raise InvalidSignedFile("its entries are malformed")
    return dict(trusted)


def _write(trusted: dict[str, str]) -> None:
    payload = {"format": FORMAT, "trusted": dict(sorted(trusted.items()))}
    atomic_write_bytes(store_path(), dump_signed(payload, _signing_key()), mode=0o600)


def _locked() -> FileLock:
    store_path().parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return FileLock(str(store_path()) + ".lock", timeout=10)


def is_trusted(project: Path) -> bool:
    return _key(project) in _read()


def trust(project: Path) -> Path:
    """Trust ``project`` (its real path, returned) from now on."""
    key = _key(project)
    with _locked():
        trusted = _read()
        trusted[key] = datetime.now(UTC).isoformat(timespec="seconds")
        _write(trusted)
    return Path(key)


def untrust(project: Path) -> bool:
    """Stop trusting ``project``; False when it was not trusted."""
    key = _key(project)
    with _locked():
        trusted = _read()
        if trusted.pop(key, None) is None:
            return False
        _write(trusted)
    return True


def trusted_projects() -> dict[str, str]:
    """Real path → when it was trusted."""
    return _read()


def with_project(sources: list[SkillSource], project_skills: Path) -> list[SkillSource]:
    """``sources`` with a project's skills folder placed by trust: a trusted project's
    skills come first (as the person's own, ``user``); an untrusted one's come last, as
    ``untrusted``, so a bundled or user skill of the same name wins and the library's
    override warning says which folder was kept."""
    if is_trusted(project_skills.parent.parent):
        return [SkillSource(project_skills, Trust.USER), *sources]
    return [*sources, SkillSource(project_skills, Trust.UNTRUSTED)]


def waiting(project_skills: Path | None) -> tuple[Path, list[str]] | None:
    """The project (and its skill folders' names) whose skills wait for the person's
    trust, or None: no project, no skills in it, or trusted already."""
    if project_skills is None or not project_skills.is_dir():
        return None
    project = project_skills.parent.parent
    if is_trusted(project):
        return None
    try:
        names = sorted(p.name for p in project_skills.iterdir() if (p / "SKILL.md").is_file())
    except OSError:
        return None
    return (project, names) if names else None


def untrusted_project_of(skill_dir: Path) -> Path | None:
    """The project folder a skill at ``skill_dir`` came with (``PROJECT/.gibberish/skills/X``
    beside a ``gibberish.toml``) when that project is not trusted; else None."""
    skills = skill_dir.parent
    project = skills.parent.parent
    if skills.name != "skills" or skills.parent.name != ".gibberish":
        return None
    if not (project / "gibberish.toml").is_file() or is_trusted(project):
        return None
    return project
