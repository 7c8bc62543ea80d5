"""What the approval says in words, computed once on the prepared run for every front end.

When the skill will ask again (the rules of docs/trust.md) and which programs outside its
folder the tool starts — the tray's dialog and the command line's prompt show these same
sentences, so the two never explain the trust policy differently.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from gibberish.paths import home_short
from gibberish.skills.model import SkillDefinition, Trust
from gibberish.trust.decision import Decision
from gibberish.trust.fingerprint import OutsideProgram


def asks_again(skill: SkillDefinition, decision: Decision) -> str:
    """When this skill will ask next time, in words ("" when the run is refused)."""
    if decision.refused:
        return ""
    if skill.trust is Trust.UNTRUSTED:
        return "Imported skills ask before every run."
    if skill.always_ask:
        return "This skill asks before every run, as it requests, even once trusted."
    if not skill.read_only:
        return "This skill can change things, so it asks before every run, even once trusted."
    if decision.person_must_answer:
        return "A model's read outside the project is asked about every time."
    return "Once trusted, it runs without asking until any of its files changes."


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
