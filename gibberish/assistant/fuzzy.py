"""A small fuzzy ranker: request or typed text against tool names and descriptions.

Two users: the command bar filters as the person types (every word typed must match
somewhere, ``require_all=True``), and the router, when the model's answer is not
trustworthy, offers the best matches of the whole request (``require_all=False``; function
words are skipped). Entries are lower-cased and split once when the index is built, so a
query over ~1,000 tools costs a few milliseconds.

Score of one typed word against an entry (the best that applies):

====================================  =====
name equals the word                  1.00
name starts with it                   0.90
a word of the name starts with it     0.80
name contains it                      0.60
its letters appear in order in name   0.30–0.50 (tighter spans score higher)
a description word equals it          0.45
a description word starts with it     0.35
description contains it               0.20
====================================  =====

A word also tries its singular (``commits`` → ``commit``) at 95 % and its synonyms
(``SYNONYMS``: ``last`` → ``recent``, ``changes`` → ``diff`` …) at 90 %. Words of the
entry's *context* (for a tool: its skill's name and description, which every tool of the
skill shares) count at 60 % of a description word, so "show me the last 5 commits"
picks the tool whose own description speaks of recent commits over a sibling whose
skill merely mentions commits. The entry's score is the mean over the query's words, in
0..1; results are sorted by score, then by name.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, Protocol, TypeVar

from gibberish.assistant.budget import STOPWORDS
from gibberish.assistant.naming import ExposedTool

if TYPE_CHECKING:
    from gibberish.skills.model import SkillDefinition, ToolDefinition

T = TypeVar("T")


class SkillTool(Protocol):
    """One tool of one skill, as the command bar (``ToolRef``) and the model feed
    (``ExposedTool``) each hold it."""

    @property
    def skill(self) -> SkillDefinition: ...

    @property
    def tool(self) -> ToolDefinition: ...


S = TypeVar("S", bound=SkillTool)


SYNONYMS: dict[str, tuple[str, ...]] = {
    "last": ("recent", "latest", "newest"),
    "latest": ("recent", "last", "newest"),
    "newest": ("recent", "latest"),
    "recent": ("last", "latest"),
    "history": ("log", "recent"),
    "changes": ("diff", "changed", "modified"),
    "changed": ("diff", "changes", "modified"),
    "difference": ("diff",),
    "differences": ("diff",),
    "remove": ("delete",),
    "delete": ("remove",),
    "find": ("search",),
    "search": ("find", "grep"),
    "show": ("list", "print"),
    "list": ("show",),
    "note": ("notes",),
    "space": ("disk", "usage"),
    "size": ("disk", "usage"),
}
"""Words a person says for what a tool's name or description says differently."""
SYNONYM_WEIGHT = 0.9
CONTEXT_WEIGHT = 0.6


def _tool_name(item: SkillTool) -> str:
    return item.name if isinstance(item, ExposedTool) else item.tool.name


_SPLIT = re.compile(r"[^\W_]+")


@dataclass(frozen=True, slots=True)
class FuzzyMatch(Generic[T]):
    item: T
    name: str
    score: float


@dataclass(frozen=True, slots=True)
class _Entry(Generic[T]):
    item: T
    name: str
    lname: str
    name_words: tuple[str, ...]
    ldesc: str
    desc_words: frozenset[str]
    desc_words_sorted: tuple[str, ...]
    lctx: str = ""
    ctx_words: frozenset[str] = frozenset()
    ctx_words_sorted: tuple[str, ...] = ()


def _subsequence_span(term: str, text: str) -> int | None:
    pos = text.find(term[0])
    if pos < 0:
        return None
    first = pos
    for ch in term[1:]:
        pos = text.find(ch, pos + 1)
        if pos < 0:
            return None
    return pos - first + 1


def _score_term(term: str, e: _Entry) -> float:
    lname = e.lname
    if term in lname:
        if lname == term:
            return 1.0
        if lname.startswith(term):
            return 0.9
        for w in e.name_words:
            if w.startswith(term):
                return 0.8
        return 0.6
    best = 0.0
    if len(term) >= 2:
        span = _subsequence_span(term, lname)
        if span is not None:
            best = 0.3 + 0.2 * (len(term) / span)
    found = _score_text(term, e.ldesc, e.desc_words, e.desc_words_sorted)
    if not found and e.lctx:
        found = CONTEXT_WEIGHT * _score_text(term, e.lctx, e.ctx_words, e.ctx_words_sorted)
    return max(best, found)


def _score_text(term: str, text: str, words: frozenset[str], ordered: tuple[str, ...]) -> float:
    if term not in text:
        return 0.0
    if term in words:
        return 0.45
    for w in ordered:
        if w.startswith(term):
            return 0.35
    return 0.2


def _score_with_variants(term: str, e: _Entry) -> float:
    """The term, its singular (95 %) and its synonyms (90 %): the best of them."""
    score = _score_term(term, e)
    if score >= 1.0:
        return score
    stem = _stem(term)
    if stem != term:
        score = max(score, 0.95 * _score_term(stem, e))
    for synonym in SYNONYMS.get(term, SYNONYMS.get(stem, ())):
        score = max(score, SYNONYM_WEIGHT * _score_term(synonym, e))
    return score


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


class FuzzyIndex(Generic[T]):
    """Ranked fuzzy matching of a query against (item, name, description) entries."""

    __slots__ = ("_entries",)

    def __init__(self, entries: Iterable[tuple[T, str, str] | tuple[T, str, str, str]]) -> None:
        """``(item, name, description[, context])``: context words count for less."""
        built = []
        for item, name, description, *rest in entries:
            lname = name.lower()
            ldesc = description.lower()
            lctx = rest[0].lower() if rest else ""
            dwords = frozenset(_SPLIT.findall(ldesc))
            cwords = frozenset(_SPLIT.findall(lctx))
            built.append(
                _Entry(
                    item,
                    name,
                    lname,
                    tuple(_SPLIT.findall(lname)),
                    ldesc,
                    dwords,
                    tuple(sorted(dwords)),
                    lctx,
                    cwords,
                    tuple(sorted(cwords)),
                )
            )
        self._entries: tuple[_Entry[T], ...] = tuple(built)

    @classmethod
    def for_tools(
        cls, tools: Iterable[S], *, name: Callable[[S], str] | None = None
    ) -> FuzzyIndex[S]:
        """An index over tools: by name (an ``ExposedTool``'s exposed name, else the
        tool's own), and as description the tool's description, the skill's name and the
        skill's description. Anything with ``.skill`` and ``.tool`` (an ``ExposedTool``,
        the Engine's ``ToolRef``) can be indexed; the command bar and the router share it."""
        get_name = name or _tool_name
        return FuzzyIndex(
            (t, get_name(t), t.tool.description, f"{t.skill.name} {t.skill.description}")
            for t in tools
        )

    def __len__(self) -> int:
        return len(self._entries)

    def rank(
        self, query: str, limit: int | None = 10, *, require_all: bool = True
    ) -> list[FuzzyMatch[T]]:
        """Entries matching ``query``, best first. An empty query matches nothing."""
        terms = [t for t in query.lower().split() if t]
        if not require_all:
            terms = [w for w in _SPLIT.findall(" ".join(terms)) if w not in STOPWORDS]
        if not terms:
            return []
        unique = list(dict.fromkeys(terms))
        count = len(unique)
        results: list[FuzzyMatch[T]] = []
        for e in self._entries:
            total = 0.0
            for term in unique:
                s = _score_with_variants(term, e)
                if s == 0.0 and require_all:
                    break
                total += s
            else:
                if total > 0.0:
                    results.append(FuzzyMatch(e.item, e.name, round(total / count, 4)))
        results.sort(key=lambda m: (-m.score, m.name))
        return results if limit is None else results[:limit]
