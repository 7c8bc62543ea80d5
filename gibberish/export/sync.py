"""``gibberish sync``: copy skills into other agents' skills folders, safely.

A sync is planned first and applied second, so ``--dry-run`` shows exactly what a real
run would do. For every destination folder (targets sharing one folder, like ``codex``
and ``agents``, share one plan) the plan compares three things per file: what the skill
holds now, what is on disk, and what the ownership record says gibberish wrote.

* not on disk → ``create``; on disk, ours and unedited, different now → ``update``;
* on disk but edited since gibberish wrote it → ``skip-edited`` (left alone);
* a skill folder that exists but was not made by gibberish → ``skip-foreign``;
* ours, unedited, and no longer wanted → ``remove``; folders gibberish created are
  removed only once empty, and no other folder is ever removed.

Before anything is written a skill is checked against the Agent Skills rules (the
``agentskills`` profile of the parser): one that another agent would reject is skipped
with the first reason. The copy is byte for byte, gibberish-only frontmatter included
(other agents ignore fields they do not know).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Collection, Iterable, Sequence
from enum import StrEnum
from functools import partial
from pathlib import Path

from msgspec import Struct, field

from gibberish.export.agents import AgentTarget
from gibberish.export.ownership import OwnershipRecord, sha256_bytes
from gibberish.fileio import atomic_write_bytes
from gibberish.pathsafety import PathComponent, UnsafeNameError, ensure_inside
from gibberish.skills import fields as F
from gibberish.skills.model import Profile, SkillDefinition
from gibberish.skills.parser import is_inside, parse_skill_file

SKIPPED_DIRS = frozenset({".git", "__pycache__", ".hg", ".svn"})
MAX_FILE_BYTES = 16 * 1024 * 1024


class Action(StrEnum):
    CREATE = "create"
    UPDATE = "update"
    REMOVE = "remove"
    LINK = "link"
    SKIP_EDITED = "skip-edited"
    SKIP_FOREIGN = "skip-foreign"
    SKIP_INVALID = "skip-invalid"
    SKIP_LINK = "skip-link"
    """A link in the skill that is not copied (to a folder, to nothing, a loop, outside)."""
    SKIP_UNAPPROVED = "skip-unapproved"
    """An MCP server entry the person has not agreed to (gibberish/export/mcp_config.py)."""

    @property
    def writes(self) -> bool:
        return self in (Action.CREATE, Action.UPDATE, Action.REMOVE, Action.LINK)


class SyncStep(Struct, frozen=True):
    action: Action
    path: Path
    rel: str = ""
    """Path relative to the destination folder (the key in the ownership record)."""
    reason: str = ""
    data: bytes | None = None
    executable: bool = False
    link_to: Path | None = None
    seen: str | None = None
    """SHA-256 of the file when the plan was made (None: absent); a file that changed
    between planning and writing is left alone."""


class FolderPlan(Struct):
    """Everything one destination folder needs, and the targets that share it."""

    folder: Path
    targets: tuple[str, ...]
    steps: list[SyncStep]
    record: OwnershipRecord
    notes: list[str] = field(default_factory=list)

    @property
    def changes(self) -> list[SyncStep]:
        return [s for s in self.steps if s.action.writes]


class SourceFile(Struct, frozen=True):
    data: bytes
    executable: bool


_UNSAFE_FOLDER = frozenset({F.E_PATH_ESCAPE, F.E_SKILL_TREE_LARGE, F.E_INTERNAL})


def exportable(skill: SkillDefinition) -> bool:
    """Whether a skill may be offered for export at all: gibberish-only problems (no
    tools, say) do not matter to other agents, but a folder that could not be checked
    completely, or one with a link leading outside it, is never copied."""
    return not any(d.code in _UNSAFE_FOLDER for d in skill.errors)


def agentskills_problem(skill: SkillDefinition) -> str | None:
    """Why another agent would reject this skill, or None when it passes the rules."""
    checked = parse_skill_file(
        skill.source_path,
        profile=Profile.AGENTSKILLS,
        trust=skill.trust,
        expected_name=skill.directory.name,
    )
    if checked.ok:
        return None
    first = checked.errors[0]
    return f"{first.code}: {first.message} ({first.location()})"


class UnreadableSkill(OSError):
    """A skill whose files cannot all be read: it is skipped, with this reason."""


def _raise_unreadable(error: OSError) -> None:
    raise UnreadableSkill(f"{error.filename}: cannot be read ({error.strerror})")


def skill_files(skill_dir: Path) -> dict[str, SourceFile]:
    """Every regular file of a skill, relative path → content (VCS and caches left out).

    Links that lead nowhere (dangling, a loop) and FIFOs, devices and sockets are no
    files and are left out; a file or folder that cannot be read, or a file over
    ``MAX_FILE_BYTES``, raises :class:`UnreadableSkill`, so the skill is skipped whole
    rather than half copied."""
    out: dict[str, SourceFile] = {}
    root = str(skill_dir)
    for dirpath, dirnames, filenames in os.walk(root, onerror=_raise_unreadable):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if not is_inside(os.path.realpath(full), os.path.realpath(root)):
                continue
            try:
                st = os.stat(full)
            except OSError:  # a dangling link or a loop: nothing to copy
                continue
            if not stat.S_ISREG(st.st_mode):
                continue
            if st.st_size > MAX_FILE_BYTES:  # never a copy that silently lacks a file
                raise UnreadableSkill(
                    f"{full}: {st.st_size:,} bytes, more than the {MAX_FILE_BYTES // 2**20} MiB "
                    "a synced file may have; move it out of the skill"
                )
            try:
                with open(full, "rb") as handle:
                    data = handle.read()
            except OSError as exc:
                raise UnreadableSkill(f"{full}: cannot be read ({exc.strerror})") from None
            rel = os.path.relpath(full, root).replace(os.sep, "/")
            out[rel] = SourceFile(data, bool(st.st_mode & stat.S_IXUSR))
    return out


def left_out_links(skill_dir: Path) -> list[tuple[str, str]]:
    """The links a copy of the skill leaves out, and why: a link to a file inside is
    copied as that file; a link to a folder, to nothing, in a loop or leading outside
    is not (an agent's copy must never reach outside the skill)."""
    out: list[tuple[str, str]] = []
    root = os.path.realpath(skill_dir)
    for dirpath, dirnames, filenames in os.walk(skill_dir):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for name in sorted(dirnames + filenames):
            full = os.path.join(dirpath, name)
            if not os.path.islink(full):
                continue
            rel = os.path.relpath(full, skill_dir).replace(os.sep, "/")
            target = os.path.realpath(full)
            if not is_inside(target, root):
                out.append((rel, "a link leading outside the skill; not copied"))
            elif not os.path.exists(full):
                out.append((rel, "a link to nothing (or in a loop); not copied"))
            elif os.path.isdir(full):
                out.append((rel, "a link to a folder; not copied (copy the folder instead)"))
    return out


def _file_sha(path: Path) -> str | None:
    try:
        if path.is_symlink() or not path.is_file():
            return None
        return sha256_bytes(path.read_bytes())
    except OSError:
        return None


def _plan_copy(
    folder: Path, name: str, files: dict[str, SourceFile], record: OwnershipRecord
) -> list[SyncStep]:
    steps: list[SyncStep] = []
    skill_dir = folder / name
    if skill_dir.is_symlink() and name in record.links:
        steps.append(SyncStep(Action.REMOVE, skill_dir, name, "replace the link with a copy"))
    elif (skill_dir.exists() or skill_dir.is_symlink()) and name not in record.dirs:
        reason = "the folder exists and was not written by gibberish; left alone"
        return [SyncStep(Action.SKIP_FOREIGN, skill_dir, name, reason)]
    for rel_in_skill, source in files.items():
        step = _plan_file(folder, f"{name}/{rel_in_skill}", source, record, skill_dir.is_symlink())
        if step is not None:
            steps.append(step)
    return steps


def _plan_file(
    folder: Path, rel: str, source: SourceFile, record: OwnershipRecord, linked: bool
) -> SyncStep | None:
    """What to do with one file of a copied skill (``linked``: its folder is a link now)."""
    path = folder / rel
    wanted = sha256_bytes(source.data)
    on_disk = None if linked else _file_sha(path)
    owned = record.files.get(rel)
    writing = partial(SyncStep, data=source.data, executable=source.executable)
    if (on_disk is None and not (path.exists() or path.is_symlink())) or linked:
        return writing(Action.CREATE, path, rel)
    if on_disk == wanted:
        if owned != wanted:  # identical content: adopt it silently
            return writing(Action.UPDATE, path, rel, "already identical", seen=on_disk)
        return None
    if owned is not None and on_disk == owned:
        return writing(Action.UPDATE, path, rel, seen=on_disk)
    if owned is not None:
        return SyncStep(Action.SKIP_EDITED, path, rel, "edited since gibberish wrote it")
    return SyncStep(Action.SKIP_FOREIGN, path, rel, "not written by gibberish")


def _plan_link(folder: Path, name: str, source: Path, record: OwnershipRecord) -> list[SyncStep]:
    path = folder / name
    if path.is_symlink():
        current = os.readlink(path)
        if name not in record.links:
            return [SyncStep(Action.SKIP_FOREIGN, path, name, "a link gibberish did not make")]
        if current != record.links[name]:
            return [SyncStep(Action.SKIP_EDITED, path, name, f"link changed to {current}")]
        if current == str(source):
            return []
        return [SyncStep(Action.LINK, path, name, "points elsewhere now", link_to=source)]
    if path.exists():
        reason = "a copied folder is there; remove it (or sync without --link) to link"
        return [SyncStep(Action.SKIP_FOREIGN, path, name, reason)]
    return [SyncStep(Action.LINK, path, name, link_to=source)]


def _in_scope(rel: str, scope: Collection[str] | None) -> bool:
    """Whether ``rel`` (``skill/file``) belongs to a skill this sync is about."""
    return scope is None or rel.split("/", 1)[0] in scope


def _plan_removals(
    folder: Path, wanted: set[str], record: OwnershipRecord, scope: Collection[str] | None
) -> list[SyncStep]:
    """Owned files and links of skills no longer synced (or files a skill dropped); with a
    ``scope`` (``sync --skill A``) only those of the skills named, never another's copy."""
    steps: list[SyncStep] = []
    for rel, owned in sorted(record.files.items()):
        if rel in wanted or not _in_scope(rel, scope):
            continue
        path = folder / rel
        on_disk = _file_sha(path)
        if on_disk is None:
            continue
        if on_disk == owned:
            steps.append(SyncStep(Action.REMOVE, path, rel, "no longer in the skill", seen=owned))
        else:
            steps.append(SyncStep(Action.SKIP_EDITED, path, rel, "edited; kept although unused"))
    for name, target in sorted(record.links.items()):
        path = folder / name
        if name in wanted or not _in_scope(name, scope) or not path.is_symlink():
            continue
        if os.readlink(path) == target:
            steps.append(SyncStep(Action.REMOVE, path, name, "no longer synced"))
    return steps


def plan_folder(
    folder: Path,
    targets: Sequence[str],
    skills: Sequence[SkillDefinition],
    *,
    link: bool = False,
    scope: Collection[str] | None = None,
) -> FolderPlan:
    """What syncing ``skills`` into ``folder`` would do. Reads only; writes nothing.

    ``scope``: the names this sync is about (``--skill``, an uninstall); copies of other
    skills are left as they are. None: every skill, so copies of skills gone are removed."""
    record = OwnershipRecord.load("skills", folder)
    plan = FolderPlan(folder, tuple(targets), [], record)
    if record.problem:
        plan.notes.append(f"ownership record unreadable ({record.problem}); nothing is removed")
    wanted: set[str] = set()
    for skill in skills:
        steps, kept = _plan_skill(folder, skill, record, link)
        plan.steps.extend(steps)
        wanted.update(kept)
    if not record.problem:
        plan.steps[:0] = _plan_removals(folder, wanted, record, scope)
    return plan


def _plan_skill(
    folder: Path, skill: SkillDefinition, record: OwnershipRecord, link: bool
) -> tuple[list[SyncStep], set[str]]:
    """The steps for one skill, and the recorded paths its sync keeps (never removed)."""
    try:
        PathComponent(skill.name, "skill name")
    except UnsafeNameError as exc:
        return [SyncStep(Action.SKIP_INVALID, folder, "", f"{exc}")], set()
    owned = {r for r in record.files if r.startswith(skill.name + "/")}
    problem = agentskills_problem(skill)
    if problem:
        return [SyncStep(Action.SKIP_INVALID, folder / skill.name, skill.name, problem)], {
            *owned,
            skill.name,
        }
    if link:
        return _plan_link(folder, skill.name, skill.directory, record), {skill.name}
    try:
        files = skill_files(skill.directory)
    except UnreadableSkill as exc:  # this skill is reported; the others go on
        step = SyncStep(Action.SKIP_INVALID, folder / skill.name, skill.name, str(exc))
        return [step], {skill.name, *owned}
    steps = _plan_copy(folder, skill.name, files, record)
    if any(s.action is Action.SKIP_FOREIGN and s.rel == skill.name for s in steps):
        return steps, {skill.name, *owned}
    for rel, why in left_out_links(skill.directory):  # said out loud, never dropped silently
        steps.append(
            SyncStep(Action.SKIP_LINK, folder / skill.name / rel, f"{skill.name}/{rel}", why)
        )
    return steps, {skill.name, *(f"{skill.name}/{rel}" for rel in files)}


def _make_parents(folder: Path, rel: str, record: OwnershipRecord) -> None:
    parts = rel.split("/")[:-1]
    for i in range(1, len(parts) + 1):
        sub = "/".join(parts[:i])
        path = folder / sub
        if path.is_dir() and not path.is_symlink():
            continue
        path.mkdir(mode=0o755)
        record.dirs.add(sub)


def _remove_empty_dirs(folder: Path, record: OwnershipRecord) -> None:
    """Folders gibberish created, deepest first, once nothing is left in them."""
    for sub in sorted(record.dirs, key=lambda s: s.count("/"), reverse=True):
        path = folder / sub
        if not path.is_dir() or path.is_symlink():
            record.dirs.discard(sub)
            continue
        with contextlib.suppress(OSError):
            path.rmdir()  # fails, harmlessly, when someone put a file there
            record.dirs.discard(sub)


def _changed_since_planned(step: SyncStep) -> bool:
    """True when someone wrote the file between the plan and now (never overwrite that)."""
    if step.path.is_symlink():
        return False
    now = _file_sha(step.path)
    if step.action is Action.CREATE:
        return step.path.exists() and now != sha256_bytes(step.data or b"")
    if step.action is Action.UPDATE:
        return now != step.seen
    if step.action is Action.REMOVE:
        return now is not None and now != step.seen
    return False


def _apply_step(folder: Path, step: SyncStep, record: OwnershipRecord) -> None:
    ensure_inside(folder, step.path.parent)  # a link planted on the way is never followed
    if _changed_since_planned(step):
        raise OSError(f"{step.path} changed while syncing; left alone (sync again)")
    if step.action is Action.REMOVE:
        if step.path.is_symlink():
            step.path.unlink()
            record.links.pop(step.rel, None)
        else:
            step.path.unlink(missing_ok=True)
            record.files.pop(step.rel, None)
    elif step.action is Action.LINK:
        assert step.link_to is not None
        if step.path.is_symlink():
            step.path.unlink()
        folder.mkdir(parents=True, exist_ok=True)
        step.path.symlink_to(step.link_to, target_is_directory=True)
        record.links[step.rel] = str(step.link_to)
    elif step.action in (Action.CREATE, Action.UPDATE):
        assert step.data is not None
        folder.mkdir(parents=True, exist_ok=True)
        _make_parents(folder, step.rel, record)
        if not (step.path.exists() and _file_sha(step.path) == sha256_bytes(step.data)):
            atomic_write_bytes(step.path, step.data, mode=0o755 if step.executable else 0o644)
        record.files[step.rel] = sha256_bytes(step.data)


def apply_folder(plan: FolderPlan) -> list[str]:
    """Carry out a plan: removals first, then links and files; the record is saved last.
    Returns one message per step that could not be carried out (the rest still are)."""
    order = sorted(plan.changes, key=lambda s: s.action is not Action.REMOVE)
    problems: list[str] = []
    try:
        for step in order:
            try:
                _apply_step(plan.folder, step, plan.record)
            except OSError as exc:
                problems.append(str(exc))
        _remove_empty_dirs(plan.folder, plan.record)
    finally:
        plan.record.save()
    return problems


def folders_for(
    targets: Iterable[AgentTarget], home: Path, project: Path | None
) -> tuple[dict[Path, list[str]], list[str]]:
    """Destination folder → target names sharing it, and targets with no folder here."""
    folders: dict[Path, list[str]] = {}
    missing: list[str] = []
    for t in targets:
        folder = t.skills_dir(home, project)
        if folder is None:
            missing.append(t.name)
        else:
            folders.setdefault(folder, []).append(t.name)
    return folders, missing
