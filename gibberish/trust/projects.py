"""Project folders the person trusts (``gibberish project trust``, or the tray's question).

A folder with a ``gibberish.toml`` may be a repository someone else wrote and the person
just cloned. Until they trust that folder, its ``.gibberish/skills`` load as
**untrusted** (every run asks, with the warning banner, and never "Trust this version")
and never hide a bundled or user skill of the same name; the library says which one
was kept (docs/trust.md, "Project folders"). This follows Gemini CLI's trusted folders.

The list lives in ``$XDG_DATA_HOME/gibberish/trusted-projects.json`` (mode 0600), keyed
by the folder's real path, so a link to a project is the same project and a moved or
re-cloned folder must be trusted again.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from filelock import FileLock

from gibberish import paths
from gibberish.fileio import atomic_write_bytes
from gibberish.skills.library import SkillSource
from gibberish.skills.model import Trust

FILE_NAME = "trusted-projects.json"


def store_path() -> Path:
    return paths.data_dir() / FILE_NAME


def _key(folder: Path) -> str:
    return os.path.realpath(folder)


def _read() -> dict[str, str]:
    try:
        data = json.loads(store_path().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    trusted = data.get("trusted") if isinstance(data, dict) else None
    if not isinstance(trusted, dict):
        return {}
    return {str(k): str(v) for k, v in trusted.items()}


def _write(trusted: dict[str, str]) -> None:
    text = json.dumps({"format": 1, "trusted": dict(sorted(trusted.items()))}, indent=2)
    atomic_write_bytes(store_path(), (text + "\n").encode("utf-8"), mode=0o600)


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
