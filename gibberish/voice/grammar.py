"""The JSGF grammar the embedded recognizer decodes against, built from the loaded tools.

One rule per tool lists its spoken forms; ``<command>`` is any of them. Parameter slots
become ``<number>`` (0–999 in words), a choice of values, a boolean's name, or nothing for
free text (see ``gibberish.voice.phrases``). The grammar's ``signature`` is a hash of the
forms, so a recognizer is rebuilt exactly when the library's tools or phrases change.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence

from msgspec import Struct

from gibberish.skills.model import ToolDefinition
from gibberish.voice.numbers import NUMBER_WORDS, number_rules
from gibberish.voice.phrases import Item, SlotKind, SpokenForm, forms_for_tool

GRAMMAR_NAME = "gibberish"


class Grammar(Struct, frozen=True):
    text: str
    """The JSGF source."""
    words: frozenset[str]
    """Every word the grammar can produce (each needs a pronunciation)."""
    forms: tuple[SpokenForm, ...]
    problems: tuple[str, ...]
    """Author phrases that could not be used, and phrases claimed by two tools."""
    signature: str

    @property
    def tools(self) -> int:
        return len({f.tool for f in self.forms})


def _render_item(item: Item, words: set[str]) -> str:
    if isinstance(item, str):
        words.add(item)
        return item
    if item.kind is SlotKind.NUMBER:
        return "<number>"
    if item.kind is SlotKind.TEXT:
        return ""
    options = []
    for spoken, _value in item.choices:
        words.update(spoken)
        options.append(" ".join(spoken))
    return options[0] if len(options) == 1 else "(" + " | ".join(options) + ")"


def render_form(form: SpokenForm, words: set[str]) -> str:
    return " ".join(p for p in (_render_item(i, words) for i in form.items) if p)


def _rule_name(index: int) -> str:
    return f"<tool_{index}>"


def build_grammar(forms: Sequence[SpokenForm], problems: Iterable[str] = ()) -> Grammar:
    """JSGF for ``forms``; a phrase two tools share stays with the first and is reported."""
    words: set[str] = set()
    owner: dict[str, str] = {}
    notes = list(problems)
    per_tool: dict[str, list[str]] = {}
    kept: list[SpokenForm] = []
    for form in forms:
        rendered = render_form(form, words)
        if not rendered:
            continue
        first = owner.setdefault(rendered, form.tool)
        if first != form.tool:
            if form.origin == "author":
                notes.append(f"{form.tool}: phrase {rendered!r} already means {first}; ignored")
            continue
        alternatives = per_tool.setdefault(form.tool, [])
        if rendered not in alternatives:
            alternatives.append(rendered)
        kept.append(form)
    lines = ["#JSGF V1.0;", f"grammar {GRAMMAR_NAME};", ""]
    rules = [_rule_name(i) for i in range(len(per_tool))]
    lines.append("public <command> = " + (" | ".join(rules) or "<VOID>") + ";")
    for rule, (tool, alternatives) in zip(rules, per_tool.items(), strict=True):
        lines.append(f"// {tool}")
        lines.append(f"{rule} = " + " | ".join(alternatives) + ";")
    if any("<number>" in line for line in lines):
        lines.append(number_rules())
        words.update(NUMBER_WORDS)
    text = "\n".join(lines) + "\n"
    signature = hashlib.sha256(text.encode()).hexdigest()[:16]
    return Grammar(text, frozenset(words), tuple(kept), tuple(notes), signature)


class VoiceTool(Struct, frozen=True):
    """What the grammar needs of one offered tool (the Engine's catalog entry, flattened)."""

    name: str
    tool: ToolDefinition


def grammar_for_tools(tools: Iterable[VoiceTool]) -> Grammar:
    forms: list[SpokenForm] = []
    problems: list[str] = []
    for entry in tools:
        t = entry.tool
        made, bad = forms_for_tool(entry.name, t.name, t.description, t.parameters, t.phrases)
        # Author phrases first: they are what the person was told to say.
        forms.extend(sorted(made, key=lambda f: f.origin != "author"))
        problems.extend(bad)
    return build_grammar(forms, problems)
