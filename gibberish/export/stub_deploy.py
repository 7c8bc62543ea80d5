"""Deploying a stub into agents' skills folders (skillc RFC-0001, C-DEPLOYMENT).

The stub is built once into a single source of truth, the *runtime* folder
(``~/.skillc/runtime/<name>/``, or ``<project>/.skillc/runtime/<name>/`` for a project),
and each agent's skills folder gets a symlink to it (the default) or a copy
(``--copy``). Each deployment is reported with its method.

What is already at an agent's ``<name>`` is never replaced unless it is demonstrably a
stub deployment: a link pointing at this runtime folder (up to date), or, for a copy, a
folder holding only a stub of the same skill (``SKILL.md`` and ``.skillc/manifest.json``
naming it, and a ``SKILL.md`` whose digest the manifest records). A folder, a file or a
link of anyone else is left alone and reported. The stub's name is one
:class:`~gibberish.pathsafety.PathComponent`, and nothing is written through a link
that leads out of the agent's folder (:mod:`gibberish.pathsafety`).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from gibberish.export.agents import AgentTarget
from gibberish.export.stub import MANIFEST_DIR, MANIFEST_FILE, SKILL_FILE, stub_is_ours
from gibberish.fileio import atomic_write_bytes
from gibberish.pathsafety import (
    OutsideTargetError,
    PathComponent,
    UnsafeNameError,
    WouldReplaceError,
    replace_allowed,
    resolve_inside,
)
from gibberish.skills.fields import is_valid_skill_name

RUNTIME = Path(".skillc") / "runtime"


class Deployment(Struct, frozen=True):
    """One agent folder: what was done (``link``, ``copy``, ``up to date``, ``left alone``)."""

    targets: tuple[str, ...]
    path: Path
    method: str
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.method != "left alone"


def runtime_dir(*, home: Path, project: Path | None, global_: bool) -> Path:
    """Where stubs are built: the project's runtime folder, or the user's (``--global``)."""
    base = home if project is None or global_ else project
    return base / RUNTIME


def deploy(
    built: Path,
    targets: Sequence[AgentTarget],
    *,
    home: Path,
    project: Path | None,
    copy: bool,
) -> list[Deployment]:
    """Link (or copy) the stub folder ``built`` into every target's skills folder."""
    folders: dict[Path, list[str]] = {}
    results: list[Deployment] = []
    for target in targets:
        folder = target.skills_dir(home, project)
        if folder is None:
            level = "project" if project is not None else "user"
            results.append(
                Deployment((target.name,), Path("-"), "left alone", f"no {level}-level folder")
            )
            continue
        folders.setdefault(folder, []).append(target.name)
    everyone = tuple(t.name for t in targets)
    try:
        name = PathComponent(built.name, "stub name")  # never "..", "/abs" or "a/b"
    except UnsafeNameError as exc:
        return [Deployment(everyone, built, "left alone", str(exc))]
    if not is_valid_skill_name(name):  # and an Agent Skills name, as agents expect
        return [Deployment(everyone, built, "left alone", "not a skill name")]
    for folder, names in folders.items():
        path = folder / name
        try:
            outcome = _deploy_one(built, path, copy=copy)
        except (OutsideTargetError, WouldReplaceError) as exc:
            outcome = ("left alone", str(exc))
        results.append(Deployment(tuple(names), path, *outcome))
    return results


def _deploy_one(built: Path, path: Path, *, copy: bool) -> tuple[str, str]:
    if path.is_symlink():
        if os.readlink(path) != str(built):
            return "left alone", "a link that does not point at this stub's runtime folder"
        if not copy:
            return "up to date", ""
        path.unlink()  # ours: the link becomes a copy
    elif path.exists() and not (copy and _is_stub_of(path, built.name)):
        return "left alone", "a folder is there that is not a stub of this skill"
    reason = ""
    if not copy:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            path.symlink_to(built, target_is_directory=True)
            return "link", ""
        except OSError as exc:  # the RFC's fallback: a copy, with a warning
            reason = f"no link possible here ({exc.strerror}); copied instead"
    path.mkdir(parents=True, exist_ok=True)
    ours = _is_stub_of(path, built.name)
    for parts in ((SKILL_FILE,), (MANIFEST_DIR, MANIFEST_FILE)):
        target = resolve_inside(path, *parts)  # a link planted inside is never followed
        replace_allowed(target, ours=ours, force=False, what="file")
        atomic_write_bytes(target, Path(built, *parts).read_bytes(), mode=0o644)
    return "copy", reason


def _is_stub_of(folder: Path, name: str) -> bool:
    """A folder holding nothing but a stub of ``name`` that gibberish wrote (its SKILL.md
    has the digest its manifest records), so replacing it loses nothing."""
    meta = folder / MANIFEST_DIR
    if folder.is_symlink() or meta.is_symlink():
        return False
    try:
        entries = {p.name for p in folder.iterdir()}
        manifest = json.loads((meta / MANIFEST_FILE).read_text("utf-8"))
        inner = {p.name for p in meta.iterdir()}
    except (OSError, ValueError):
        return False
    return (
        entries <= {SKILL_FILE, MANIFEST_DIR}
        and inner <= {MANIFEST_FILE}
        and isinstance(manifest, dict)
        and manifest.get("skill") == name
        and stub_is_ours(folder, manifest)
    )
