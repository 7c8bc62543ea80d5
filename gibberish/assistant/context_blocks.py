"""Instruction skills as context blocks, and how they go into a model request.

A skill with no runnable tools (the usual Agent Skill: only instructions) cannot be
called, but its text can help the model: it becomes a **context block** — its body, a
token estimate and where it came from. A person attaches blocks in one of three zones:

* ``pinned`` — always on, kept across sessions (``context_store``);
* ``session`` — until the tray quits;
* ``request`` — this one request only.

The feed puts the attached blocks in front of the request, within a token budget of their
own, and never cuts a sentence: each block is split into its sections (a heading and the
text up to the next heading), and whole sections are dropped, least relevant to the
request first. A block's first section (its title and opening text) goes first, so a
block in the feed always says what it is. Zones rank pinned, then session, then request
when sections tie.

Instruction skills fail gibberish's own profile (it wants tools and a version), so a
folder without tools is read again with the Agent Skills profile here.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum
from typing import Any

from msgspec import Struct, field

from gibberish.assistant.budget import estimate_tokens, words
from gibberish.skills.model import Profile, SkillDefinition
from gibberish.skills.parser import parse_skill_file
from gibberish.trust.provenance import read_provenance

DEFAULT_CONTEXT_BUDGET = 1024
"""Estimated tokens for context blocks, on top of the tool declarations' budget."""

_HEADING = re.compile(r"^ {0,3}#{1,6}[ \t]+\S")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


class Zone(StrEnum):
    PINNED = "pinned"
    SESSION = "session"
    REQUEST = "request"


ZONE_ORDER = {Zone.PINNED: 0, Zone.SESSION: 1, Zone.REQUEST: 2}


class ContextBlock(Struct, frozen=True):
    name: str
    description: str
    body: str
    source: str
    """Where it came from: the skill folder, or the URL/path an importer recorded."""
    trust: str

    @property
    def tokens(self) -> int:
        return estimate_tokens(self.body)

    def sections(self) -> list[str]:
        return split_sections(self.body)

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "tokens": self.tokens,
            "source": self.source,
            "trust": self.trust,
        }


def split_sections(body: str) -> list[str]:
    """The body cut before every heading outside code fences; blank parts dropped."""
    parts: list[list[str]] = [[]]
    fence: str | None = None
    for line in body.strip("\n").split("\n"):
        opened = _FENCE.match(line)
        if fence is not None:
            if opened and opened.group(1)[0] == fence[0] and len(opened.group(1)) >= len(fence):
                fence = None
        elif opened:
            fence = opened.group(1)
        elif _HEADING.match(line) and any(x.strip() for x in parts[-1]):
            parts.append([])
        parts[-1].append(line)
    return [text for p in parts if (text := "\n".join(p).strip("\n")).strip()]


def as_context_block(skill: SkillDefinition) -> ContextBlock | None:
    """The skill as a context block, or None when it has tools or is not a valid Agent Skill."""
    if skill.tools:
        return None
    parsed = skill
    if not skill.ok or skill.profile is not Profile.AGENTSKILLS:
        parsed = parse_skill_file(skill.source_path, profile=Profile.AGENTSKILLS, trust=skill.trust)
    if not parsed.ok or parsed.tools or not parsed.body.strip():
        return None
    provenance = read_provenance(skill.directory)
    source = f"{provenance.source} ({provenance.kind})" if provenance else str(skill.directory)
    return ContextBlock(
        name=parsed.name,
        description=parsed.description,
        body=parsed.body.strip("\n"),
        source=source,
        trust=skill.trust.value,
    )


def context_blocks(skills: Iterable[SkillDefinition]) -> list[ContextBlock]:
    return [block for skill in skills if (block := as_context_block(skill)) is not None]


# ------------------------------------------------------------------ the feed


class Attached(Struct, frozen=True):
    block: ContextBlock
    zone: Zone


class ContextFeed(Struct, frozen=True):
    text: str
    """What goes in front of the request ("" when nothing was attached or fitted)."""
    tokens: int
    budget: int
    included: dict[str, list[int]] = field(default_factory=dict)
    """Block name -> indexes of the sections kept."""
    omitted: dict[str, list[str]] = field(default_factory=dict)
    """Block name -> first lines of the sections left out."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "tokens": self.tokens,
            "budget": self.budget,
            "included": self.included,
            "omitted": self.omitted,
        }


def _block_text(block: ContextBlock, sections: Sequence[str]) -> str:
    return f'<context name="{block.name}">\n' + "\n\n".join(sections) + "\n</context>"


def _candidates(attached: Sequence[Attached], request: str) -> list[tuple[tuple, int, int]]:
    """(sort key, block index, section index) for every section of every attached block."""
    wanted = words(request)
    out = []
    for b, item in enumerate(attached):
        for s, text in enumerate(item.block.sections()):
            score = len(wanted & words(text))
            lead = 0 if s == 0 else 1
            out.append(((lead, -score, ZONE_ORDER[item.zone], b, s), b, s))
    out.sort(key=lambda c: c[0])
    return out


def _render(items: Sequence[Attached], chosen: dict[int, set[int]]) -> str:
    """The feed text for the chosen sections, blocks and sections in their own order."""
    texts = []
    for b in sorted(chosen):
        sections = items[b].block.sections()
        texts.append(_block_text(items[b].block, [sections[i] for i in sorted(chosen[b])]))
    return "\n\n".join(texts)


def build_feed(
    attached: Sequence[Attached], request: str = "", budget: int = DEFAULT_CONTEXT_BUDGET
) -> ContextFeed:
    """Choose whole sections of the attached blocks within ``budget`` (see module docstring)."""
    unique: dict[str, Attached] = {}
    for item in sorted(attached, key=lambda a: ZONE_ORDER[a.zone]):
        unique.setdefault(item.block.name, item)
    items = list(unique.values())
    chosen: dict[int, set[int]] = {}
    for _, b, s in _candidates(items, request):
        trial = {**chosen, b: chosen.get(b, set()) | {s}}
        if estimate_tokens(_render(items, trial)) <= budget:
            chosen = trial
    texts, included, omitted = [], {}, {}
    for b, item in enumerate(items):
        sections = item.block.sections()
        keep = sorted(chosen.get(b, ()))
        if keep:
            texts.append(_block_text(item.block, [sections[i] for i in keep]))
            included[item.block.name] = keep
        left = [sections[i].split("\n", 1)[0] for i in range(len(sections)) if i not in keep]
        if left:
            omitted[item.block.name] = left
    text = "\n\n".join(texts)
    return ContextFeed(text, estimate_tokens(text) if text else 0, budget, included, omitted)


def with_context(context: str, request: str) -> str:
    """The user turn: the context blocks, then the request."""
    return f"{context}\n\n{request}" if context else request
