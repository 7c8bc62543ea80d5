"""The fuzzy ranker as it was before it kept scores per word: every entry, every word,
every query. Kept only to check that the faster ``FuzzyIndex`` ranks exactly the same."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from gibberish.assistant.budget import STOPWORDS
from gibberish.assistant.fuzzy import _SPLIT, CONTEXT_WEIGHT, SYNONYM_WEIGHT, SYNONYMS, _stem


@dataclass(frozen=True, slots=True)
class _Entry:
    item: Any
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
    score = _score_term(term, e)
    if score >= 1.0:
        return score
    stem = _stem(term)
    if stem != term:
        score = max(score, 0.95 * _score_term(stem, e))
    for synonym in SYNONYMS.get(term, SYNONYMS.get(stem, ())):
        score = max(score, SYNONYM_WEIGHT * _score_term(synonym, e))
    return score


def reference_entries(entries: list[tuple]) -> list[_Entry]:
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
    return built


def reference_rank(
    entries: list[_Entry], query: str, limit: int | None = 10, *, require_all: bool = True
) -> list[tuple[Any, str, float]]:
    """``(item, name, score)`` best first, as ``FuzzyIndex.rank`` returned them."""
    terms = [t for t in query.lower().split() if t]
    if not require_all:
        terms = [w for w in _SPLIT.findall(" ".join(terms)) if w not in STOPWORDS]
    if not terms:
        return []
    unique = list(dict.fromkeys(terms))
    count = len(unique)
    results = []
    for e in entries:
        total = 0.0
        for term in unique:
            s = _score_with_variants(term, e)
            if s == 0.0 and require_all:
                break
            total += s
        else:
            if total > 0.0:
                results.append((e.item, e.name, round(total / count, 4)))
    results.sort(key=lambda m: (-m[2], m[1]))
    return results if limit is None else results[:limit]
