"""Updating installed skills: fetch the recorded source again, compare contents, apply.

"Changed" is decided in one place, :func:`stage_update`, for both ``installed --check``
and ``update``: the content digest (:func:`gibberish.trust.fingerprint.fingerprint`) of
the skill as installed against the digest of the same skill in the fresh fetch. For a
git source that is the digest of that skill's own subtree at the new commit, so a
commit touching one skill of a repository is an update of that skill only; the others
are re-pinned to the new commit without asking (their files are the same).

A changed skill needs approval again without anything done here: its fingerprint
changes, so the trust table treats it as changed since approved.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct, field

from gibberish.fileio import atomic_write_bytes
from gibberish.install.discover import Found, InstallError
from gibberish.install.fetch import FetchError
from gibberish.install.record import read_record
from gibberish.install.sources import SourceError
from gibberish.install.transaction import Installer, Plan
from gibberish.skills.fields import SKILL_FILE_NAME
from gibberish.skills.parser import parse_skill_file
from gibberish.trust.fingerprint import PROVENANCE_FILE, combine, fingerprint, what_changed


class UpdatePlan(Struct):
    name: str
    plan: Plan
    old_resolved: str
    new_resolved: str
    old_digest: str = ""
    new_digest: str = ""
    files: list[str] = field(default_factory=list)  # "+ added", "- removed", "~ modified"
    commands: list[str] = field(default_factory=list)

    needs_more: bool = False
    """The new version needs a skill that is not installed yet."""

    @property
    def changed(self) -> bool:
        """The skill's files differ, or the new version needs a skill not installed yet."""
        return self.old_digest != self.new_digest or self.needs_more

    @property
    def repin(self) -> bool:
        """Same files from a newer commit: only the pin moves."""
        return (
            not self.changed and bool(self.new_resolved) and self.new_resolved != self.old_resolved
        )

    def to_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "changed": self.changed,
            "from": self.old_resolved,
            "to": self.new_resolved,
            "files": list(self.files),
            "commands": list(self.commands),
        }


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
        before, after = _files(old), fingerprint(top.found.folder)
        update.old_digest = _digest_of(before)
        update.new_digest = after.digest
        update.files = what_changed(before, after.files).lines()
        update.commands = _command_changes(old, top.found)
        update.needs_more = len(plan.skills) > 1
        yield update


def _files(folder: Path) -> dict[str, str]:
    try:
        return dict(fingerprint(folder).files)
    except OSError:
        return {}


def _digest_of(files: dict[str, str]) -> str:
    return combine(files) if files else ""


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


def repin(installer: Installer, update: UpdatePlan) -> None:
    """Move an unchanged skill's pin to the new commit: the state and its provenance file
    (outside the fingerprint, so no approval is lost)."""
    top = next(p for p in update.plan.skills if p.required_by == "user")
    pinned = top.staged.source.pinned(update.new_resolved)
    with installer.exclusive():
        entry = installer.state.skills.get(update.name)
        if entry is None:
            return
        entry["resolved"], entry["pinned"] = update.new_resolved, pinned
        folder = installer.target.skills_dir / update.name
        record = read_record(folder)
        if record is not None:
            record["resolved"], record["pinned"] = update.new_resolved, pinned
            text = json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
            atomic_write_bytes(folder / PROVENANCE_FILE, text.encode("utf-8"), mode=0o644)
        installer.state.save()


def check_update(installer: Installer, name: str) -> UpdatePlan | None:
    """What ``update`` would find for ``name`` (reads only); None when the source cannot
    be reached or no longer holds the skill."""
    try:
        with stage_update(installer, name) as update:
            update.plan = Plan()  # the staged files are gone after the block
            return update
    except (FetchError, SourceError, InstallError, OSError):
        return None


def update_available(installer: Installer, name: str) -> bool | None:
    """True/False after fetching the source again; None when it cannot be reached."""
    update = check_update(installer, name)
    return None if update is None else update.changed
