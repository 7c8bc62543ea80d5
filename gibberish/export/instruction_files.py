"""Opt-in sync formats for agents that read one instructions file, not skills folders.

Each is written only when named (``gibberish sync agents-md``) or listed in ``[sync]
targets``; none is ever detected. Instruction skills only (a tool skill needs gibberish
to run): each as a heading, its description, then its instructions.

* ``agents-md`` — ``AGENTS.md`` at the project root (plain Markdown, no frontmatter; the
  file Codex, Cursor, Copilot's coding agent and others read), or ``~/.codex/AGENTS.md``
  for the user (Codex's global file).
* ``copilot-instructions`` — ``.github/copilot-instructions.md`` (GitHub Copilot's
  repository-wide custom instructions: plain Markdown). Project only.
* ``cursor-rules`` — one ``.cursor/rules/<skill>.mdc`` per skill (Cursor project rules:
  frontmatter ``description``, ``globs``, ``alwaysApply``). ``alwaysApply: false`` with a
  description makes it an "agent requested" rule: Cursor's agent reads the description
  and pulls the rule in when it fits, as skills work. Project only.

The two single files are usually the person's own, so gibberish owns only a section
between two marker comments: created at the end when absent, replaced while unedited
(its SHA-256 is in the ownership record), left alone and reported once edited. Rule
files follow the sync rules: only files gibberish wrote and nobody edited are touched.
A skill's name is one :class:`~gibberish.pathsafety.PathComponent` (else it is skipped),
and nothing is read or written through a link that leads out of the project (or home).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from msgspec import Struct

from gibberish.export.ownership import OwnershipRecord, sha256_bytes
from gibberish.export.sync import Action, FolderPlan, SyncStep, apply_folder
from gibberish.fileio import atomic_write_bytes
from gibberish.pathsafety import OutsideTargetError, ensure_inside, is_path_component
from gibberish.skills.model import SkillDefinition

BEGIN = "<!-- gibberish:begin (written by `gibberish sync`; edits here stop its updates) -->"
END = "<!-- gibberish:end -->"
_SECTION = re.compile(re.escape(BEGIN) + r"\n(.*?)" + re.escape(END) + r"\n?", re.DOTALL)


class InstructionFormat(Struct, frozen=True):
    name: str
    title: str
    user_path: str | None
    project_path: str | None
    per_skill: bool = False

    def path(self, home: Path, project: Path | None) -> Path | None:
        if project is not None:
            return project / self.project_path if self.project_path else None
        return home / self.user_path if self.user_path else None


FORMATS: tuple[InstructionFormat, ...] = (
    InstructionFormat("agents-md", "AGENTS.md", ".codex/AGENTS.md", "AGENTS.md"),
    InstructionFormat(
        "copilot-instructions", "Copilot instructions", None, ".github/copilot-instructions.md"
    ),
    InstructionFormat("cursor-rules", "Cursor rules", None, ".cursor/rules", per_skill=True),
)
FORMAT_NAMES = tuple(f.name for f in FORMATS)


def instruction_format(name: str) -> InstructionFormat | None:
    return next((f for f in FORMATS if f.name == name), None)


def _instructions(skills: Sequence[SkillDefinition]) -> list[SkillDefinition]:
    return sorted((s for s in skills if s.kind == "instructions"), key=lambda s: s.name)


def _entry(skill: SkillDefinition) -> str:
    return f"## {skill.name}\n\n{' '.join(skill.description.split())}\n\n{skill.body.strip()}\n"


def _rule(skill: SkillDefinition) -> bytes:
    description = " ".join(skill.description.split()).replace('"', "'")
    front = f'---\ndescription: "{description}"\nglobs:\nalwaysApply: false\n---\n\n'
    return (front + f"# {skill.name}\n\n{skill.body.strip()}\n").encode("utf-8")


def plan_format(
    fmt: InstructionFormat,
    skills: Sequence[SkillDefinition],
    *,
    home: Path,
    project: Path | None,
) -> FolderPlan | None:
    """What syncing ``skills`` into ``fmt`` would do (None: no such place at this level)."""
    where = fmt.path(home, project)
    if where is None:
        return None
    chosen = _instructions(skills)
    outside = _leads_out(project or home, where)
    if outside is not None:  # nothing is planned there: a skip, reported
        folder = where if fmt.per_skill else where.parent
        record = OwnershipRecord.load("instructions", folder)
        return FolderPlan(folder, (fmt.name,), [outside], record)
    if fmt.per_skill:
        return _plan_rules(fmt, where, chosen)
    record = OwnershipRecord.load("instructions", where.parent)
    plan = FolderPlan(where.parent, (fmt.name,), [], record)
    section = "".join(_entry(s) for s in chosen)
    step = _plan_section(where, section, record)
    if step is not None:
        plan.steps.append(step)
    return plan


def _leads_out(base: Path, where: Path) -> SyncStep | None:
    """A skip when ``where`` (or a folder on the way) is a link leading out of ``base``,
    or is itself a link: a clone may plant ``AGENTS.md -> ~/.bashrc``."""
    try:
        ensure_inside(base, where)
    except OutsideTargetError as exc:
        return SyncStep(Action.SKIP_FOREIGN, where, where.name, str(exc))
    if where.is_symlink():
        return SyncStep(Action.SKIP_FOREIGN, where, where.name, "a link; left alone")
    return None


def _plan_section(path: Path, section: str, record: OwnershipRecord) -> SyncStep | None:
    rel = path.name
    try:
        text = path.read_text("utf-8") if path.exists() else None
    except (OSError, UnicodeDecodeError) as exc:
        return SyncStep(Action.SKIP_FOREIGN, path, rel, f"cannot be read ({exc})")
    match = _SECTION.search(text) if text is not None else None
    current = match.group(1) if match else None
    if current == section or (current is None and not section):
        return None
    edited = _section_edited(path, current, record.files.get(rel), text)
    if edited is not None:
        return edited
    new, action, reason = _with_section(text, match, section)
    seen = sha256_bytes(text.encode("utf-8")) if text is not None else None
    return SyncStep(action, path, rel, reason, data=new.encode("utf-8"), seen=seen)


def _section_edited(
    path: Path, current: str | None, owned: str | None, text: str | None
) -> SyncStep | None:
    """A skip when the person edited or removed gibberish's section, else None."""
    if current is not None and owned != sha256_bytes(current.encode("utf-8")):
        return SyncStep(
            Action.SKIP_EDITED, path, path.name, "gibberish's section was edited; left alone"
        )
    if current is None and owned is not None and text is not None:
        return SyncStep(
            Action.SKIP_EDITED, path, path.name, "gibberish's section was removed; left alone"
        )
    return None


def _with_section(
    text: str | None, match: re.Match[str] | None, section: str
) -> tuple[str, Action, str]:
    """The file's new text with ``section`` (empty: removed), the action and its reason."""
    block = f"{BEGIN}\n{section}{END}\n" if section else ""
    if text is None:
        return block, Action.CREATE, ""
    if match:
        new = text[: match.start()] + block + text[match.end() :]
        return (new, Action.UPDATE, "its section") if section else (new, Action.REMOVE, "")
    glue = "" if not text or text.endswith("\n\n") else ("\n" if text.endswith("\n") else "\n\n")
    return text + glue + block, Action.UPDATE, "a section added; the rest kept"


def _plan_rules(fmt: InstructionFormat, folder: Path, chosen: list[SkillDefinition]) -> FolderPlan:
    record = OwnershipRecord.load("instructions", folder)
    plan = FolderPlan(folder, (fmt.name,), [], record)
    for skill in chosen:
        if not is_path_component(skill.name):  # never "..", "/abs" or "a/b" in a file name
            reason = f"the skill name {skill.name!r} is not one plain file name; skipped"
            plan.steps.append(SyncStep(Action.SKIP_INVALID, folder, "", reason))
    wanted = {f"{s.name}.mdc": _rule(s) for s in chosen if is_path_component(s.name)}
    for rel, data in wanted.items():
        step = _rule_step(folder / rel, rel, data, record.files.get(rel))
        if step is not None:
            plan.steps.append(step)
    plan.steps.extend(_stale_rules(folder, record, wanted))
    return plan


def _rule_step(path: Path, rel: str, data: bytes, owned: str | None) -> SyncStep | None:
    """What to do for one wanted rule file (None: it is already as wanted)."""
    on_disk = path.read_bytes() if path.is_file() and not path.is_symlink() else None
    if on_disk == data:
        return None
    if on_disk is None and not path.exists() and not path.is_symlink():
        return SyncStep(Action.CREATE, path, rel, data=data)
    if on_disk is not None and owned == sha256_bytes(on_disk):
        return SyncStep(Action.UPDATE, path, rel, data=data, seen=owned)
    if owned is not None:
        return SyncStep(Action.SKIP_EDITED, path, rel, "edited since gibberish wrote it")
    return SyncStep(Action.SKIP_FOREIGN, path, rel, "not written by gibberish")


def _stale_rules(folder: Path, record: OwnershipRecord, wanted: dict[str, bytes]) -> list[SyncStep]:
    """Rule files gibberish wrote that are no longer wanted (and unedited): removed."""
    steps = []
    for rel, owned in sorted(record.files.items()):
        path = folder / rel
        if not is_path_component(rel) or path.is_symlink():  # a tampered record: never followed
            continue
        if rel not in wanted and path.is_file() and sha256_bytes(path.read_bytes()) == owned:
            steps.append(SyncStep(Action.REMOVE, path, rel, "no longer synced", seen=owned))
    return steps


def apply_format(plan: FolderPlan) -> list[str]:
    """Carry out a plan; a single file's section is recorded by its own digest."""
    fmt = instruction_format(plan.targets[0])
    if fmt is None or fmt.per_skill:
        return apply_folder(plan)
    if not plan.changes:
        return []
    problems = []
    for step in plan.changes:
        if step.path.is_symlink():  # planted since the plan: never written through
            problems.append(f"{step.path} is a link; left alone")
            continue
        current = step.path.read_bytes() if step.path.exists() else None
        if (sha256_bytes(current) if current is not None else None) != step.seen:
            problems.append(f"{step.path} changed while syncing; left alone (sync again)")
            continue
        assert step.data is not None
        step.path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write_bytes(step.path, step.data, mode=0o644)
        match = _SECTION.search(step.data.decode("utf-8"))
        if match:
            plan.record.files[step.rel] = sha256_bytes(match.group(1).encode("utf-8"))
        else:
            plan.record.files.pop(step.rel, None)
    plan.record.save()
    return problems
