"""Heard words → a tool and its arguments, by matching the tools' spoken forms.

The grammar recognizer can only produce word sequences of those forms (or, when its
search never reached the end of one, a partial path that must not match), so for it this
is an exact parse; a free-form transcript ("Show the last 5 commits.") matches when its
words, normalized the same way, spell one of the forms. Free text slots take the rest of
what was said, or stay missing (the form then asks for them).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from msgspec import Struct, field

from gibberish.voice.numbers import MAX_NUMBER_WORDS, parse_number
from gibberish.voice.phrases import Item, Slot, SlotKind, SpokenForm, words_of


class PhraseMatch(Struct, frozen=True):
    tool: str
    arguments: dict[str, Any] = field(default_factory=dict)
    form: SpokenForm | None = None
    skipped: tuple[str, ...] = ()
    """Free-text parameters the form has but nobody said."""


def _take(words: tuple[str, ...], tokens: list[str], j: int) -> int | None:
    end = j + len(words)
    return end if tuple(tokens[j:end]) == words else None


class _Walk(Struct, frozen=True):
    items: tuple[Item, ...]
    tokens: list[str]
    free_text: bool


def _match(w: _Walk, i: int, j: int, args: dict[str, Any]) -> dict[str, Any] | None:
    items, tokens = w.items, w.tokens
    if i == len(items):
        return args if j == len(tokens) else None
    item = items[i]
    if isinstance(item, str):
        if j < len(tokens) and tokens[j] == item:
            return _match(w, i + 1, j + 1, args)
        return None
    return _match_slot(w, item, i, j, args)


def _match_slot(
    w: _Walk, slot: Slot, i: int, j: int, args: dict[str, Any]
) -> dict[str, Any] | None:
    tokens = w.tokens
    if slot.kind is SlotKind.NUMBER:
        for k in range(min(MAX_NUMBER_WORDS, len(tokens) - j), 0, -1):
            value = parse_number(tokens[j : j + k])
            if value is not None:
                found = _match(w, i + 1, j + k, {**args, slot.param: value})
                if found is not None:
                    return found
        return None
    if slot.kind in (SlotKind.CHOICE, SlotKind.FLAG):
        for words, choice in slot.choices:
            end = _take(words, tokens, j)
            if end is not None:
                said = True if slot.kind is SlotKind.FLAG else choice
                found = _match(w, i + 1, end, {**args, slot.param: said})
                if found is not None:
                    return found
        return None
    if w.free_text:
        for end in range(len(tokens), j, -1):  # free text: longest first
            found = _match(w, i + 1, end, {**args, slot.param: " ".join(tokens[j:end])})
            if found is not None:
                return found
    return _match(w, i + 1, j, args)  # not said: asked for later


class PhraseMatcher:
    """Matches heard text against every spoken form; the most specific form wins.

    ``free_text`` says whether free-text slots may take words. The grammar never lets a
    person say one (it stops before the slot), so for the grammar recognizer any words
    there are a forced partial path, not dictation, and must not become a value.
    """

    def __init__(self, forms: Iterable[SpokenForm], *, free_text: bool = True) -> None:
        self.forms = tuple(forms)
        self.free_text = free_text

    def match(self, text: str) -> PhraseMatch | None:
        tokens = words_of(text)
        if not tokens:
            return None
        best: tuple[tuple[int, int], PhraseMatch] | None = None
        for form in self.forms:
            first = form.items[0]
            if isinstance(first, str) and first != tokens[0]:
                continue
            args = _match(_Walk(form.items, tokens, self.free_text), 0, 0, {})
            if args is None:
                continue
            texts = [s for s in form.items if isinstance(s, Slot) and s.kind is SlotKind.TEXT]
            skipped = tuple(s.param for s in texts if s.param not in args)
            literal = sum(isinstance(x, str) for x in form.items)
            rank = (-len(skipped), literal)
            if best is None or rank > best[0]:
                best = (rank, PhraseMatch(form.tool, args, form, skipped))
        return best[1] if best else None
