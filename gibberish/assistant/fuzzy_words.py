"""Which entries of a fuzzy index each word is in, so a typed word is scored per distinct
word instead of per entry.

A typed word made only of word characters (letters and digits) occurs in a text exactly
when it occurs inside one of the text's words (``[^\\W_]+`` runs): it cannot straddle a
space or a punctuation mark. So "the name contains it", "a word of the description
starts with it" and the other levels of ``fuzzy``'s score table are unions of the entry
lists of the vocabulary words that contain, start with or equal it. Scanning a few
thousand distinct words and uniting lists in C costs a fraction of testing five thousand
entries one by one in Python, which is what keeps the first letters of a word (they
match almost every tool) within a few milliseconds.

Splitting every text into words is the expensive part (about 70 ms for 5,000 tools), so
it is done once per index off the thread that types (``FuzzyIndex.prepare``), and an
index made from another after a library change takes the other's postings with only the
changed entries' words redone (``WordPostings.patched``).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Collection, Sequence

from msgspec import Struct, field

WORD = re.compile(r"[^\W_]+")
"""A word: the letters and digits between anything else (``_`` included)."""

NOT_NEWLINE = r"[^\n]"
Postings = dict[str, Collection[int]]
"""Word → entries: a list as built, a set where a patch changed it."""
Column = Sequence[str | None]


def _grouped(texts: Column) -> dict[str, list[int]]:
    """Each distinct text (texts are shared: a skill's context by all its tools) and the
    entries holding it."""
    groups: dict[str, list[int]] = {}
    for i, text in enumerate(texts):
        if text:
            entries = groups.get(text)
            if entries is None:
                groups[text] = [i]
            else:
                entries.append(i)
    return groups


def _postings(texts: Column) -> Postings:
    found: dict[str, list[int]] = {}
    findall = WORD.findall
    for text, entries in _grouped(texts).items():
        for word in set(findall(text)):
            held = found.get(word)
            if held is None:
                found[word] = list(entries)
            else:
                held.extend(entries)
    return dict(found)  # typed as postings, which a patch may hold sets in


def _firsts(lnames: Column) -> Postings:
    """A name's first word, where the name starts with it."""
    found: dict[str, list[int]] = {}
    for i, lname in enumerate(lnames):
        first = WORD.match(lname or "")
        if first is not None:
            found.setdefault(first.group(), []).append(i)
    return dict(found)


def _wholes(lnames: Column) -> Postings:
    return dict(_grouped(lnames))


def _change(
    postings: Postings,
    changed: list[int],
    old: Column,
    new: Column,
    split: Callable[[str | None], set[str]],
) -> None:
    """Take ``changed`` entries out of the words of their ``old`` texts, put them under
    the words of their ``new`` ones; a list is copied before it changes (the index this
    one came from keeps its own)."""
    gone: dict[str, set[int]] = {}
    came: dict[str, set[int]] = {}
    for i in changed:
        for word in split(old[i]):
            gone.setdefault(word, set()).add(i)
        for word in split(new[i]):
            came.setdefault(word, set()).add(i)
    for word in gone.keys() | came.keys():
        leaving, coming = gone.get(word, set()), came.get(word, set())
        if leaving == coming:  # the same entries still have this word
            continue
        kept = set(postings.get(word, ()))
        kept -= leaving
        kept |= coming
        if kept:
            postings[word] = kept
        else:
            postings.pop(word, None)


def _words(text: str | None) -> set[str]:
    return set(WORD.findall(text)) if text else set()


def _first(text: str | None) -> set[str]:
    found = WORD.match(text or "")
    return {found.group()} if found is not None else set()


def _whole(text: str | None) -> set[str]:
    return {text} if text else set()


def span_source(term: str, anything: str) -> str:
    """A pattern for ``term``'s letters in order, each the first one after the previous
    (atomic groups: no backtracking); ``anything`` is what may come between them."""
    rest = "".join(f"(?>{anything}*?{re.escape(ch)})" for ch in term[1:])
    return re.escape(term[0]) + rest


class WordPostings(Struct, frozen=True):
    """The words of an index's lower-cased names, descriptions and contexts, each with the
    entries it appears in; ``firsts`` holds a name's first word only where the name
    starts with it, ``wholes`` each whole name (names repeat: ``list``, ``status``)."""

    names: Postings
    firsts: Postings
    wholes: Postings
    descs: Postings
    ctxs: Postings
    _blob: list[tuple[str, list[int], list[str]]] = field(default_factory=list)

    def spans(self, term: str) -> dict[int, int] | None:
        """Entry → the span of ``term``'s letters in order in its name (see
        ``FuzzyIndex._spans``), each distinct name searched once; None when a name holds
        a line break (names are searched as the lines of one string)."""
        if not self._blob:
            names = list(self.wholes)
            if any("\n" in name for name in names):
                return None
            starts, position = [], 0
            for name in names:
                starts.append(position)
                position += len(name) + 1
            self._blob.append(("\n".join(names), starts, names))
        blob, starts, names = self._blob[0]
        first = re.escape(term[0])
        search = re.compile(
            f"^[^{first}\\n]*+(" + span_source(term, NOT_NEWLINE) + ")", re.MULTILINE
        )
        found: dict[int, int] = {}
        wholes = self.wholes
        for hit in search.finditer(blob):
            name = names[bisect_right(starts, hit.start()) - 1]
            found.update(dict.fromkeys(wholes[name], hit.end(1) - hit.start(1)))
        return found

    @classmethod
    def build(cls, lnames: Column, descs: Column, ctxs: Column) -> WordPostings:
        return cls(
            _postings(lnames), _firsts(lnames), _wholes(lnames), _postings(descs), _postings(ctxs)
        )

    def patched(
        self,
        changed: list[int],
        old: tuple[Column, Column, Column],
        new: tuple[Column, Column, Column],
    ) -> WordPostings:
        """These postings for an index of as many entries where only ``changed`` ones
        differ; ``old`` and ``new`` are each index's (names, descriptions, contexts)."""
        made = WordPostings(
            dict(self.names),
            dict(self.firsts),
            dict(self.wholes),
            dict(self.descs),
            dict(self.ctxs),
        )
        columns = (
            (made.names, 0, _words),
            (made.firsts, 0, _first),
            (made.wholes, 0, _whole),
            (made.descs, 1, _words),
            (made.ctxs, 2, _words),
        )
        for postings, column, split in columns:
            _change(postings, changed, old[column], new[column], split)
        return made


class Levels(Struct):
    """The entries at each level of one text's score for one typed word."""

    anywhere: set[int]
    word_start: set[int]
    word: set[int]


def levels(postings: Postings, term: str) -> Levels:
    """Entries whose text has a word equal to ``term``, one starting with it, or ``term``
    inside a word."""
    anywhere: set[int] = set()
    word_start: set[int] = set()
    for word, entries in postings.items():
        if term in word:
            anywhere.update(entries)
            if word.startswith(term):
                word_start.update(entries)
    return Levels(anywhere, word_start, set(postings.get(term, ())))


def starting(postings: Postings, term: str) -> set[int]:
    """Entries under the words that start with ``term``."""
    found: set[int] = set()
    for word, entries in postings.items():
        if word.startswith(term):
            found.update(entries)
    return found
