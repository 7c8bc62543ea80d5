"""A small fuzzy ranker: request or typed text against tool names and descriptions.

Two users: the command bar filters as the person types (every word typed must match
somewhere, ``require_all=True``), and the router, when the model's answer is not
trustworthy, offers the best matches of the whole request (``require_all=False``; function
words are skipped). Entries are lower-cased once when the index is built (descriptions
and contexts are split into words on first need), and an index keeps the scores of the
words it was asked about, so typing one more letter costs about a millisecond over
5,000 tools (see ``FuzzyIndex``).

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
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Sequence
from collections.abc import Set as AbstractSet
from itertools import compress
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar

from msgspec import Struct

from gibberish.assistant.budget import STOPWORDS
from gibberish.assistant.fuzzy_words import (
    NOT_NEWLINE,
    WordPostings,
    levels,
    span_source,
    starting,
)
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
CACHED_WORDS = 48
"""Words whose scores an index keeps (each at most one float per entry)."""
BULK = 256
"""From this many entries on, names are searched all at once (one regular expression)."""
BY_WORDS = 200
"""From this many entries on, a word is scored through the index's word postings."""


def _tool_name(item: SkillTool) -> str:
    return item.name if isinstance(item, ExposedTool) else item.tool.name


_SPLIT = re.compile(r"[^\W_]+")


class FuzzyMatch(Struct, Generic[T], frozen=True):
    item: T
    name: str
    score: float


def _stem(word: str) -> str:
    if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


WordTest = Callable[[str], "re.Match[str] | None"]


def _word_tests(term: str) -> tuple[WordTest, WordTest] | None:
    """Searches for ``term`` as a whole word and as a word's start (words as ``_SPLIT``
    finds them), or None when ``term`` has a character no word has: one regular
    expression per text instead of splitting every text into words."""
    if not _SPLIT.fullmatch(term):
        return None
    word = re.escape(term)
    start = f"{word}(?<![^\\W_]{word})"  # the literal first: the search skips ahead fast
    return re.compile(f"{start}(?![^\\W_])").search, re.compile(start).search


def _text_score(text: str, term: str, tests: tuple[WordTest, WordTest] | None) -> float:
    """0.45 for a word of ``text`` equal to ``term``, 0.35 for a word starting with it,
    0.20 for ``term`` anywhere, else 0."""
    if term not in text:
        return 0.0
    if tests is None:
        return 0.2
    if tests[0](text):
        return 0.45
    if tests[1](text):
        return 0.35
    return 0.2


class FuzzyIndex(Generic[T]):
    """Ranked fuzzy matching of a query against (item, name, description) entries.

    Scores of one word over every entry are kept (a few dozen words, newest kept): typing
    one more letter scores only the entries the shorter word matched (every match of
    ``comm`` contains ``com``, as a substring or as letters in order), and a new word is
    scored only on the entries every earlier word matched.
    """

    __slots__ = (
        "_blob",
        "_cache",
        "_carried",
        "_ctxs",
        "_descs",
        "_items",
        "_lnames",
        "_name_starts",
        "_names",
        "_order",
        "_prefixes",
        "_results",
        "_variants",
        "_words",
    )

    def __init__(self, entries: Iterable[tuple[T, str, str] | tuple[T, str, str, str]]) -> None:
        """``(item, name, description[, context])``: context words count for less."""
        texts: dict[str, str] = {}  # one string object per distinct text: scored once
        items: list[T] = []
        names: list[str] = []
        descs: list[str] = []
        ctxs: list[str | None] = []
        for item, name, description, *rest in entries:
            items.append(item)
            names.append(name)
            ldesc = description.lower()
            descs.append(texts.setdefault(ldesc, ldesc))
            lctx = rest[0].lower() if rest else ""
            ctxs.append(texts.setdefault(lctx, lctx) if lctx else None)
        self._setup(items, names, [n.lower() for n in names], [None] * len(names), descs, ctxs)

    def _setup(
        self,
        items: list[T],
        names: list[str],
        lnames: list[str],
        name_starts: list[str | None],
        descs: list[str],
        ctxs: list[str | None],
    ) -> None:
        """The index over prepared columns (lower-cased names, descriptions, contexts)."""
        self._items = items
        self._names = names
        self._lnames = lnames
        self._name_starts = name_starts  # each split on first need
        self._descs = descs
        self._ctxs = ctxs
        order = sorted(range(len(names)), key=names.__getitem__)  # stable: ties keep entry order
        self._order = [0] * len(names)
        for position, i in enumerate(order):
            self._order[i] = position
        self._cache: dict[str, tuple[AbstractSet[int] | None, dict[int, float]]] = {}
        self._blob: tuple[str, list[int]] | None = None
        self._words: WordPostings | None = None
        self._carried: _Carried | None = None
        self._variants: dict[str, dict[int, float]] = {}
        self._prefixes: dict[tuple[str, ...], dict[int, float]] = {}
        self._results: dict[tuple[tuple[str, ...], int | None, bool], list[FuzzyMatch[T]]] = {}

    @classmethod
    def for_tools(
        cls, tools: Iterable[S], *, name: Callable[[S], str] | None = None
    ) -> FuzzyIndex[S]:
        """An index over tools: by name (an ``ExposedTool``'s exposed name, else the
        tool's own), and as description the tool's description, the skill's name and the
        skill's description. Anything with ``.skill`` and ``.tool`` (an ``ExposedTool``,
        the Engine's ``ToolRef``) can be indexed; the command bar and the router share it."""
        get_name = name or _tool_name
        contexts: dict[int, str] = {}  # one string per skill: shared, so matched once per skill

        def context(skill: SkillDefinition) -> str:
            found = contexts.get(id(skill))
            if found is None:
                found = contexts[id(skill)] = f"{skill.name} {skill.description}"
            return found

        return FuzzyIndex((t, get_name(t), t.tool.description, context(t.skill)) for t in tools)

    def patched(self: FuzzyIndex[S], tools: Iterable[S]) -> FuzzyIndex[S]:
        """A new index over ``tools`` that reuses this one's prepared entries
        (:func:`patched_index`)."""
        return patched_index(self, tools)

    def prepare(self) -> None:
        """Split every text into words once (tens of milliseconds at 5,000 tools), so
        that a word typed later is scored per distinct word. Until this is done, words
        are scored entry by entry with the same result; a thread other than the one
        typing may run it."""
        if self._words is None:
            self._words = WordPostings.build(self._lnames, self._descs, self._ctxs)

    @property
    def prepared(self) -> bool:
        return self._words is not None

    def __len__(self) -> int:
        return len(self._items)

    def rank(
        self, query: str, limit: int | None = 10, *, require_all: bool = True
    ) -> list[FuzzyMatch[T]]:
        """Entries matching ``query``, best first. An empty query matches nothing."""
        terms = [t for t in query.lower().split() if t]
        if not require_all:
            terms = [w for w in _SPLIT.findall(" ".join(terms)) if w not in STOPWORDS]
        if not terms:
            return []
        unique = tuple(dict.fromkeys(terms))
        key = (unique, limit, require_all)
        found = self._results.get(key)
        if found is None:
            if require_all:
                totals = self._narrowed(unique)
            else:
                totals = _summed([self._variant_scores(term, None) for term in unique])
            found = self._top(totals, len(unique), limit) if totals else []
            _remember(self._results, key, found)
        return list(found)

    def _narrowed(self, terms: tuple[str, ...]) -> dict[int, float]:
        """The entries every word matches, each with the sum of its words' scores. Kept
        per word list, so the next letter typed (which changes the last word only)
        starts from the sums of the words before it."""
        found = self._prefixes.get(terms)
        if found is not None:
            return found
        if len(terms) == 1:
            found = self._variant_scores(terms[0], None)
        else:
            before = self._narrowed(terms[:-1])
            found = _added(before, self._variant_scores(terms[-1], before.keys())) if before else {}
        _remember(self._prefixes, terms, found)
        return found

    def _top(self, totals: dict[int, float], count: int, limit: int | None) -> list[FuzzyMatch[T]]:
        """The mean score (``totals`` over ``count`` words) of each entry, sorted by
        score then name (then entry order).

        Scores take few distinct values, so the cut-off score of the top ``limit`` is found
        by counting values, and only the entries at or above it are sorted.
        """
        mean: dict[float, float] = {}
        tally: Counter[float] = Counter()
        for value, times in Counter(totals.values()).items():
            mean[value] = rounded = round(value / count, 4)
            tally[rounded] += times
        order = self._order
        if limit is None or limit < 0:
            keyed = sorted((-mean[v], order[i], i) for i, v in totals.items())
            return self._matches(keyed[:limit])
        cut, above = 0.0, 0
        for rounded in sorted(tally, reverse=True):
            if above + tally[rounded] >= limit:
                cut = rounded
                break
            above += tally[rounded]
        higher = {value for value, rounded in mean.items() if rounded > cut}
        level = {value for value, rounded in mean.items() if rounded == cut}
        values = totals.values()  # picked in C: a loop here in Python cost milliseconds
        picked = compress(totals, map(higher.__contains__, values))
        keyed = sorted((-mean[totals[i]], order[i], i) for i in picked)
        tied = sorted(compress(totals, map(level.__contains__, values)), key=order.__getitem__)
        return self._matches(keyed + [(-cut, order[i], i) for i in tied[: limit - len(keyed)]])

    def _matches(self, keyed: list[tuple[float, int, int]]) -> list[FuzzyMatch[T]]:
        return [FuzzyMatch(self._items[i], self._names[i], -neg) for neg, _, i in keyed]

    def _variant_scores(self, term: str, within: AbstractSet[int] | None) -> dict[int, float]:
        """The term, its singular (95 %) and its synonyms (90 %): the best of them."""
        scores = self._scores(term, within)
        stem = _stem(term)
        variants = [(0.95, stem)] if stem != term else []
        variants += [(SYNONYM_WEIGHT, s) for s in SYNONYMS.get(term, SYNONYMS.get(stem, ()))]
        if not variants:
            return scores
        if within is None:
            found = self._variants.get(term)
            carried = self._carried.variants.pop(term, None) if self._carried is not None else None
            if found is None and carried is not None:
                found = self._carry(carried, lambda fresh: self._variant_scores(term, fresh))
                _remember(self._variants, term, found)
            if found is None:
                found = _best_of(scores, [(w, self._scores(v, None)) for w, v in variants], None)
                _remember(self._variants, term, found)
            return found
        return _best_of(scores, [(w, self._scores(v, within)) for w, v in variants], within)

    def _scores(self, term: str, within: AbstractSet[int] | None) -> dict[int, float]:
        """Non-zero scores of ``term`` on every entry of ``within`` (None: on all), at
        least; cached, and computed from the longest cached prefix when there is one."""
        cache = self._cache
        if term not in cache and self._carried is not None:
            self._take_carried(term, within)
        pool: Collection[int] | None = None
        for size in range(len(term), 0, -1):
            hit = cache.get(term[:size])
            if hit is None:
                continue
            domain, scores = hit
            if domain is not None and (within is None or not within <= domain):
                continue
            if size == len(term):
                return scores
            pool = scores if within is None else _narrow(within, scores)
            break
        if pool is None:
            pool = range(len(self._items)) if within is None else within
        words = self._by_words(term, pool)
        if words is not None:  # every entry scored: good for any later pool
            scores = self._score_by_words(words, term)
            _remember(cache, term, (None, scores))
        else:
            scores = self._score_each(term, pool, self._spans(term, pool))
            _remember(cache, term, (within, scores))
        return scores

    def _take_carried(self, term: str, within: AbstractSet[int] | None) -> None:
        """Cache ``term``'s scores from the index this one was patched from, where that
        index scored it on every entry of ``within`` that did not change since."""
        source = self._carried
        carried = source.scores.pop(term, None) if source is not None else None
        if source is None or carried is None:  # taken once: kept here from now on
            return
        domain, before = carried
        fresh = source.fresh
        if domain is not None and (within is None or not (within - fresh) <= domain):
            return
        scored = self._carry(before, lambda changed: self._score_all(term, changed))
        _remember(self._cache, term, (None if domain is None else within, scored))

    def _carry(
        self, before: dict[int, float], score: Callable[[set[int]], dict[int, float]]
    ) -> dict[int, float]:
        """Scores over every entry, from the index this one was patched from: its
        ``before`` scores for the entries that did not change, ``score`` for those that
        did (a few tools, usually)."""
        fresh = self._carried.fresh if self._carried is not None else frozenset()
        if not fresh:
            return before
        kept = dict(before)
        for i in fresh:
            kept.pop(i, None)
        kept.update((i, found) for i, found in score(set(fresh)).items() if i in fresh)
        return kept

    def _score_all(self, term: str, pool: Collection[int]) -> dict[int, float]:
        """``term`` against the entries of ``pool`` (at least); see the table in the
        module's help. A word of letters and digits over many entries is scored through
        the index's word postings, on every entry (``_by_words``), anything else entry by
        entry."""
        words = self._by_words(term, pool)
        if words is not None:
            return self._score_by_words(words, term)
        return self._score_each(term, pool, self._spans(term, pool))

    def _by_words(self, term: str, pool: Collection[int]) -> WordPostings | None:
        """The word postings to score ``term`` with over every entry, or None: entry by entry."""
        if len(pool) >= BY_WORDS and _SPLIT.fullmatch(term):
            return self._words
        return None

    def _score_by_words(self, words: WordPostings, term: str) -> dict[int, float]:
        """The levels of the score table as entry sets, lowest first, so that each
        entry ends with its best; only spans need a look at each entry. Every entry is
        scored: the sets are united in C whatever the pool, and scores kept for every
        entry serve the next words too."""
        spans = words.spans(term) if len(term) > 1 else {}
        if spans is None:
            spans = self._spans(term, range(len(self._items)))
        name = levels(words.names, term)
        desc = levels(words.descs, term)
        ctx = levels(words.ctxs, term)
        ctx.anywhere -= desc.anywhere  # a description's score replaces its context's
        ctx.anywhere -= name.anywhere
        desc.anywhere -= name.anywhere
        out = dict.fromkeys(ctx.anywhere, CONTEXT_WEIGHT * 0.2)
        out.update(dict.fromkeys(ctx.word_start & ctx.anywhere, CONTEXT_WEIGHT * 0.35))
        out.update(dict.fromkeys(ctx.word & ctx.anywhere, CONTEXT_WEIGHT * 0.45))
        out.update(dict.fromkeys(desc.anywhere, 0.2))
        out.update(dict.fromkeys(desc.word_start & desc.anywhere, 0.35))
        out.update(dict.fromkeys(desc.word & desc.anywhere, 0.45))
        for i, span in spans.items():
            if i not in name.anywhere:
                score = 0.3 + 0.2 * (len(term) / span)
                if score > out.get(i, 0.0):
                    out[i] = score
        out.update(dict.fromkeys(name.anywhere, 0.6))
        out.update(dict.fromkeys(name.word_start, 0.8))
        out.update(dict.fromkeys(starting(words.firsts, term), 0.9))
        out.update(dict.fromkeys(words.wholes.get(term, ()), 1.0))
        return out

    def _score_each(
        self, term: str, pool: Collection[int], spans: dict[int, int]
    ) -> dict[int, float]:
        """``term`` against each entry of ``pool``."""
        spaced = " " + term
        lnames, starts, descs, ctxs = self._lnames, self._name_starts, self._descs, self._ctxs
        tests = _word_tests(term)
        desc_scores: dict[str, float] = {}  # texts are shared: each is scored once
        ctx_scores: dict[str, float] = {}
        out: dict[int, float] = {}
        for i in pool:
            lname = lnames[i]
            if term in lname:
                if lname == term:
                    out[i] = 1.0
                elif lname.startswith(term):
                    out[i] = 0.9
                elif spaced in (starts[i] or self._split_name(i)):
                    out[i] = 0.8
                else:
                    out[i] = 0.6
                continue
            best = 0.0
            span = spans.get(i)
            if span is not None:
                best = 0.3 + 0.2 * (len(term) / span)
            desc = descs[i]
            score = desc_scores.get(desc)
            if score is None:
                score = desc_scores[desc] = _text_score(desc, term, tests)
            if not score:
                ctx = ctxs[i]
                if ctx is not None:
                    score = ctx_scores.get(ctx)
                    if score is None:
                        score = ctx_scores[ctx] = CONTEXT_WEIGHT * _text_score(ctx, term, tests)
            if score > best:
                best = score
            if best:
                out[i] = best
        return out

    def _split_name(self, i: int) -> str:
        """Entry ``i``'s name words, each after a space (so ``" " + word in it`` means "a
        word of the name starts with it")."""
        words = self._name_starts[i] = " " + " ".join(_SPLIT.findall(self._lnames[i]))
        return words

    def _spans(self, term: str, pool: Collection[int]) -> dict[int, int]:
        """For the entries of ``pool`` (at least) whose name holds ``term``'s letters in
        order: the length of the span from the first letter's first occurrence to the
        last letter's earliest place after it. Words of one letter have none."""
        if len(term) < 2:
            return {}
        words = self._words
        if words is not None and len(pool) >= BULK:
            found = words.spans(term)
            if found is not None:
                return found
        if len(pool) >= BULK and self._names_blob():
            blob, starts = self._blob or ("", [])
            first = re.escape(term[0])
            bulk = re.compile(
                f"^[^{first}\\n]*+(" + span_source(term, NOT_NEWLINE) + ")", re.MULTILINE
            )
            return {
                bisect_right(starts, found.start()) - 1: found.end(1) - found.start(1)
                for found in bulk.finditer(blob)
            }
        lnames = self._lnames
        match = re.compile(span_source(term, "."), re.DOTALL).match
        first = term[0]
        spans = {}
        for i in pool:
            start = lnames[i].find(first)
            hit = match(lnames[i], start) if start >= 0 else None
            if hit is not None:
                spans[i] = hit.end() - start
        return spans

    def _names_blob(self) -> bool:
        """Every name on a line of one string, made on first need: one regular expression
        over it finds the letters-in-order matches of a word in all names at once."""
        if self._blob is None:
            if any("\n" in n for n in self._lnames):
                self._blob = ("", [])
            else:
                starts, position = [], 0
                for lname in self._lnames:
                    starts.append(position)
                    position += len(lname) + 1
                self._blob = ("\n".join(self._lnames), starts)
        return bool(self._blob[1])


def _best_of(
    scores: dict[int, float],
    variants: list[tuple[float, dict[int, float]]],
    within: AbstractSet[int] | None,
) -> dict[int, float]:
    """Per entry (of ``within`` at least), the best of ``scores`` and each variant's
    scores times its weight."""
    best = dict(scores) if within is None else {i: scores[i] for i in _narrow(within, scores)}
    for weight, found in variants:
        pairs = found.items() if within is None else ((i, found[i]) for i in _narrow(within, found))
        for i, score in pairs:
            weighted = weight * score
            if weighted > best.get(i, 0.0):
                best[i] = weighted
    return best


class _Carried(Struct, frozen=True):
    """What a patched index takes from the index it was patched from: the scores of the
    words asked there, over every entry (``scores``; ``variants`` with singulars and
    synonyms), and the entries that changed since (their scores are redone). Typing
    after a library change thus costs what typing again does, not a first letter's
    scan of every tool."""

    scores: dict[str, tuple[AbstractSet[int] | None, dict[int, float]]]
    variants: dict[str, dict[int, float]]
    fresh: frozenset[int]


def _summed(per_term: list[dict[int, float]]) -> dict[int, float]:
    """Per entry matching any word, the sum of its words' scores (in word order)."""
    if len(per_term) == 1:
        return per_term[0]
    totals = {}
    for i in set().union(*per_term):
        total = 0.0
        for scores in per_term:
            total += scores.get(i, 0.0)
        totals[i] = total
    return totals


def _added(before: dict[int, float], scores: dict[int, float]) -> dict[int, float]:
    """``before``'s sums plus ``scores``, for the entries both have."""
    if len(scores) < len(before):
        return {i: before[i] + score for i, score in scores.items() if i in before}
    return {i: total + scores[i] for i, total in before.items() if i in scores}


def _remember(memo: dict, key: object, value: object) -> None:
    """Keep ``value``; the oldest of ``CACHED_WORDS`` entries makes room."""
    if len(memo) >= CACHED_WORDS:
        del memo[next(iter(memo))]
    memo[key] = value


def _narrow(within: AbstractSet[int] | None, scores: dict[int, float]) -> AbstractSet[int]:
    """The entries of ``within`` (None: all) that ``scores`` has, walking the smaller side."""
    if within is None:
        return scores.keys()
    if len(scores) < len(within):
        return {i for i in scores if i in within}
    return {i for i in within if i in scores}


def _reusable_places(old: Sequence[Any], items: list[Any]) -> tuple[list[int], list[int]]:
    """For each of ``items``, the place of the same tool in ``old`` (-1: prepare it anew),
    and the places in ``items`` that must be prepared anew (a tool of a changed skill)."""
    held = {id(item.tool): i for i, item in enumerate(old)}  # alive: ids are unique
    places = [held.get(id(item.tool), -1) for item in items]
    fresh = [
        i
        for i, (j, item) in enumerate(zip(places, items, strict=True))
        if j < 0 or old[j].skill is not item.skill
    ]
    for i in fresh:
        places[i] = -1
    return places, fresh


def patched_index(index: FuzzyIndex[S], tools: Iterable[S]) -> FuzzyIndex[S]:
    """A new index over ``tools`` (built like ``for_tools`` with the default names) that
    takes the prepared entry (lower-cased name, description and context) of every tool
    whose skill and tool objects ``index`` already holds: a library hands out a new object
    only for a changed skill, so after one edit only that skill's tools are prepared
    again. Ranking equals a fresh ``for_tools`` index."""
    old = index._items
    if not old:
        return FuzzyIndex.for_tools(tools)
    items = list(tools)
    places, fresh = _reusable_places(old, items)
    columns = (
        items,
        [index._names[j] for j in places],
        [index._lnames[j] for j in places],
        [index._name_starts[j] for j in places],
        [index._descs[j] for j in places],
        [index._ctxs[j] for j in places],
    )
    if fresh:
        made = FuzzyIndex.for_tools([items[i] for i in fresh])
        for k, i in enumerate(fresh):  # the entries at -1 (the last one's) replaced
            columns[1][i], columns[2][i] = made._names[k], made._lnames[k]
            columns[3][i], columns[4][i] = None, made._descs[k]
            columns[5][i] = made._ctxs[k]
    new: FuzzyIndex[S] = FuzzyIndex.__new__(FuzzyIndex)
    new._setup(*columns)
    if len(old) == len(items) and all(j in (i, -1) for i, j in enumerate(places)):
        _carry(index, new, fresh)
    return new


def _carry(old: FuzzyIndex[Any], new: FuzzyIndex[Any], fresh: list[int]) -> None:
    """Same tools at the same places: the word index is patched, the caches carried over."""
    if old._words is not None:
        texts = (old._lnames, old._descs, old._ctxs)
        patched = (new._lnames, new._descs, new._ctxs)
        new._words = old._words.patched(fresh, texts, patched)
    if old._cache or old._variants:
        new._carried = _Carried(dict(old._cache), dict(old._variants), frozenset(fresh))
