"""How well each word of a phrase is backed by the sounds a free phone loop heard.

The grammar decoder forces speech onto its closest phrase; the phone loop hears sounds
free of any grammar. ``phone_error_rate`` compares the two for the whole phrase. That
average hides a slot that took speech it does not explain: "four queen of clubs" forced
onto "four hundred of clubs" keeps "of clubs" well matched while "hundred" matches
nothing. Aligning the phrase's phones to the heard phones (Levenshtein, with its path
kept) charges each edit to the word whose phone it touched, so each word — and each
slot, through its words — gets its own error rate.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any

from msgspec import Struct

SUB, INS, DEL, MATCH = "sub", "ins", "del", "match"


def phone_error_rate(expected: Sequence[str], heard: Sequence[str]) -> float:
    """Levenshtein distance over phones, divided by the expected length."""
    if not expected:
        return 1.0
    previous = list(range(len(heard) + 1))
    for i, want in enumerate(expected, 1):
        current = [i]
        for j, got in enumerate(heard, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (want != got))
            )
        previous = current
    return previous[-1] / len(expected)


def _table(expected: Sequence[str], heard: Sequence[str]) -> list[list[int]]:
    table = [[0] * (len(heard) + 1) for _ in range(len(expected) + 1)]
    for j in range(len(heard) + 1):
        table[0][j] = j
    for i in range(1, len(expected) + 1):
        table[i][0] = i
        for j in range(1, len(heard) + 1):
            cost = expected[i - 1] != heard[j - 1]
            table[i][j] = min(table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + cost)
    return table


def edits(expected: Sequence[str], heard: Sequence[str]) -> list[tuple[str, int]]:
    """One minimal edit path: (kind, index of the expected phone it is charged to).

    An inserted heard phone is charged to the expected phone before it (the first one at
    the start), so speech the phrase does not explain counts against its neighbour."""
    table = _table(expected, heard)
    i, j = len(expected), len(heard)
    path: list[tuple[str, int]] = []
    while i > 0 or j > 0:
        if (
            i > 0
            and j > 0
            and table[i][j] == table[i - 1][j - 1] + (expected[i - 1] != heard[j - 1])
        ):
            path.append((MATCH if expected[i - 1] == heard[j - 1] else SUB, i - 1))
            i, j = i - 1, j - 1
        elif i > 0 and table[i][j] == table[i - 1][j] + 1:
            path.append((DEL, i - 1))
            i -= 1
        else:
            path.append((INS, max(i - 1, 0)))
            j -= 1
    return path[::-1]


class WordScore(Struct, frozen=True):
    word: str
    phones: int
    errors: int

    @property
    def error_rate(self) -> float:
        return self.errors / self.phones if self.phones else 1.0

    @property
    def confidence(self) -> float:
        """``1 - error_rate / 2`` clipped to 0..1, as for the whole phrase."""
        return min(1.0, max(0.0, 1.0 - self.error_rate / 2))


def word_scores(
    words: Sequence[tuple[str, Sequence[str]]], heard: Sequence[str]
) -> list[WordScore]:
    """Each (word, its phones) of a phrase with the edits charged to it against ``heard``."""
    owner: list[int] = [k for k, (_w, phones) in enumerate(words) for _p in phones]
    expected = [p for _w, phones in words for p in phones]
    errors = [0] * len(words)
    if expected:
        for kind, index in edits(expected, heard):
            if kind != MATCH:
                errors[owner[index]] += 1
    return [WordScore(w, len(phones), errors[k]) for k, (w, phones) in enumerate(words)]


def _log_likelihood(segments: Iterable[Any] | None) -> tuple[float, int]:
    total, frames = 0.0, 0
    for segment in segments or ():  # PocketSphinx gives None for an empty search
        total += math.log(max(segment.ascore, 1e-300))
        frames += segment.end_frame - segment.start_frame + 1
    return total, frames


def acoustic_fit(phrase: Iterable[Any] | None, free: Iterable[Any] | None) -> float:
    """Per frame, how much less likely the audio is under the phrase's path than under
    the free phone loop's (natural log; 0 is as likely, lower is worse).

    ``phrase`` and ``free`` are PocketSphinx segments (``Decoder.seg()``) of the two
    decoders over the same audio. The phone loop takes the best sounds at every frame,
    so a phrase that really was said loses little to it (people and clear voices: about
    −1 to −2.5 a frame); speech forced onto a phrase loses much more (−3 to −7)."""
    forced, frames = _log_likelihood(phrase)
    best, _ = _log_likelihood(free)
    return (forced - best) / max(frames, 1)
