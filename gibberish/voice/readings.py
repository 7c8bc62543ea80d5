"""The other numbers a phrase could have held: what a second recognizer weighs.

The grammar recognizer's acoustic model tells some numbers apart badly: a formant
voice's "fifteen" is heard as "fifty", "twelve" as "two", "five" as "nine", every time
and whatever the search settings. A recognizer that hears those voices better (Whisper,
weighing each reading of the audio) can only settle which number it was when it is
shown the candidates, so each run of number words in the phrase is replaced, one at a
time, by the values that sound nearest to it. Whisper weighs three dozen readings in about
0.3 s on two cores (tiny.en).
"""

from __future__ import annotations

from functools import lru_cache

from gibberish.voice.numbers import MAX_SPOKEN, number_run, parse_number, spoken_number

NEIGHBOURS = 8
"""Values tried in place of each number heard, by each of two sound rankings."""


def number_readings(text: str, limit: int = NEIGHBOURS) -> list[str]:
    """``text`` with each run of number words replaced by its ``limit`` nearest-sounding
    values, one run at a time (the phrase itself not included)."""
    words = text.split()
    readings: list[str] = []
    i = 0
    while i < len(words):
        run = number_run(words, i)
        if not run:
            i += 1
            continue
        value = parse_number(words[i : i + run])
        for other in nearest_values(value, limit) if value is not None else ():
            readings.append(" ".join([*words[:i], spoken_number(other), *words[i + run :]]))
        i += run
    return readings


@lru_cache(maxsize=256)
def nearest_values(value: int, limit: int = NEIGHBOURS) -> tuple[int, ...]:
    """The values of 0..999 a recognizer may have heard as ``value``: the ``limit``
    nearest by sound, phones edited per phone of ``value``'s words and per phone of the
    longer of the two (each ranking finds confusions the other misses: "nine" → "five",
    "fifteen" → "fifty"), and, for a number said in one word, every other number said in
    one ("two" for "twelve": the acoustic model drops whole phones, which no distance
    ranks near)."""
    from gibberish.voice.sounds_like import sound_distance

    said = spoken_number(value)
    others = [n for n in range(MAX_SPOKEN + 1) if n != value]
    by_value = sorted(others, key=lambda n: sound_distance(spoken_number(n), said))
    by_longer = sorted(
        others,
        key=lambda n: min(
            sound_distance(spoken_number(n), said), sound_distance(said, spoken_number(n))
        ),
    )
    chosen = dict.fromkeys([*by_value[:limit], *by_longer[:limit]])
    if " " not in said:
        chosen.update(dict.fromkeys(n for n in others if " " not in spoken_number(n)))
    return tuple(chosen)
