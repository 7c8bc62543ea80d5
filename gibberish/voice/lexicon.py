"""Pronunciations for every word a grammar uses, including words no dictionary knows.

A JSGF rule naming a word the recognizer's dictionary lacks makes PocketSphinx reject the
whole grammar, and tool names are full of such words (``uptime``, ``nproc``, ``df``).
So every grammar word gets a pronunciation here, in order of preference:

1. the CMU dictionary that ships with PocketSphinx;
2. a compound split into dictionary words (``uptime`` → ``up`` + ``time``), fewest parts;
3. spelled out letter by letter when it has no vowel or is at most two letters
   (``df`` → "dee eff", as people say such names);
4. letter-to-sound rules (common English spellings → phones): rough, but always a path.

Reading the 135,000-entry dictionary costs 0.2 s idle and seconds on a loaded machine, on
every start. So the pronunciations worked out are kept in the cache folder, in a file
named after the PocketSphinx version and the rules' version: a start whose words are all
there never reads the dictionary. A broken or foreign cache file is ignored and replaced.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from functools import cache
from importlib import metadata
from pathlib import Path

from gibberish.paths import cache_dir

RULES_VERSION = 1
"""Bump when ``pronounce`` changes, so cached pronunciations are worked out again."""

LETTER_NAMES = {
    "a": "EY", "b": "B IY", "c": "S IY", "d": "D IY", "e": "IY", "f": "EH F", "g": "JH IY",
    "h": "EY CH", "i": "AY", "j": "JH EY", "k": "K EY", "l": "EH L", "m": "EH M", "n": "EH N",
    "o": "OW", "p": "P IY", "q": "K Y UW", "r": "AA R", "s": "EH S", "t": "T IY", "u": "Y UW",
    "v": "V IY", "w": "D AH B AH L Y UW", "x": "EH K S", "y": "W AY", "z": "Z IY",
}  # fmt: skip

# Longest spelling first; each maps to phones (or "" when silent).
_RULES = (
    ("tion", "SH AH N"), ("sion", "ZH AH N"), ("ough", "AO"), ("igh", "AY"), ("tch", "CH"),
    ("sch", "S K"), ("ch", "CH"), ("sh", "SH"), ("th", "TH"), ("ph", "F"), ("ck", "K"),
    ("ng", "NG"), ("qu", "K W"), ("wh", "W"), ("kn", "N"), ("wr", "R"), ("ee", "IY"),
    ("ea", "IY"), ("oo", "UW"), ("ou", "AW"), ("ow", "OW"), ("oi", "OY"), ("oy", "OY"),
    ("ai", "EY"), ("ay", "EY"), ("oa", "OW"), ("au", "AO"), ("aw", "AO"), ("ie", "IY"),
    ("ei", "EY"), ("ue", "UW"), ("er", "ER"), ("ir", "ER"), ("ur", "ER"), ("ar", "AA R"),
    ("or", "AO R"), ("a", "AE"), ("b", "B"), ("c", "K"), ("d", "D"), ("e", "EH"), ("f", "F"),
    ("g", "G"), ("h", "HH"), ("i", "IH"), ("j", "JH"), ("k", "K"), ("l", "L"), ("m", "M"),
    ("n", "N"), ("o", "AA"), ("p", "P"), ("q", "K"), ("r", "R"), ("s", "S"), ("t", "T"),
    ("u", "AH"), ("v", "V"), ("w", "W"), ("x", "K S"), ("y", "IY"), ("z", "Z"),
)  # fmt: skip
_VOWELS = set("aeiouy")


def model_dir() -> Path:
    """The en-US model folder shipped inside the ``pocketsphinx`` wheel."""
    import pocketsphinx

    return Path(pocketsphinx.get_model_path()) / "en-us"


@cache
def cmu_dictionary() -> dict[str, str]:
    """word → phones (first pronunciation only), read once from the shipped dictionary."""
    out: dict[str, str] = {}
    with open(model_dir() / "cmudict-en-us.dict", encoding="utf-8") as f:
        for line in f:
            word, _, phones = line.rstrip("\n").partition(" ")
            if "(" not in word:
                out[word] = phones.strip()
    return out


def _split_compound(word: str, known: dict[str, str]) -> list[str] | None:
    """Fewest dictionary words (each ≥ 2 letters) that spell ``word``, or None."""
    best: list[list[str] | None] = [None] * (len(word) + 1)
    best[0] = []
    for end in range(2, len(word) + 1):
        for start in range(end - 1):
            head = best[start]
            piece = word[start:end]
            if head is None or len(piece) < 2 or piece not in known:
                continue
            if best[end] is None or len(head) + 1 < len(best[end] or ()):
                best[end] = [*head, piece]
    return best[len(word)]


def letter_to_sound(word: str) -> str:
    """Rough phones from English spelling rules; never empty for a word with letters."""
    letters = [c for c in word.lower() if c.isalpha()]
    text = "".join(letters)
    if len(text) > 3 and text.endswith("e") and text[-2] not in _VOWELS:
        text = text[:-1]  # silent final e
    phones: list[str] = []
    i = 0
    while i < len(text):
        for spelling, sound in _RULES:
            if text.startswith(spelling, i):
                if sound and (not phones or phones[-1] != sound):
                    phones.append(sound)
                i += len(spelling)
                break
        else:
            i += 1
    return " ".join(phones) or spell(word)


def spell(word: str) -> str:
    """The word said letter by letter (``df`` → "D IY EH F")."""
    return " ".join(LETTER_NAMES[c] for c in word.lower() if c in LETTER_NAMES)


def pronounce(word: str, known: dict[str, str] | None = None) -> tuple[str, str]:
    """``(phones, how)`` for ``word``; ``how`` is dictionary, compound, spelled or rules."""
    known = cmu_dictionary() if known is None else known
    word = word.lower()
    if word in known:
        return known[word], "dictionary"
    if not any(c in _VOWELS for c in word) or len(word) <= 2:
        return spell(word), "spelled"
    parts = _split_compound(word, known)
    if parts and len(parts) <= 3:
        return " ".join(known[p] for p in parts), "compound"
    return letter_to_sound(word), "rules"


def cache_file() -> Path:
    try:
        version = metadata.version("pocketsphinx")
    except metadata.PackageNotFoundError:
        version = "unknown"
    return cache_dir() / "voice" / f"pronunciations-{version}-{RULES_VERSION}.json"


def _read_cache(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {k: v for k, v in data.items() if isinstance(k, str) and isinstance(v, str) and v}


def _write_cache(path: Path, entries: dict[str, str]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps(entries, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        pass  # a read-only cache folder only costs the dictionary read next time


def pronunciations(words: Iterable[str]) -> dict[str, str]:
    """word → phones for ``words``, from the cache when it has them all."""
    wanted = sorted({w.lower() for w in words})
    path = cache_file()
    cached = _read_cache(path)
    missing = [w for w in wanted if w not in cached]
    if missing:
        known = cmu_dictionary()
        cached.update({w: pronounce(w, known)[0] for w in missing})
        _write_cache(path, cached)
    return {w: cached[w] for w in wanted}


def write_dictionary(
    words: set[str], path: Path, extra: dict[str, str] | None = None
) -> dict[str, str]:
    """A small pronunciation dictionary holding just ``words`` (loads in milliseconds)."""
    entries = pronunciations(words) | (extra or {})
    tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
    tmp.write_text("".join(f"{w} {p}\n" for w, p in entries.items()), encoding="utf-8")
    os.replace(tmp, path)
    return entries
