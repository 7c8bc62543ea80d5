"""What a skill is: tools the tray runs, or instructions for a model (Agent Skills).

Most ``SKILL.md`` files in the wild are instruction skills: prose for a model, no
``###`` tool blocks, often no ``version``. Read with the gibberish rules they fail with
E-NO-TOOLS (and E-MISSING-FIELD for the version); read with the ``agentskills`` rules
they are valid. :func:`parse_either` reads a skill with the gibberish rules and, only
when that fails *because it has no tools*, reads the same bytes again with the Agent
Skills rules: a valid result is an instruction skill (``ok``, no tools, profile
``agentskills``), so the library, ``skills list`` and the installer treat it as what it
is instead of as a broken tool skill. Anything else broken stays broken, with the
gibberish diagnostics.
"""

from __future__ import annotations

from pathlib import Path

from gibberish.skills import fields as F
from gibberish.skills.model import Diagnostic, Profile, SkillDefinition, Trust
from gibberish.skills.parser import parse_skill_bytes

TOOLS = "tools"
INSTRUCTIONS = "instructions"
BROKEN = "broken"


def skill_kind(skill: SkillDefinition) -> str:
    """``tools``, ``instructions`` (valid, no tools) or ``broken``."""
    return skill.kind


def parse_either(
    data: bytes | None,
    problem: Diagnostic | None,
    *,
    path: Path,
    profile: Profile = Profile.GIBBERISH,
    trust: Trust = Trust.USER,
    expected_name: str | None = None,
) -> SkillDefinition:
    """The skill read with ``profile``; a gibberish reading that fails only for lack of
    tools is replaced by the Agent Skills reading when that one is valid."""
    skill = parse_skill_bytes(
        data, problem, path=path, profile=profile, trust=trust, expected_name=expected_name
    )
    if profile is not Profile.GIBBERISH or skill.ok or data is None:
        return skill
    return as_instructions(skill, data, trust=trust, expected_name=expected_name)


def as_instructions(
    skill: SkillDefinition,
    data: bytes,
    *,
    trust: Trust,
    expected_name: str | None,
) -> SkillDefinition:
    """``skill`` (a failed gibberish reading of ``data``) as an instruction skill, when it
    failed for having no tools and is valid Agent Skills; else ``skill`` unchanged."""
    if not any(d.code == F.E_NO_TOOLS for d in skill.errors):
        return skill
    other = parse_skill_bytes(
        data,
        None,
        path=skill.source_path,
        profile=Profile.AGENTSKILLS,
        trust=trust,
        expected_name=expected_name,
    )
    if other.ok and not other.tools:
        return other
    return skill
