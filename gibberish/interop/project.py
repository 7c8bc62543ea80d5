"""A project's skills: ``gibberish.toml`` (what it wants) and ``gibberish.lock`` (exactly what).

``gibberish.toml`` lists sources, as a person would write them::

    [skills]
    pdf = "file:///srv/skills.git#main:skills/pdf"
    csv = { source = "https://example.org/tools.tar.gz", path = "csv" }

``gibberish.lock`` pins each installed skill (dependencies included) to what was
fetched: the commit or the archive's SHA-256, and the fingerprint of the folder. Installing
from the lock fetches those commits/hashes again and refuses anything whose fingerprint
differs, so the same lock gives byte-identical skill folders (provenance files included:
their time stamps come from the lock).
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import tomli_w

from gibberish.fileio import atomic_write_bytes
from gibberish.interop.discover import Found, InstallError
from gibberish.interop.install import Installer
from gibberish.interop.projectdir import MANIFEST
from gibberish.interop.sources import parse_source
from gibberish.interop.state import InstallState
from gibberish.pathsafety import is_path_component
from gibberish.trust.fingerprint import fingerprint

LOCK = "gibberish.lock"
LOCK_FORMAT = 1
_LOCK_HEADER = b"# Written by `gibberish install`; commit it. Do not edit by hand.\n"


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InstallError(f"{path}: cannot be read as TOML ({exc}); fix or remove it.") from exc


def read_manifest(project: Path) -> dict[str, dict[str, str]]:
    """name → {source, path} from gibberish.toml."""
    raw = _read_toml(project / MANIFEST).get("skills", {})
    if not isinstance(raw, dict):
        raise InstallError(f"{project / MANIFEST}: [skills] must be a table of name = source.")
    out = {}
    for name, value in raw.items():
        if isinstance(value, str):
            out[name] = {"source": value, "path": ""}
        elif isinstance(value, dict) and isinstance(value.get("source"), str):
            out[name] = {"source": value["source"], "path": str(value.get("path", ""))}
        else:
            raise InstallError(f"{project / MANIFEST}: skills.{name} must be a source string.")
    return out


def record_in_manifest(
    project: Path, entries: dict[str, dict[str, str]], removed: list[str] = ()
) -> None:
    data = _read_toml(project / MANIFEST)
    skills = data.setdefault("skills", {})
    for name, entry in entries.items():
        skills[name] = entry["source"] if not entry["path"] else dict(entry)
    for name in removed:
        skills.pop(name, None)
    atomic_write_bytes(project / MANIFEST, tomli_w.dumps(data).encode("utf-8"), mode=0o644)


def read_lock(project: Path) -> dict[str, dict[str, Any]]:
    data = _read_toml(project / LOCK)
    if data and data.get("format") != LOCK_FORMAT:
        raise InstallError(
            f"{project / LOCK}: written by another version of gibberish (format {data.get('format')})."
        )
    skills = data.get("skills", {})
    if not isinstance(skills, dict):
        return {}
    for name, entry in skills.items():
        if not is_path_component(name) or not isinstance(entry, dict):
            raise InstallError(
                f"{project / LOCK}: the entry {name!r} is not a plain skill name with a table; "
                "the lock was not written by gibberish — fix or remove it."
            )
    return skills


def write_lock(project: Path, state: InstallState, skills_dir: Path) -> None:
    """Pin every installed skill of the project (sorted, so the file diffs cleanly)."""
    skills = {}
    for name in sorted(state.skills):
        entry = state.skills[name]
        skills[name] = {
            "source": entry.get("source", ""),
            "path": entry.get("path", ""),
            "pinned": entry.get("pinned", ""),
            "resolved": entry.get("resolved", ""),
            "fingerprint": fingerprint(skills_dir / name).digest,
            "installed_at": entry.get("installed_at", ""),
            "installed_by": entry.get("installed_by", "user"),
            "dependencies": list(entry.get("dependencies", [])),
        }
    body = tomli_w.dumps({"format": LOCK_FORMAT, "skills": skills}).encode("utf-8")
    atomic_write_bytes(project / LOCK, _LOCK_HEADER + body, mode=0o644)


def install_locked(installer: Installer, project: Path, *, say: Callable[[str], None]) -> list[str]:
    """Install every skill the lock pins that is missing or differs; return their names."""
    lock = read_lock(project)
    installer.available |= set(lock)  # dependencies come from the lock, never fetched anew
    done = []
    for name in _dependency_order(lock):
        entry = lock[name]
        folder = installer.target.skills_dir / name
        if folder.is_dir() and fingerprint(folder).digest == entry.get("fingerprint"):
            continue
        source = parse_source(entry.get("pinned") or entry["source"], base=project)
        with installer.stage(source, choose=_only(name, entry.get("path", ""))) as plan:
            _check_pin(plan.skills[0].found, plan.skills[0].staged.resolved, entry, project)
            installer.commit(
                plan,
                replace=[name],
                installed_at=entry.get("installed_at"),
                installed_by=entry.get("installed_by"),
                source_text=entry.get("source"),
            )
        say(f"installed {name} at {entry.get('resolved', '')[:19] or 'the locked content'}")
        done.append(name)
    return done


def _only(name: str, path: str) -> Callable[[list[Found]], list[str]]:
    def choose(found: list[Found]) -> list[str]:
        match = [f.name for f in found if f.name == name or (path and f.path == path)]
        if not match:
            raise InstallError(f"{LOCK}: the locked source no longer holds “{name}”.")
        return match[:1]

    return choose


def _check_pin(found: Found, resolved: str, entry: dict[str, Any], project: Path) -> None:
    pinned = entry.get("resolved", "")
    if pinned and resolved and pinned != resolved:
        raise InstallError(
            f"{project / LOCK}: {found.name} is pinned to {pinned}, but the source now gives "
            f"{resolved}; run `gibberish update {found.name} --project {project}` to move the pin."
        )
    digest = fingerprint(found.folder).digest
    if entry.get("fingerprint") and digest != entry["fingerprint"]:
        raise InstallError(
            f"{project / LOCK}: {found.name} fetched with different content than was locked "
            f"(fingerprint {digest[:12]}, locked {entry['fingerprint'][:12]}); refused."
        )


def _dependency_order(lock: dict[str, dict[str, Any]]) -> list[str]:
    order: list[str] = []
    visiting: set[str] = set()

    def visit(name: str) -> None:
        if name in order or name in visiting or name not in lock:
            return
        visiting.add(name)
        for dep in lock[name].get("dependencies", []):
            visit(dep)
        order.append(name)

    for name in sorted(lock):
        visit(name)
    return order
