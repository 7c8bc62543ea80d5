"""Spoken integers: the words a person says for 0–999, both ways.

The grammar offers every form in ``spoken_forms`` (``twenty one``, ``one hundred and
five``, ``a hundred``) and the matcher reads a span of heard words back with
``parse_number``; digits (``5``, what a free-form recognizer writes) parse too. Keeping
both directions in one table means the grammar can only ever produce numbers the
matcher understands.
"""

from __future__ import annotations

from functools import cache

UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
TENS = ["twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
MAX_SPOKEN = 999


def spoken_number(n: int) -> str:
    """The plain spoken form of ``0 <= n <= 999``: ``twenty one``, ``three hundred five``."""
    if not 0 <= n <= MAX_SPOKEN:
        raise ValueError(f"{n} is outside 0..{MAX_SPOKEN}")
    if n < 20:
        return UNITS[n]
    if n < 100:
        tens, unit = divmod(n, 10)
        return TENS[tens - 2] + (f" {UNITS[unit]}" if unit else "")
    hundreds, rest = divmod(n, 100)
    head = f"{UNITS[hundreds]} hundred"
    return head if rest == 0 else f"{head} {spoken_number(rest)}"


@cache
def spoken_forms() -> dict[str, int]:
    """Every accepted spoken form of 0–999 → its value (``and`` and ``a hundred`` too)."""
    forms: dict[str, int] = {}
    for n in range(MAX_SPOKEN + 1):
        plain = spoken_number(n)
        forms[plain] = n
        if n >= 100:
            hundreds, rest = divmod(n, 100)
            if rest:
                forms[f"{UNITS[hundreds]} hundred and {spoken_number(rest)}"] = n
            if hundreds == 1:
                forms["a" + plain[3:]] = n
                if rest:
                    forms[f"a hundred and {spoken_number(rest)}"] = n
    return forms


MAX_NUMBER_WORDS = 6
"""The most words one number takes ("nine hundred and ninety nine")."""


def parse_number(words: list[str] | tuple[str, ...]) -> int | None:
    """The integer the words say, or None: ``["twenty", "one"]`` → 21, ``["5"]`` → 5."""
    if len(words) == 1 and words[0].isdigit():
        return int(words[0])
    return spoken_forms().get(" ".join(words))


def number_run(words: list[str] | tuple[str, ...], start: int) -> int:
    """Length of the longest run of words from ``start`` that parses as one number (0:
    none): "one hundred and five" is one number, not three."""
    for length in range(min(MAX_NUMBER_WORDS, len(words) - start), 0, -1):
        if parse_number(words[start : start + length]) is not None:
            return length
    return 0


def holds_a_number(text: str) -> bool:
    """Whether ``text`` says a number anywhere (numbers are where the grammar recognizer
    errs most: "fifteen" and "fifty" differ by one unstressed phone)."""
    words = text.split()
    return any(number_run(words, i) for i in range(len(words)))


NUMBER_WORDS = frozenset(w for form in spoken_forms() for w in form.split())
"""Every word that can appear inside a spoken number."""


def number_rules() -> str:
    """JSGF rules for ``<number>`` (0–999), compact: the recognizer expands them itself."""
    units = " | ".join(UNITS[1:10])
    teens = " | ".join(UNITS[10:20])
    tens = " | ".join(TENS)
    return "\n".join(
        (
            f"<unit> = {units};",
            f"<teen> = {teens};",
            f"<tens> = {tens};",
            "<below_hundred> = <unit> | <teen> | <tens> [<unit>];",
            "<number> = zero | <below_hundred> | (a | <unit>) hundred [[and] <below_hundred>];",
        )
    )
