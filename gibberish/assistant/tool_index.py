"""An index over the tools a model may be offered, built once per library change.

Choosing the tools for one request means scoring every tool against the request's words
and adding up declaration sizes (``budget``). Done from scratch, that splits every tool's
text into words and renders every declaration on every request: about half a second at
1,000 skills. The work that does not depend on the request is done here, once:

* ``SkillPart`` — one skill's tools under their exposed names: each tool's name words,
  text words, and the token cost of its declaration in each manifest format asked for
  (rendered when first needed). A part is reused by every later index for as long as the
  library hands out the same ``SkillDefinition`` object — the library keeps a skill's
  object until its files change — and its tools keep their exposed names. After one
  skill is edited, only that skill is analysed again.
* ``ToolIndex`` — the catalog of one mode (``ToolCatalog``, exposed names) and the parts'
  words and costs laid out in catalog order. A request is scored in two steps: one pass
  in C finds the tools sharing a word with it (``set.intersection`` mapped over every
  tool's words), and only those are scored and ranked in Python. Budgeting then stops as
  soon as not even the smallest declaration left could fit, so the tools unrelated to the
  request are walked only while one of them still could.
* ``ToolIndexCache`` — the Engine's indexes, one per mode, kept while the library's skill
  definitions are the very same objects (compared by identity, in order). Any reload
  that changes, adds or removes a skill hands out a different list, so the next request
  builds a new index from the parts still valid: a stale index is never used.

The choices are exactly those of ``budget.select_tools`` for the same tools, request and
budget (tests compare the two over a corpus). Only the chosen tools' declarations are
rendered for the prompt (by the client); the index renders each declaration once, to
know its size.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import chain, compress

from gibberish.assistant.budget import (
    NAME_WEIGHT,
    TEXT_WEIGHT,
    Selection,
    functiongemma_cost,
    prompt_overhead,
    words,
)
from gibberish.assistant.fuzzy import FuzzyIndex, FuzzyMatch
from gibberish.assistant.naming import ExposedTool, ToolCatalog, exposed_names
from gibberish.skills.model import Mode, SkillDefinition

Cost = Callable[[ExposedTool], int]


@dataclass(slots=True, eq=False)
class SkillPart:
    """What scoring and budgeting need from one skill's tools, independent of any request."""

    skill: SkillDefinition
    tools: tuple[ExposedTool, ...]
    name_words: tuple[frozenset[str], ...]
    text_words: tuple[frozenset[str], ...]
    """Words of the descriptions and parameters that are not already name words."""
    words: tuple[frozenset[str], ...]
    """Both of the above, per tool."""
    costs: dict[Cost, tuple[int, ...]] = field(default_factory=dict)
    """Declaration sizes per manifest format, per tool (each rendered once)."""

    @classmethod
    def of(cls, skill: SkillDefinition, tools: Sequence[ExposedTool]) -> SkillPart:
        """Analyse ``tools`` (all of ``skill``, under their exposed names)."""
        skill_words = words(skill.description)
        names, texts = [], []
        for exposed in tools:
            tool = exposed.tool
            text = [tool.description]
            for p in tool.parameters:
                text.append(p.name)
                text.append(p.description)
            name = words(f"{tool.name} {skill.name} {exposed.name}")
            names.append(name)
            texts.append((words(" ".join(text)) | skill_words) - name)
        both = tuple(n | t for n, t in zip(names, texts, strict=True))
        return cls(skill, tuple(tools), tuple(names), tuple(texts), both)

    def cost(self, cost: Cost) -> tuple[int, ...]:
        found = self.costs.get(cost)
        if found is None:
            found = self.costs[cost] = tuple(cost(t) for t in self.tools)
        return found


_Key = tuple[int, tuple[str, ...]]
"""(id of the skill definition, exposed names of its tools); the part holds the skill, so
the id cannot be reused while the part is kept."""


def _parts(
    skills: Iterable[SkillDefinition],
    mode: Mode | None,
    previous: Mapping[_Key, SkillPart],
    made: dict[_Key, SkillPart],
) -> list[SkillPart]:
    """The parts of the skills offered in ``mode``, reusing ``previous`` where still valid;
    every part used is recorded in ``made``."""
    offered = [s for s in skills if s.ok and s.tools and (mode is None or s.available_in(mode))]
    names = exposed_names([(s, t) for s in offered for t in s.tools])
    parts = []
    start = 0
    for skill in offered:
        end = start + len(skill.tools)
        key = (id(skill), tuple(names[start:end]))
        part = previous.get(key)
        if part is None or part.skill is not skill:
            tools = [ExposedTool(n, skill, t) for n, t in zip(key[1], skill.tools, strict=True)]
            part = SkillPart.of(skill, tools)
        made[key] = part
        parts.append(part)
        start = end
    return parts


@dataclass(frozen=True, slots=True)
class _CostTable:
    """Declaration costs of an index's tools in one manifest format, in catalog order."""

    costs: list[int]
    suffix_min: list[int]
    """For each position, the smallest cost from there to the end."""

    @classmethod
    def of(cls, parts: Sequence[SkillPart], cost: Cost) -> _CostTable:
        costs = list(chain.from_iterable(p.cost(cost) for p in parts))
        suffix = costs.copy()
        for i in range(len(suffix) - 2, -1, -1):
            if suffix[i + 1] < suffix[i]:
                suffix[i] = suffix[i + 1]
        return cls(costs, suffix)


class ToolIndex:
    """The tools of one mode, ready to be scored against many requests (module docstring)."""

    __slots__ = ("_costs", "_fuzzy", "_name_words", "_parts", "_text_words", "_words", "catalog")

    def __init__(self, parts: Sequence[SkillPart]) -> None:
        self._parts = tuple(parts)
        self.catalog = ToolCatalog.of_exposed(chain.from_iterable(p.tools for p in parts))
        self._words = list(chain.from_iterable(p.words for p in parts))
        self._name_words = list(chain.from_iterable(p.name_words for p in parts))
        self._text_words = list(chain.from_iterable(p.text_words for p in parts))
        self._costs: dict[Cost, _CostTable] = {}
        self._fuzzy: FuzzyIndex[ExposedTool] | None = None

    @classmethod
    def build(cls, skills: Iterable[SkillDefinition], mode: Mode | None = None) -> ToolIndex:
        """The index of the tools ``ToolCatalog.from_skills(skills, mode)`` would offer."""
        return cls(_parts(skills, mode, {}, {}))

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
        return len(self._words)

    def scores(self, wanted: frozenset[str]) -> dict[int, float]:
        """Relevance by catalog position, for every tool sharing a word with ``wanted``.

        The pass that finds those tools runs in C (``wanted.intersection`` mapped over
        every tool's words); only the tools it finds are scored in Python."""
        if not wanted:
            return {}
        names, texts = self._name_words, self._text_words
        hits = compress(range(len(names)), map(wanted.intersection, self._words))
        return {
            i: NAME_WEIGHT * len(wanted & names[i]) + TEXT_WEIGHT * len(wanted & texts[i])
            for i in hits
        }

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
        used = _greedy(_ranked(scores), table.costs, smallest, chosen, used, budget)
        used = self._fill_from_tail(scores, table, chosen, used, budget)
        everything = self.catalog.tools
        named = {everything[i].name: score for i, score in scores.items()}
        tools = tuple(everything[i] for i in chosen)
        return Selection(tools, used, budget, named, everything)

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
            if chosen and budget - used < suffix[i]:
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


def _ranked(scores: Mapping[int, float]) -> list[int]:
    """Positions by score, highest first; positions in order within a score (ties keep the
    catalog order). Scores are few distinct small numbers, so bucketing beats a sort."""
    buckets: dict[float, list[int]] = {}
    for i, score in scores.items():
        bucket = buckets.get(score)
        if bucket is None:
            buckets[score] = [i]
        else:
            bucket.append(i)
    return [i for score in sorted(buckets, reverse=True) for i in buckets[score]]


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
    return len(a) == len(b) and all(x is y for x, y in zip(a, b, strict=True))


class ToolIndexCache:
    """The Engine's tool indexes: one per mode, for one list of skill definitions.

    ``get`` is thread-safe (the model router asks from a worker thread while the tray may
    reload). An index is never changed once handed out, apart from memoized cost tables
    and its fuzzy index, which come out the same whichever thread makes them.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._skills: tuple[SkillDefinition, ...] = ()
        self._indexes: dict[Mode | None, ToolIndex] = {}
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
                alive = {id(s) for s in self._skills}
                self._parts = {k: p for k, p in self._parts.items() if k[0] in alive}
            index = self._indexes.get(mode)
            if index is None:
                made: dict[_Key, SkillPart] = {}
                index = ToolIndex(_parts(self._skills, mode, self._parts, made))
                self._parts.update(made)
                self._indexes[mode] = index
                self.builds += 1
            return index
