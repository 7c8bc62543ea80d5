"""An index over the tools a model may be offered, built once per library change.

Choosing the tools for one request means scoring every tool against the request's words
and adding up declaration sizes (``budget``). Done from scratch, that splits every tool's
text into words and renders every declaration on every request: about half a second at
1,000 skills. The work that does not depend on the request is done here, once:

* ``SkillPart`` (``skill_part``) — one skill's tools under their exposed names: each
  tool's name words and text words (``budget.relevance``), the set of all its words, and the token cost of each
  declaration in each manifest format asked for (rendered once, when first needed). A
  part is reused for as long as the library hands out the same ``SkillDefinition``
  object — the library keeps a skill's object until its files change — and its tools
  keep their exposed names. After one skill is edited, only that skill is analysed again.
* ``ToolIndex`` — the catalog of one mode (``ToolCatalog``, exposed names), its parts in
  order and the cost tables. A request is scored from the postings of its own words only
  (word → catalog positions, made the first time a request has the word: one pass in C
  over the parts' word sets for all of a request's new words, then only the parts using
  one are looked into), so tools that share no word with the request are never scored. Budgeting walks the tools
  by relevance and stops as soon as not even the smallest declaration left could fit.
* ``ToolIndexCache`` — the Engine's indexes, one per mode, kept while the library's skill
  definitions are the very same objects (compared by identity, in order). Any reload
  that changes, adds or removes a skill hands out a different list, so the next request
  builds a new index from the parts still valid: a stale index is never used. When no
  skill or tool name changed, the new index is the last one patched (``patched``).

The choices are exactly those of ``budget.select_tools`` for the same tools, request and
budget (tests compare the two over a corpus). Only the chosen tools' declarations are
rendered for the prompt (by the client).
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import accumulate, chain, compress
from operator import is_, is_not
from typing import TYPE_CHECKING

from msgspec import Struct

from gibberish.assistant.budget import (
    Selection,
    functiongemma_cost,
    prompt_overhead,
    words,
)
from gibberish.assistant.fuzzy import FuzzyIndex, FuzzyMatch
from gibberish.assistant.naming import ExposedTool, ToolCatalog, exposed_names
from gibberish.assistant.skill_part import NAME_POINTS, TEXT_POINTS, Cost, SkillPart
from gibberish.skills.cache import without_collection
from gibberish.skills.model import Mode, SkillDefinition

if TYPE_CHECKING:
    from gibberish.assistant.saved_analysis import SavedAnalyses

_Key = tuple[int, tuple[str, ...]]
"""(id of the skill definition, exposed names of its tools); the part holds the skill, so
the id cannot be reused while the part is kept."""


class _Layout(Struct, frozen=True):
    """The skills one mode offers, their tools' exposed names and their parts, in order."""

    offered: tuple[SkillDefinition, ...]
    names: list[str]
    parts: tuple[SkillPart, ...]


_EMPTY_LAYOUT = _Layout((), [], ())


def _same_shape(a: SkillDefinition, b: SkillDefinition) -> bool:
    """Same skill name and tool names: the exposed names cannot differ."""
    return a is b or (a.name == b.name and [t.name for t in a.tools] == [t.name for t in b.tools])


def _layout(
    skills: Iterable[SkillDefinition],
    mode: Mode | None,
    before: _Layout,
    previous: Mapping[_Key, SkillPart],
    made: dict[_Key, SkillPart],
    analyse: Callable[[SkillDefinition, Sequence[ExposedTool]], SkillPart] = SkillPart.of,
) -> _Layout:
    """The layout of ``mode`` over ``skills``. What ``before`` (the last layout of the mode)
    and ``previous`` (parts of other modes) still hold is reused: the exposed names when
    no skill or tool name changed, and the part of every skill definition that is the same
    object under the same names. Every part made or reused is recorded in ``made``; a new
    part comes from ``analyse`` (a saved analysis, or ``SkillPart.of``)."""
    offered = tuple(
        s
        for s in skills
        if s.tools and (not s.diagnostics or s.ok) and (mode is None or s.available_in(mode))
    )
    same = len(offered) == len(before.offered) and all(map(_same_shape, offered, before.offered))
    names = before.names if same else exposed_names([(s, t) for s in offered for t in s.tools])
    parts = []
    start = 0
    for i, skill in enumerate(offered):
        end = start + len(skill.tools)
        if same and skill is before.offered[i]:
            part = before.parts[i]
        else:
            key = (id(skill), tuple(names[start:end]))
            found = previous.get(key) or made.get(key)
            if found is None or found.skill is not skill:
                tools = [ExposedTool(n, skill, t) for n, t in zip(key[1], skill.tools, strict=True)]
                found = made[key] = analyse(skill, tools)
            part = found
        parts.append(part)
        start = end
    return _Layout(offered, names, tuple(parts))


class _CostTable(Struct, frozen=True):
    """Declaration costs of an index's tools in one manifest format, in catalog order."""

    costs: list[int]
    suffix_min: list[int]
    """For each block of ``BLOCK`` positions, the smallest cost from its start to the end
    (a lower bound for any position in the block; blocks keep a patch cheap)."""
    format: Cost

    @classmethod
    def of(cls, parts: Sequence[SkillPart], cost: Cost) -> _CostTable:
        costs = list(chain.from_iterable(p.cost(cost) for p in parts))
        return cls(costs, _suffix_min(costs), cost)

    def patched(
        self, parts: Sequence[SkillPart], changed: Iterable[int], starts: Sequence[int]
    ) -> _CostTable:
        """The table with the costs of the parts at slots ``changed`` taken from ``parts``."""
        costs = self.costs.copy()
        cost = self.format
        for k in changed:
            costs[starts[k] : starts[k + 1]] = parts[k].cost(cost)
        return _CostTable(costs, _suffix_min(costs), cost)


BLOCK = 64


def _suffix_min(costs: list[int]) -> list[int]:
    """For each block of ``BLOCK`` costs, the smallest from its start to the end."""
    blocks = [min(costs[i : i + BLOCK]) for i in range(0, len(costs), BLOCK)]
    suffix = list(accumulate(reversed(blocks), min))
    suffix.reverse()
    return suffix


class ToolIndex:
    """The tools of one mode, ready to be scored against many requests (module docstring)."""

    __slots__ = (
        "_costs",
        "_fuzzy",
        "_inherited",
        "_parts",
        "_postings",
        "_starts",
        "_vocabularies",
        "catalog",
    )

    def __init__(self, parts: Sequence[SkillPart]) -> None:
        self._parts = tuple(parts)
        self.catalog = ToolCatalog.of_exposed(chain.from_iterable(p.tools for p in parts))
        self._starts = list(accumulate((len(p.tools) for p in self._parts), initial=0))
        self._vocabularies = [p.vocabulary for p in self._parts]
        self._postings: dict[str, list[int]] = {}
        self._costs: dict[Cost, _CostTable] = {}
        self._fuzzy: FuzzyIndex[ExposedTool] | None = None
        self._inherited: tuple[Mapping[str, list[int]], list[int]] | None = None
        """Postings of the index this one was patched from, and the positions that changed."""

    def patched(self, parts: Sequence[SkillPart]) -> ToolIndex:
        """This index with some parts replaced by parts of the same exposed names (so every
        tool keeps its position): what changed is copied in, the rest is shared or copied
        whole; postings this index made are carried over, the changed positions redone."""
        parts = tuple(parts)
        changed = list(compress(range(len(parts)), map(is_not, parts, self._parts)))
        new = ToolIndex.__new__(ToolIndex)
        new._parts, new._starts = parts, self._starts
        tools = list(self.catalog.tools)
        new._vocabularies = self._vocabularies.copy()
        for k in changed:
            tools[self._starts[k] : self._starts[k + 1]] = parts[k].tools
            new._vocabularies[k] = parts[k].vocabulary
        new.catalog = ToolCatalog.of_exposed(tools)
        new._costs = {c: t.patched(parts, changed, self._starts) for c, t in self._costs.items()}
        new._fuzzy = None
        new._postings = {}
        moved = [i for k in changed for i in range(self._starts[k], self._starts[k + 1])]
        new._inherited = (self._postings, moved)
        return new

    @classmethod
    def build(cls, skills: Iterable[SkillDefinition], mode: Mode | None = None) -> ToolIndex:
        """The index of the tools ``ToolCatalog.from_skills(skills, mode)`` would offer."""
        return cls(_layout(skills, mode, _EMPTY_LAYOUT, {}, {}).parts)

    @classmethod
    def of_tools(cls, tools: Iterable[ExposedTool]) -> ToolIndex:
        """An index over tools that already carry their exposed names (the very objects)."""
        return cls([SkillPart.of(t.skill, [t]) for t in tools])

    @property
    def tools(self) -> tuple[ExposedTool, ...]:
        return self.catalog.tools

    @property
    def parts(self) -> tuple[SkillPart, ...]:
        return self._parts

    def __len__(self) -> int:
        return len(self.catalog.tools)

    def _learn(self, wanted: frozenset[str]) -> None:
        """Make the postings of the words of ``wanted`` this index has not seen: carried
        over from the index this one was patched from where it made them, else found
        together — one pass in C over the parts' word sets finds the parts using any of
        them, and only those parts are looked into."""
        new = {w for w in wanted if w not in self._postings}
        if self._inherited is not None:
            new -= {w for w in new if self._carried(w)}
        if not new:
            return
        unseen = frozenset(new)
        found: dict[str, list[int]] = {w: [] for w in unseen}
        vocabularies, parts, starts = self._vocabularies, self._parts, self._starts
        for k in compress(range(len(parts)), map(unseen.intersection, vocabularies)):
            part, start = parts[k], starts[k]
            names, texts = part.name_words, part.text_words
            for word in unseen.intersection(vocabularies[k]):
                into = found[word]
                for i, name in enumerate(names, start):  # ``positions``, inlined: the hot loop
                    if word in name:
                        into += [i] * NAME_POINTS
                    elif word in texts[i - start]:
                        into += [i] * TEXT_POINTS
        self._postings.update(found)

    def _carried(self, word: str) -> bool:
        """Take the posting of the index this one was patched from, with the changed
        tools' positions taken out and found again; False when that index never made it."""
        assert self._inherited is not None
        old, moved = self._inherited
        before = old.get(word)
        if before is None:
            return False
        gone = set(moved)
        found = [i for i in before if i not in gone]
        for k in sorted({bisect_right(self._starts, i) - 1 for i in moved}):
            found.extend(map(self._starts[k].__add__, self._parts[k].positions(word)))
        self._postings[word] = found
        return True

    def scores(self, wanted: frozenset[str]) -> Counter[int]:
        """``budget.relevance`` by catalog position, for every tool sharing a word with
        ``wanted`` (the others are absent): the request words' postings (each position
        once per point), counted in C."""
        self._learn(wanted)
        scores: Counter[int] = Counter()
        for word in wanted:
            scores.update(self._postings[word])
        return scores

    def cost_table(self, cost: Cost) -> _CostTable:
        table = self._costs.get(cost)
        if table is None:
            table = self._costs[cost] = _CostTable.of(self._parts, cost)
        return table

    def select(
        self,
        request: str,
        budget: int,
        *,
        cost: Cost = functiongemma_cost,
        overhead: int | None = None,
    ) -> Selection:
        """``budget.select_tools`` over this index's tools: the tools sharing a word with the
        request, most relevant first, then the others in catalog order, each taken whole
        when it fits — but a tool is looked at only while one of its size could fit."""
        used = prompt_overhead(request) if overhead is None else overhead
        scores = self.scores(words(request))
        table = self.cost_table(cost)
        chosen: list[int] = []
        smallest = table.suffix_min[0] if table.costs else 0
        # sorting is stable, also in reverse: ties keep the catalog order
        ranked = sorted(sorted(scores), key=scores.__getitem__, reverse=True)
        used = _greedy(ranked, table.costs, smallest, chosen, used, budget)
        used = self._fill_from_tail(scores, table, chosen, used, budget)
        everything = self.catalog.tools
        return Selection(
            tuple(map(everything.__getitem__, chosen)), used, budget, scores, everything
        )

    def _fill_from_tail(
        self,
        scores: Mapping[int, float],
        table: _CostTable,
        chosen: list[int],
        used: int,
        budget: int,
    ) -> int:
        """Tools that share no word with the request, in catalog order, while one could fit."""
        costs, suffix = table.costs, table.suffix_min
        for i in range(len(costs)):
            if chosen and budget - used < suffix[i // BLOCK]:
                break
            if i not in scores and (used + costs[i] <= budget or not chosen):
                chosen.append(i)
                used += costs[i]
        return used

    def candidates(self, request: str, limit: int) -> tuple[FuzzyMatch[ExposedTool], ...]:
        """The best fuzzy matches of the whole request (the fuzzy index is built once)."""
        if self._fuzzy is None:
            self._fuzzy = FuzzyIndex.for_tools(self.catalog.tools)
        return tuple(self._fuzzy.rank(request, limit, require_all=False))


def _greedy(
    ranked: Iterable[int],
    costs: Sequence[int],
    smallest: int,
    chosen: list[int],
    used: int,
    budget: int,
) -> int:
    """Take each tool of ``ranked`` that fits (the first always); stop once not even the
    smallest declaration of the index could fit any more. Returns the tokens used."""
    for i in ranked:
        if chosen and budget - used < smallest:
            break
        size = costs[i]
        if used + size <= budget or not chosen:
            chosen.append(i)
            used += size
    return used


def _same_skills(a: Sequence[SkillDefinition], b: Sequence[SkillDefinition]) -> bool:
    return len(a) == len(b) and all(map(is_, a, b))


class ToolIndexCache:
    """The Engine's tool indexes: one per mode, for one list of skill definitions.

    ``get`` is thread-safe (the model router asks from a worker thread while the tray may
    reload). An index is never changed once handed out, apart from memoized postings,
    cost tables and its fuzzy index, which come out the same whichever thread makes them.
    """

    def __init__(self, saved: SavedAnalyses | None = None) -> None:
        self._lock = threading.Lock()
        self._saved = saved
        """The analyses an earlier process saved (``saved_analysis.py``), if any."""
        self._skills: tuple[SkillDefinition, ...] = ()
        self._indexes: dict[Mode | None, ToolIndex] = {}
        self._layouts: dict[Mode | None, _Layout] = {}
        self._last: dict[Mode | None, ToolIndex] = {}
        """The latest index of each mode, current or not (the base of the next one)."""
        self._parts: dict[_Key, SkillPart] = {}
        self.builds = 0
        """How many indexes were built (for tests and the benchmark)."""

    def get(self, skills: Sequence[SkillDefinition], mode: Mode | None = None) -> ToolIndex:
        """The index of ``skills`` in ``mode``: the cached one while ``skills`` are the
        same objects as last time, else a new one (reusing unchanged skills' parts)."""
        with self._lock:
            if not _same_skills(skills, self._skills):
                self._skills = tuple(skills)
                self._indexes = {}
                if self._saved is not None:
                    self._saved.refresh()
            index = self._indexes.get(mode)
            if index is None:
                index = self._indexes[mode] = self._build(mode)
            return index

    def _build(self, mode: Mode | None) -> ToolIndex:
        made: dict[_Key, SkillPart] = {}
        before = self._layouts.get(mode, _EMPTY_LAYOUT)
        with without_collection():  # thousands of lasting objects: no collector passes
            layout = self._layouts[mode] = _layout(
                self._skills, mode, before, self._parts, made, self._analyse
            )
        self._parts.update(made)
        in_use = sum(len(kept.parts) for kept in self._layouts.values())
        if len(self._parts) > 2 * in_use + 64:  # forget parts no layout uses (now and then)
            used = {id(p) for kept in self._layouts.values() for p in kept.parts}
            self._parts = {k: p for k, p in self._parts.items() if id(p) in used}
        self.builds += 1
        last = self._last.get(mode)
        if last is not None and layout.names is before.names and last.parts is before.parts:
            index = last.patched(layout.parts)  # same skills and names: patch what changed
        else:
            index = ToolIndex(layout.parts)
        self._last[mode] = index
        return index

    def _analyse(self, skill: SkillDefinition, tools: Sequence[ExposedTool]) -> SkillPart:
        saved = self._saved.part(skill, tools) if self._saved is not None else None
        return saved if saved is not None else SkillPart.of(skill, tools)

    def save(self, index: ToolIndex, cost: Cost = functiongemma_cost) -> bool:
        """Save the analyses in use when some were made afresh (with the declaration sizes
        of ``cost``, which ``index`` computes now if it has not yet); True if written."""
        with self._lock:
            if self._saved is None or not self._saved.unsaved:
                return False
            index.cost_table(cost)
            in_use = {id(p): p for kept in self._layouts.values() for p in kept.parts}
            return self._saved.save(in_use.values())
