"""Updating installed skills: fetch the recorded source again, show what changed.

A changed skill needs approval again without anything done here: its fingerprint
changes, so the trust table treats it as changed since approved.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from gibberish.install.discover import Found, InstallError
from gibberish.install.fetch import FetchError, fetch
from gibberish.install.sources import SourceError, parse_source
from gibberish.install.transaction import Installer, Plan
from gibberish.skills.fields import SKILL_FILE_NAME
from gibberish.skills.parser import parse_skill_file
from gibberish.trust.fingerprint import fingerprint, what_changed


@dataclass
class UpdatePlan:
    name: str
    plan: Plan
    old_resolved: str
    new_resolved: str
    files: list[str] = field(default_factory=list)  # "+ added", "- removed", "~ modified"
    commands: list[str] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        return bool(self.files) or len(self.plan.skills) > 1


@contextlib.contextmanager
def stage_update(installer: Installer, name: str) -> Iterator[UpdatePlan]:
    entry = installer.state.skills.get(name)
    if entry is None:
        raise InstallError(
            f"“{name}” was not installed by gibberish, so there is nothing to update."
        )
    path = entry.get("path", "")

    def choose(found: list[Found]) -> list[str]:
        match = [f.name for f in found if f.name == name] or [
            f.name for f in found if f.path == path
        ]
        if not match:
            raise InstallError(f"{entry['source']} no longer holds a skill named “{name}”.")
        return match[:1]

    with installer.stage(entry["source"], choose=choose) as plan:
        top = next(p for p in plan.skills if p.required_by == "user")
        old = installer.target.skills_dir / name
        update = UpdatePlan(name, plan, entry.get("resolved", ""), top.staged.resolved)
        update.files = _file_changes(old, top.found.folder)
        update.commands = _command_changes(old, top.found)
        yield update


def _file_changes(old: Path, new: Path) -> list[str]:
    try:
        before = fingerprint(old).files
    except OSError:
        before = {}
    return what_changed(before, fingerprint(new).files).lines()


def _command_changes(old: Path, new: Found) -> list[str]:
    try:
        previous = parse_skill_file(old / SKILL_FILE_NAME)
    except OSError:
        return []
    before = {t.name: t.command.source if t.command else "" for t in previous.tools}
    after = {t.name: t.command.source if t.command else "" for t in new.skill.tools}
    out = []
    for tool in sorted(set(before) | set(after)):
        if tool not in before:
            out.append(f"+ {tool}: {after[tool]}")
        elif tool not in after:
            out.append(f"- {tool}: {before[tool]}")
        elif before[tool] != after[tool]:
            out.append(f"~ {tool}: {before[tool]}  →  {after[tool]}")
    return out


def update_available(installer: Installer, name: str) -> bool | None:
    """True/False after fetching the source again; None when it cannot be reached."""
    entry = installer.state.skills.get(name, {})
    try:
        with fetch(parse_source(entry.get("source", "")), limits=installer.limits) as staged:
            return staged.resolved != entry.get("resolved")
    except (FetchError, SourceError):
        return None
