"""What the approval says in words, computed once on the prepared run for every front end.

When the skill will ask again (the rules of docs/trust.md), which programs outside its
folder the tool starts, and what the run may reach beyond its folder (the display,
declared credentials, a model's reads outside the project) — the tray's dialog and the
command line's prompt show these same sentences, so the two never explain the trust
policy differently.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from msgspec import Struct

from gibberish.paths import home_short
from gibberish.skills.model import SkillDefinition, Trust
from gibberish.trust import approved_copies
from gibberish.trust.decision import ChangedFiles, Decision
from gibberish.trust.fingerprint import Fingerprint, OutsideProgram
from gibberish.trust.provenance import is_imported, read_provenance


def asks_again(skill: SkillDefinition, decision: Decision) -> str:
    """When this skill will ask next time, in words ("" when the run is refused): the
    sentence the decision table chose (``trust.policy``), or the model-read rule."""
    if decision.refused:
        return ""
    if decision.person_must_answer:
        return "A model's read outside the project is asked about every time."
    if decision.asks_again:
        return decision.asks_again
    if skill.always_ask:
        return "This skill asks before every run, as it requests, even once trusted."
    return "It runs without asking until any of its files changes."


def came_from(skill: SkillDefinition) -> str:
    """Where an installed skill came from ("" when it has no provenance file): its source
    (without credentials), how it was fetched and when."""
    origin = read_provenance(skill.directory)
    if origin is None:
        return (
            "not known: the record of where this skill came from cannot be read"
            if (skill.trust is Trust.UNTRUSTED and is_imported(skill.directory))
            else ""
        )
    when = origin.imported_at.split("T", 1)[0]
    return f"{origin.source} ({origin.kind}, installed {when})"


def changed_diff(directory: Path, changed: ChangedFiles | None) -> str:
    """The unified diff of what changed since the person trusted the skill, against the
    copy kept at approval ("" when nothing changed or no copy was kept)."""
    if not changed:
        return ""
    copy = approved_copies.approved(directory)
    if copy is None:
        return ""
    return approved_copies.diff(
        directory, [*changed.added, *changed.removed, *changed.modified], copy
    )


def covered_files(fp: Fingerprint) -> tuple[str, ...]:
    """Every file the fingerprint covers, as a person reads it: the skill folder's own
    files by their path inside it, then programs in the home folder (``~/bin/helper``)."""
    inside = sorted(name for name in fp.files if not name.startswith("/"))
    outside = sorted(home_short(Path(name)) for name in fp.files if name.startswith("/"))
    return (*inside, *outside)


def also_runs(programs: Iterable[OutsideProgram], tool: str) -> tuple[str, ...]:
    """The programs outside the skill folder ``tool`` starts, one line each: where each
    resolves now, and whether the approval covers it (those in the home folder are
    fingerprinted, so an edit asks again; system programs are not)."""
    lines = []
    for program in programs:
        if program.tool != tool:
            continue
        if program.path is None:
            lines.append(f"{program.word} — not found on this computer")
        elif program.in_home:
            where = home_short(Path(program.path))
            lines.append(f"{where} — in your home folder; an edit to it asks again")
        else:
            lines.append(f"{program.path} — a program of the system")
    return tuple(lines)


class Reach(Struct, frozen=True):
    """One thing a run may reach beyond its folder: ``what`` (names or paths, shown escaped
    by the front end) and ``why`` it matters, one clause both front ends show verbatim."""

    key: str
    """A stable name: ``gui``, ``credentials`` or ``reads-outside``."""
    title: str
    what: tuple[str, ...]
    why: str


def reaches(skill: SkillDefinition, decision: Decision) -> tuple[Reach, ...]:
    """What this run may reach beyond its folder, in the order the approval lists it."""
    found = []
    if skill.gui:
        why = "it may open windows; the session bus stays hidden"
        found.append(Reach("gui", "Display", ("yes",), why))
    if skill.credentials:
        why = "credentials it declares: it may read these, even when a model runs it"
        found.append(Reach("credentials", "Credentials", tuple(skill.credentials), why))
    if decision.reads_outside:
        why = "the model chose it; outside the project"
        found.append(Reach("reads-outside", "Reads outside", tuple(decision.reads_outside), why))
    return tuple(found)


def run_yourself(ref: str, arguments: Mapping[str, Any], cwd: Path) -> str:
    """The ``gibberish run`` command that runs this same call as the person's own run,
    quoted for a POSIX shell: the same tool, arguments and working folder, so a message
    that suggests it suggests something that does what it says."""
    words = ["gibberish", "run", ref]
    if all(isinstance(v, str) for v in arguments.values()):
        for name, value in arguments.items():
            words += ["--arg", f"{name}={value}"]
    elif arguments:
        words += ["--args-json", json.dumps(dict(arguments), ensure_ascii=False)]
    words += ["--cwd", str(cwd)]
    return shlex.join(words)
