"""Heard → a proposed call, or *no match* with the closest tools.

The words are matched against the tools' spoken forms (``PhraseMatcher``); the call that
comes out goes through the model feed's ``validate_call``, so a spoken call is checked and
typed exactly like a model's. Whatever is not a confident match ends as ``NO_MATCH``
with fuzzy candidates for the person to pick from — never as a different tool.
"""

from __future__ import annotations

import time

from msgspec import Struct
from msgspec.structs import replace

from gibberish.assistant import (
    CallStatus,
    ExposedTool,
    FuzzyIndex,
    FuzzyMatch,
    Proposal,
    ProposalStatus,
    ToolCatalog,
    ValidatedCall,
    validate_call,
)
from gibberish.assistant.heard import Heard
from gibberish.voice.matcher import PhraseMatch, PhraseMatcher
from gibberish.voice.numbers import TENS, UNITS
from gibberish.voice.sounds_like import SoundsLike

MAX_CANDIDATES = 5
SAID_NUMBERS = frozenset((*UNITS, *TENS, "hundred"))
UNSURE_NUMBER = 0.6
"""A number word whose phones the free phone loop backs less than this (its word
confidence, ``gibberish.voice.alignment``) makes the call's numbers *unusual*: the form
says to check them. In-grammar numbers of the suite's clear voices score 0.6 to 1;
"hundred" in "four queen of clubs" heard as "four hundred of clubs" 0.57."""


def closest(text: str, catalog: ToolCatalog) -> tuple[FuzzyMatch[ExposedTool], ...]:
    if not text:
        return ()
    index = FuzzyIndex.for_tools(catalog.tools)
    return tuple(index.rank(text, MAX_CANDIDATES, require_all=False))


def interpret(
    heard: Heard,
    catalog: ToolCatalog,
    matcher: PhraseMatcher,
    sounds_like: SoundsLike | None = None,
) -> Proposal[Heard]:
    """``sounds_like``: for a free-form transcript, the form it sounds like when no form
    matches it word for word (recorded in ``heard.details["taken_as"]``)."""
    began = time.perf_counter()
    proposal = _interpret(heard, catalog, _Matching(matcher, sounds_like))
    heard.timings["interpret"] = time.perf_counter() - began
    heard.timings["latency"] = heard.timings.get("finish", 0.0) + heard.timings["interpret"]
    return proposal


class _Matching(Struct, frozen=True):
    words: PhraseMatcher
    sounds: SoundsLike | None

    def match(self, heard: Heard) -> PhraseMatch | None:
        found = self.words.match(heard.text)
        if found is not None or self.sounds is None:
            return found
        close = self.sounds.match(heard.text)
        if close is None:
            return None
        heard.details["taken_as"] = close[1]
        return close[0]


def _interpret(heard: Heard, catalog: ToolCatalog, matcher: _Matching) -> Proposal[Heard]:
    if heard.rejected or not heard.text:
        reason = heard.rejected or "nothing was recognized"
        return Proposal(
            heard,
            ProposalStatus.NO_MATCH,
            candidates=closest(heard.text, catalog),
            message=f"No tool matches what was heard: {reason}.",
        )
    match = matcher.match(heard)
    if match is None:
        return Proposal(
            heard,
            ProposalStatus.NO_MATCH,
            candidates=closest(heard.text, catalog),
            message=f"No tool matches {heard.text!r}.",
        )
    call = _with_unsure_numbers(validate_call((match.tool, match.arguments), catalog), heard)
    if call.status is CallStatus.OK:
        return Proposal(heard, ProposalStatus.OK, calls=(call,))
    if call.status is CallStatus.MISSING_ARGUMENTS:
        missing = ", ".join(call.missing)
        return Proposal(
            heard, ProposalStatus.NEEDS_ARGUMENTS, calls=(call,), message=f"Missing: {missing}."
        )
    return Proposal(
        heard,
        ProposalStatus.NO_MATCH,
        calls=(call,),
        candidates=closest(heard.text, catalog),
        message="; ".join(call.problems) or f"{match.tool} cannot take what was heard.",
    )


def _with_unsure_numbers(call: ValidatedCall, heard: Heard) -> ValidatedCall:
    """``call`` with its numbers listed as unusual when the words that said them were
    weakly heard, so the form asks the person to check them before anything runs."""
    weak = [w for w, c in heard.details.get("words", ()) if w in SAID_NUMBERS and c < UNSURE_NUMBER]
    numbers = [
        f"{name}={value}"
        for name, value in call.arguments.items()
        if isinstance(value, int) and not isinstance(value, bool)
    ]
    if not weak or not numbers:
        return call
    said = " ".join(weak)
    unsure = tuple(f"{n} (the recognizer is unsure of “{said}”)" for n in numbers)
    return replace(call, unusual=(*call.unusual, *unsure))
