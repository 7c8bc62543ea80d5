"""Turning a skill off and on, as ``gibberish disable/enable`` and the tray both do it.

One rule for every front end: the list of skills turned off changes
(:func:`gibberish.install.enabled.set_enabled`), the lock is written again when the skill
is an installed one (so a restore brings it back turned off), and turning a skill off
takes out the copies sync made of it in the agents' folders (never an edited one). It
lives here, above ``install``, because the lock records where each skill was synced.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gibberish.export import agents
from gibberish.export.ownership import OwnershipRecord
from gibberish.install.enabled import set_enabled
from gibberish.install.project import user_lock_path, write_lock
from gibberish.install.transaction import Installer

if TYPE_CHECKING:
    from gibberish.export.sync_all import SyncPlan


def synced_to(names: Sequence[str], project: Path | None) -> dict[str, list[dict[str, str]]]:
    """For each of ``names``: the agents holding a copy or link gibberish made of it."""
    out: dict[str, list[dict[str, str]]] = {}
    seen: set[Path] = set()
    home = Path(os.path.expanduser("~"))
    for target in agents.TARGETS:
        folder = target.skills_dir(home, project)
        if folder is None or folder in seen:
            continue
        seen.add(folder)
        record = OwnershipRecord.load("skills", folder)
        for name in names:
            if name in record.links:
                out.setdefault(name, []).append({"target": target.name, "how": "link"})
            elif name in record.dirs:
                out.setdefault(name, []).append({"target": target.name, "how": "copy"})
    return out


def save_lock(installer: Installer) -> None:
    """Write the target's lock: the project's gibberish.lock, or the person's skills.lock."""
    target = installer.target
    synced = synced_to(sorted(installer.state.skills), target.project)
    if target.project is not None:
        write_lock(target.project, installer.state, target.skills_dir, synced=synced)
    else:
        lock = user_lock_path()
        write_lock(lock.parent, installer.state, target.skills_dir, synced=synced, path=lock)


def turn(installer: Installer, name: str, on: bool) -> bool:
    """Turn ``name`` on or off and write the lock; False when it already was.

    Raises ``InstallError`` (a sentence for the person) when there is no such skill here.
    """
    changed = set_enabled(installer, name, on)
    if name in installer.state.skills:
        save_lock(installer)
    return changed


def unsync_plan(name: str, project: Path | None) -> SyncPlan:
    """The removal of the copies of ``name`` that sync made (nothing written yet)."""
    from gibberish.export.unsync import plan_unsync  # not needed by an install's lock

    return plan_unsync([name], home=Path(os.path.expanduser("~")), project=project)


def turn_off(installer: Installer, name: str) -> tuple[bool, SyncPlan, list[str]]:
    """Turn ``name`` off and remove the synced copies of it: whether it changed, what
    was removed, and the removals that failed."""
    from gibberish.export.sync_all import apply_sync

    changed = turn(installer, name, False)
    plan = unsync_plan(name, installer.target.project)
    return changed, plan, apply_sync(plan)
