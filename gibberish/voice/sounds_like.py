"""A free-form transcript → the spoken form it sounds most like.

Whisper writes what it heard in English spelling, and with a tool's words it often
writes a neighbour: "Show Jett status", "show the stage changes", "blister branches",
"Show the top 15 processors". Word-for-word matching turns those into no match. Here the
transcript and every spoken form are compared as *phones* (the pronunciations the grammar
recognizer uses, letter-to-sound rules for words no dictionary knows), so a word heard
as its neighbour, or two words heard as one, still lands on the form it sounds like.

Numbers are kept as values, not sounds: against a form with number slots, each run of
number words (or digits) in the transcript becomes one number mark, which only a number
slot's mark matches, and the value is the transcript's. Against a form without one, the
numbers are sounds like any word ("free" heard as "3", a tool named "ipv4"). Listed values and flags are spelled out, one candidate each; forms
with a free-text slot are left to word matching (dictation has no sound to compare).

A form is taken only when it is close (``MAX_DISTANCE`` of its phones edited) *and*
clearly closer than any form of another call (``MARGIN``); otherwise the transcript stays
no match. The comparisons are RapidFuzz's Levenshtein distance in C over one character
per phone, a few milliseconds for thousands of forms.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable
from functools import lru_cache
from typing import Any

from msgspec import Struct

from gibberish.voice.fsg import PHONES
from gibberish.voice.lexicon import cmu_dictionary, pronounce, pronunciations
from gibberish.voice.matcher import PhraseMatch
from gibberish.voice.numbers import number_run, parse_number
from gibberish.voice.phrases import Slot, SlotKind, SpokenForm, words_of

MAX_DISTANCE = 0.34
"""At most a third of a form's phones substituted, dropped or added ("git" for "Jett"
is one phone in three; "this" for "disk" two in four is too far)."""
MARGIN = 0.08
"""How much closer the best form must be than the best form proposing another call."""
NEAREST = 5
"""Sentences ``nearest`` offers: Whisper weighs five in about 40 ms."""
MAX_EXPANSIONS = 64
"""Candidates one form may spell out (the product of its listed values)."""
NUMBER_MARK = "#"
_PHONE_CHARS = {p: chr(0x61 + i) if i < 26 else chr(0x41 + i - 26) for i, p in enumerate(PHONES)}


class _Candidate(Struct, frozen=True):
    form: SpokenForm
    sentence: str
    """The form as said, a number slot shown as ``#``."""
    arguments: tuple[tuple[str, Any], ...]
    """Values of its listed-value and flag slots."""
    numbers: tuple[str, ...]
    """Its number slots' parameters, in order."""


def _spell(phones: str) -> str:
    return "".join(_PHONE_CHARS.get(p, "") for p in phones.split())


def _expansions(form: SpokenForm) -> list[_Candidate]:
    """Every way of saying ``form`` (one per combination of listed values); none for a
    form with a free-text slot."""
    parts: list[list[tuple[tuple[str, ...], tuple[tuple[str, Any], ...]]]] = []
    numbers: list[str] = []
    for item in form.items:
        if isinstance(item, str):
            parts.append([((item,), ())])
        elif isinstance(item, Slot) and item.kind is SlotKind.NUMBER:
            parts.append([((NUMBER_MARK,), ())])
            numbers.append(item.param)
        elif isinstance(item, Slot) and item.kind in (SlotKind.CHOICE, SlotKind.FLAG):
            said = (lambda v: True) if item.kind is SlotKind.FLAG else (lambda v: v)
            parts.append([(words, ((item.param, said(value)),)) for words, value in item.choices])
        else:
            return []
    out = []
    for combo in itertools.islice(itertools.product(*parts), MAX_EXPANSIONS):
        words = tuple(w for said, _args in combo for w in said)
        arguments = tuple(a for _said, args in combo for a in args)
        out.append(_Candidate(form, " ".join(words), arguments, tuple(numbers)))
    return out


def _said(candidate: _Candidate, values: list[int]) -> str:
    """The candidate's sentence with its number marks replaced by ``values``."""
    sentence = candidate.sentence
    for value in values if candidate.numbers else ():
        sentence = sentence.replace(NUMBER_MARK, str(value), 1)
    return sentence


@lru_cache(maxsize=4096)
def _heard_phones(word: str) -> str:
    return pronounce(word, cmu_dictionary())[0]


def _numbers_marked(tokens: list[str]) -> tuple[list[str], list[int]]:
    """``tokens`` with each run of number words replaced by ``NUMBER_MARK``, and the
    numbers, longest run first ("one hundred and five" is one number, not three)."""
    out: list[str] = []
    values: list[int] = []
    j = 0
    while j < len(tokens):
        run = number_run(tokens, j)
        if run:
            out.append(NUMBER_MARK)
            values.append(parse_number(tokens[j : j + run]))  # type: ignore[arg-type]
            j += run
        else:
            out.append(tokens[j])
            j += 1
    return out, values


class SoundsLike:
    """The forms of a grammar, spelled as phones, ready to be compared with transcripts."""

    def __init__(self, forms: Iterable[SpokenForm]) -> None:
        self._candidates = [c for form in forms for c in _expansions(form)]
        words = {w for c in self._candidates for w in c.sentence.split() if w != NUMBER_MARK}
        self._phones = pronunciations(words)
        cmu_dictionary()  # a transcript's words are looked up there: read it now, not mid-request
        self._spelled = [
            self._spell_sentence(c.sentence.split(), self._phones.get) for c in self._candidates
        ]

    @staticmethod
    def _spell_sentence(words: list[str], phones_of: Any) -> str:
        return "".join(
            NUMBER_MARK if w == NUMBER_MARK else _spell(phones_of(w) or "") for w in words
        )

    def _ranked(self, text: str) -> tuple[list[tuple[float, int]], list[int]]:
        """Every candidate's distance from ``text`` (nearest first), and the numbers
        ``text`` holds."""
        from rapidfuzz.distance import Levenshtein

        words = words_of(text)
        marked, values = _numbers_marked(words)
        sound = lambda w: self._phones.get(w) or _heard_phones(w)  # noqa: E731
        plain = self._spell_sentence(words, sound)
        heard = self._spell_sentence(marked, sound) if values else plain
        if not plain:
            return [], values
        distance = Levenshtein.distance
        ranked = sorted(
            (distance(heard if c.numbers else plain, spelled) / max(len(spelled), 1), i)
            for i, (c, spelled) in enumerate(zip(self._candidates, self._spelled, strict=True))
            if not c.numbers or len(c.numbers) == len(values)
        )
        return ranked, values

    def match(self, text: str) -> tuple[PhraseMatch, str] | None:
        """The call ``text`` sounds like, and the form's sentence it was taken as; None
        when no form is close enough, or two calls are about as close."""
        ranked, values = self._ranked(text)
        if not ranked or ranked[0][0] > MAX_DISTANCE:
            return None
        best = self._candidates[ranked[0][1]]
        call = self._call(best, values)
        for score, i in ranked[1:]:
            if score - ranked[0][0] >= MARGIN:
                break
            if self._call(self._candidates[i], values) != call:
                return None  # two different calls sound about as close: ask, do not guess
        tool, arguments = call
        return PhraseMatch(tool, dict(arguments), best.form), _said(best, values)

    def nearest(self, text: str, limit: int = NEAREST) -> list[str]:
        """The ``limit`` sentences of the grammar that sound nearest to ``text``, however
        far (numbers filled in from ``text``): what a recognizer that can weigh sentences
        is asked to choose among when ``match`` found none close enough."""
        ranked, values = self._ranked(text)
        return [_said(self._candidates[i], values) for _distance, i in ranked[:limit]]

    @staticmethod
    def _call(candidate: _Candidate, values: list[int]) -> tuple[str, tuple[tuple[str, Any], ...]]:
        """The call ``candidate`` proposes; the transcript's numbers fill its number slots
        (a form without one heard them as words)."""
        numbers = zip(candidate.numbers, values if candidate.numbers else (), strict=True)
        arguments = candidate.arguments + tuple(numbers)
        return candidate.form.tool, tuple(sorted(arguments, key=lambda a: a[0]))


def sound_distance(heard: str, phrase: str) -> float:
    """How far ``heard`` (a free-form transcript) sounds from ``phrase``: phones edited
    per phone of the phrase (0 the same, ``MAX_DISTANCE`` the most a match allows).
    Digits are said as words first ("5" as "five")."""
    from rapidfuzz.distance import Levenshtein

    from gibberish.voice.numbers import MAX_SPOKEN, spoken_number

    def said(text: str) -> list[str]:
        words: list[str] = []
        for word in words_of(text):
            digits = word.isdigit() and int(word) <= MAX_SPOKEN
            words.extend(spoken_number(int(word)).split() if digits else [word])
        return words

    spell = lambda words: "".join(_spell(_heard_phones(w)) for w in words)  # noqa: E731
    target = spell(said(phrase))
    return Levenshtein.distance(spell(said(heard)), target) / max(len(target), 1)
