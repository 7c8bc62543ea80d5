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

import contextlib
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import tomli_w
from msgspec import Struct

from gibberish import paths
from gibberish.fileio import atomic_write_bytes
from gibberish.install.discover import Found, InstallError
from gibberish.install.sources import Source, SourceError, parse_source
from gibberish.install.state import InstallState
from gibberish.install.transaction import Installer, Plan
from gibberish.pathsafety import is_path_component
from gibberish.skills.disabled import disabled_names, write_disabled
from gibberish.skills.projectdir import MANIFEST
from gibberish.trust.fingerprint import fingerprint

LOCK = "gibberish.lock"
USER_LOCK = "skills.lock"
LOCK_FORMAT = 1
_LOCK_HEADER = b"# Written by `gibberish install`; commit it. Do not edit by hand.\n"


def _read_toml(path: Path) -> dict[str, Any]:
    import tomllib  # an install into the person's own folder reads no TOML

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
    project: Path, entries: dict[str, dict[str, str]], removed: Sequence[str] = ()
) -> None:
    data = _read_toml(project / MANIFEST)
    skills = data.setdefault("skills", {})
    for name, entry in entries.items():
        skills[name] = entry["source"] if not entry["path"] else dict(entry)
    for name in removed:
        skills.pop(name, None)
    atomic_write_bytes(project / MANIFEST, tomli_w.dumps(data).encode("utf-8"), mode=0o644)


def user_lock_path() -> Path:
    """The lock of the person's own installed skills: kept with their settings, so copying
    the config folder to a new machine and running ``gibberish install`` restores them."""
    return paths.config_dir() / USER_LOCK


def read_lock(project: Path, path: Path | None = None) -> dict[str, dict[str, Any]]:
    """The lock's skills: ``project``'s gibberish.lock, or the lock file ``path``."""
    lock_file = path or project / LOCK
    data = _read_toml(lock_file)
    if data and data.get("format") != LOCK_FORMAT:
        raise InstallError(
            f"{lock_file}: written by another version of gibberish (format {data.get('format')})."
        )
    skills = data.get("skills", {})
    if not isinstance(skills, dict):
        return {}
    for name, entry in skills.items():
        if not is_path_component(name) or not isinstance(entry, dict):
            raise InstallError(
                f"{lock_file}: the entry {name!r} is not a plain skill name with a table; "
                "the lock was not written by gibberish — fix or remove it."
            )
    return skills


def write_lock(
    project: Path,
    state: InstallState,
    skills_dir: Path,
    *,
    synced: dict[str, list[dict[str, str]]] | None = None,
    path: Path | None = None,
) -> None:
    """Pin every installed skill (sorted, so the file diffs cleanly) in ``project``'s
    gibberish.lock, or in ``path`` (the user's lock). A source inside ``project`` is
    written relative to it (``./vendor/pdf``), so the lock works wherever the project
    is cloned. ``synced``: the agents each skill was copied or linked to (None keeps
    what the lock said)."""
    lock_file = path or project / LOCK
    if synced is None:
        with contextlib.suppress(InstallError):
            old = read_lock(project, path)
            synced = {n: e["synced"] for n, e in old.items() if isinstance(e.get("synced"), list)}
    skills = {}
    off = disabled_names(skills_dir)
    for name in sorted(state.skills):
        entry = state.skills[name]
        skills[name] = {
            "source": _portable(project, entry.get("source", "")),
            "path": entry.get("path", ""),
            "pinned": _portable(project, entry.get("pinned", "")),
            "resolved": entry.get("resolved", ""),
            "fingerprint": fingerprint(skills_dir / name).digest,
            "installed_at": entry.get("installed_at", ""),
            "installed_by": entry.get("installed_by", "user"),
            "dependencies": list(entry.get("dependencies", [])),
        }
        if name in off:
            skills[name]["enabled"] = False
        if synced and synced.get(name):
            skills[name]["synced"] = synced[name]
    body = tomli_w.dumps({"format": LOCK_FORMAT, "skills": skills}).encode("utf-8")
    atomic_write_bytes(lock_file, _LOCK_HEADER + body, mode=0o644)


def _portable(project: Path, text: str) -> str:
    """``text`` relative to ``project`` when it is a folder or archive inside it."""
    try:
        source = parse_source(text, base=project)
    except SourceError:
        return text
    if source.kind not in ("folder", "archive"):
        return text
    real, root = os.path.realpath(source.location), os.path.realpath(project)
    if real == root:
        return "."
    if real.startswith(root + os.sep):
        return "./" + os.path.relpath(real, root).replace(os.sep, "/")
    return text


class Wanted(Struct, frozen=True):
    """One source a project's lock or manifest would fetch, as the person must see it."""

    name: str
    source: str
    resolved: str = ""
    outside: str | None = None
    """The path on this computer outside the project it would copy from, if any."""


def outside_of(project: Path, text: str) -> str | None:
    """The local path ``text`` reads that is outside ``project`` (None: remote or inside).

    A cloned project's lock naming ``/home/me/private-skills`` would copy the person's
    own skills into the repository, so such a source is never fetched unasked.
    """
    try:
        source = parse_source(text, base=project)
    except SourceError:
        return None
    if source.kind in ("folder", "archive"):
        path = source.location
    elif source.location.startswith("file://"):
        path = source.location[len("file://") :]
    else:
        return None
    real, root = os.path.realpath(path), os.path.realpath(project)
    return None if real == root or real.startswith(root + os.sep) else real


def pending(installer: Installer, project: Path, lock_path: Path | None = None) -> list[Wanted]:
    """What ``gibberish install`` in ``project`` would fetch: locked skills missing or
    different on disk, then manifest entries the lock does not pin (with ``lock_path``,
    the user's lock: that lock only)."""
    lock = read_lock(project, lock_path)
    out = []
    for name in _dependency_order(lock):
        entry = lock[name]
        folder = installer.target.skills_dir / name
        if folder.is_dir() and fingerprint(folder).digest == entry.get("fingerprint"):
            continue
        text = entry.get("pinned") or entry.get("source", "")
        out.append(Wanted(name, text, entry.get("resolved", ""), outside_of(project, text)))
    for name, entry in read_manifest(project).items() if lock_path is None else ():
        if name not in lock and name not in installer.state.skills:
            out.append(Wanted(name, entry["source"], "", outside_of(project, entry["source"])))
    return out


def install_locked(
    installer: Installer,
    project: Path,
    *,
    say: Callable[[str], None],
    allow_outside: bool = False,
    confirm: Callable[[list[Plan]], bool] | None = None,
    lock_path: Path | None = None,
) -> list[str]:
    """Install every skill the lock pins that is missing or differs; return their names.

    A source outside the project is refused unless ``allow_outside`` (the person agreed).
    Everything is fetched and checked first; ``confirm`` then sees every staged plan
    (its skills' tools and commands) and nothing is installed unless it says yes.
    """
    lock = read_lock(project, lock_path)
    installer.available |= set(lock)  # dependencies come from the lock, never fetched anew
    lock_file = lock_path or project / LOCK
    with contextlib.ExitStack() as stack:
        staged: list[tuple[str, dict[str, Any], Plan]] = []
        for name in _dependency_order(lock):
            entry = lock[name]
            folder = installer.target.skills_dir / name
            if folder.is_dir() and fingerprint(folder).digest == entry.get("fingerprint"):
                continue
            source = _locked_source(project, name, entry, allow_outside, lock_file)
            plan = stack.enter_context(
                installer.stage(source, choose=_only(name, entry.get("path", "")))
            )
            _check_pin(plan.skills[0].found, plan.skills[0].staged.resolved, entry, lock_file)
            staged.append((name, entry, plan))
        if staged and confirm is not None and not confirm([plan for _, _, plan in staged]):
            return []
        for name, entry, plan in staged:
            installer.commit(
                plan,
                replace=[name],
                installed_at=entry.get("installed_at"),
                installed_by=entry.get("installed_by"),
                source_text=entry.get("source"),
            )
            say(f"installed {name} at {entry.get('resolved', '')[:19] or 'the locked content'}")
        _restore_switches(installer, lock)
    return [name for name, _, _ in staged]


def _restore_switches(installer: Installer, lock: dict[str, dict[str, Any]]) -> None:
    """Skills the lock records as turned off are turned off here too."""
    folder = installer.target.skills_dir
    off = {n for n, e in lock.items() if e.get("enabled") is False and (folder / n).is_dir()}
    if off - disabled_names(folder):
        write_disabled(folder, disabled_names(folder) | off)


def _locked_source(
    project: Path, name: str, entry: dict[str, Any], allow_outside: bool, lock_file: Path
) -> Source:
    text = entry.get("pinned") or entry["source"]
    outside = outside_of(project, text)
    if outside and not allow_outside:
        raise InstallError(
            f"{lock_file}: {name} would be copied from {outside}, outside the project; "
            "refused (a project must not take your own files). Agree with --allow-outside."
        )
    return parse_source(text, base=project)


def _only(name: str, path: str) -> Callable[[list[Found]], list[str]]:
    def choose(found: list[Found]) -> list[str]:
        match = [f.name for f in found if f.name == name or (path and f.path == path)]
        if not match:
            raise InstallError(f"{LOCK}: the locked source no longer holds “{name}”.")
        return match[:1]

    return choose


def _check_pin(found: Found, resolved: str, entry: dict[str, Any], lock_file: Path) -> None:
    pinned = entry.get("resolved", "")
    if pinned and resolved and pinned != resolved:
        raise InstallError(
            f"{lock_file}: {found.name} is pinned to {pinned}, but the source now gives "
            f"{resolved}; run `gibberish update {found.name}` to move the pin."
        )
    digest = fingerprint(found.folder).digest
    if entry.get("fingerprint") and digest != entry["fingerprint"]:
        raise InstallError(
            f"{lock_file}: {found.name} fetched with different content than was locked "
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
