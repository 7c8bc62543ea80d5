"""Spoken forms of a tool: what a person may say to mean it, with slots for parameters.

Each tool gets forms from three places (docs/skill-format.md, *Spoken phrases*):

* its name, said as words, with or without a leading "show" (``git_status`` → "git status",
  "show git status");
* the first clause of its description when it is short ("show the most recent commits");
* the author's ``#### Phrases`` list, where ``{name}`` marks a parameter
  ("show the last {count} commits").

Name and description forms may end with one parameter: an integer as "count five" or
"five count", a boolean by saying its name ("staged"), a choice by saying the value.
Free text (a note, a search query) cannot be spelled out in a grammar: the grammar form
stops before it, and the form asks for the value — a free-form recognizer fills it in.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from enum import StrEnum

from msgspec import Struct

from gibberish.skills.model import ParameterDefinition, ParameterType
from gibberish.voice.numbers import MAX_SPOKEN, spoken_number

LEADING_VERB = "show"
VERBS = frozenset(
    [
        "show",
        "list",
        "find",
        "open",
        "read",
        "search",
        "add",
        "take",
        "run",
        "get",
        "check",
        "display",
        "tell",
        "count",
        "stop",
        "start",
    ]
)
MAX_DESCRIPTION_WORDS = 8
_WORD = re.compile(r"[a-z]+(?:'[a-z]+)?|\d+")
_PLACEHOLDER = re.compile(r"\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}")
_CHOICES = re.compile(r":\s*([^():]+?)\s*(?:\(|$)")


class SlotKind(StrEnum):
    NUMBER = "number"
    CHOICE = "choice"
    FLAG = "flag"
    TEXT = "text"


class Slot(Struct, frozen=True):
    param: str
    kind: SlotKind
    choices: tuple[tuple[tuple[str, ...], str], ...] = ()
    """For CHOICE: (spoken words, value); for FLAG: one entry, the words that set it."""


Item = str | Slot


class SpokenForm(Struct, frozen=True):
    tool: str
    """The exposed tool name (what ``validate_call`` resolves)."""
    items: tuple[Item, ...]
    origin: str
    """``name``, ``description`` or ``author``."""


def words_of(text: str) -> list[str]:
    """Lower-case words as a recognizer hears them; digits become spoken numbers."""
    out: list[str] = []
    for word in _WORD.findall(text.lower().replace("-", " ").replace("_", " ")):
        if word.isdigit():
            n = int(word)
            out.extend(spoken_number(n).split() if n <= MAX_SPOKEN else list(word))
        else:
            out.append(word)
    return out


def choices_of(param: ParameterDefinition) -> tuple[str, ...]:
    """Values listed in a description like "What to sort by: cpu or mem (default: cpu)"."""
    found = _CHOICES.search(param.description)
    if not found:
        return ()
    options = [o.strip() for o in re.split(r",|\bor\b", found.group(1)) if o.strip()]
    if 2 <= len(options) <= 8 and all(re.fullmatch(r"[A-Za-z][\w-]*", o) for o in options):
        return tuple(options)
    return ()


def slot_for(param: ParameterDefinition) -> Slot:
    if param.type is ParameterType.INTEGER:
        return Slot(param.name, SlotKind.NUMBER)
    if param.type is ParameterType.BOOLEAN:
        return Slot(param.name, SlotKind.FLAG, ((tuple(words_of(param.name)), "true"),))
    options = choices_of(param) if param.type is ParameterType.STRING else ()
    if options:
        return Slot(param.name, SlotKind.CHOICE, tuple((tuple(words_of(o)), o) for o in options))
    return Slot(param.name, SlotKind.TEXT)


def _suffixes(params: Sequence[ParameterDefinition]) -> list[tuple[Item, ...]]:
    """One optional trailing parameter per form (bounded: no combinatorial blow-up)."""
    out: list[tuple[Item, ...]] = [()]
    for param in params:
        slot = slot_for(param)
        named = tuple(words_of(param.name))
        if slot.kind is SlotKind.NUMBER:
            out.extend([(*named, slot), (slot, *named)])
        elif slot.kind in (SlotKind.FLAG, SlotKind.CHOICE) or param.required:
            out.append((slot,))
    return out


def _description_clause(description: str) -> list[str]:
    clause = re.split(r"[,.;:(]", description, maxsplit=1)[0]
    words = words_of(clause)
    return words if 2 <= len(words) <= MAX_DESCRIPTION_WORDS else []


def author_form(tool: str, phrase: str, params: Sequence[ParameterDefinition]) -> SpokenForm | str:
    """The form an author wrote, or a sentence saying why it cannot be used."""
    by_name = {p.name: p for p in params}
    items: list[Item] = []
    pos = 0
    for found in _PLACEHOLDER.finditer(phrase):
        items.extend(words_of(phrase[pos : found.start()]))
        param = by_name.get(found.group(1))
        if param is None:
            known = ", ".join(by_name) or "none"
            return f"phrase {phrase!r} names {{{found.group(1)}}}, not a parameter (known: {known})"
        items.append(slot_for(param))
        pos = found.end()
    items.extend(words_of(phrase[pos:]))
    if not any(isinstance(i, str) for i in items):
        return f"phrase {phrase!r} has no words to say"
    return SpokenForm(tool, tuple(items), "author")


def forms_for_tool(
    exposed_name: str,
    tool_name: str,
    description: str,
    params: Sequence[ParameterDefinition],
    phrases: Iterable[str] = (),
) -> tuple[list[SpokenForm], list[str]]:
    """Every spoken form of one tool, and the problems found in its author phrases."""
    bases: list[tuple[str, list[str]]] = []
    name = words_of(tool_name)
    bases.append(("name", name))
    if name and name[0] not in VERBS:
        bases.append(("name", [LEADING_VERB, *name]))
    clause = _description_clause(description)
    if clause and clause != name:
        bases.append(("description", clause))
    forms: list[SpokenForm] = []
    for origin, base in bases:
        for suffix in _suffixes(params):
            forms.append(SpokenForm(exposed_name, (*base, *suffix), origin))
    problems: list[str] = []
    for phrase in phrases:
        made = author_form(exposed_name, phrase, params)
        if isinstance(made, str):
            problems.append(f"{exposed_name}: {made}")
        else:
            forms.append(made)
    return forms, problems
