"""One skill's tools analysed once: the words scoring needs and each declaration's cost.

A ``SkillPart`` is what the tool index (``tool_index``) keeps per skill and what an
earlier process saved (``saved_analysis``) comes back as; it lives apart from both so
that neither imports the other to make one.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence

from msgspec import Struct, field

from gibberish.assistant.budget import NAME_WEIGHT, TEXT_WEIGHT, words
from gibberish.assistant.naming import ExposedTool
from gibberish.skills.model import SkillDefinition

Cost = Callable[[ExposedTool], int]

NAME_POINTS = int(NAME_WEIGHT)
TEXT_POINTS = int(TEXT_WEIGHT)
assert NAME_POINTS == NAME_WEIGHT and TEXT_POINTS == TEXT_WEIGHT, "postings count whole points"


class SkillPart(Struct, eq=False):
    """What scoring and budgeting need from one skill's tools, independent of any request.

    Compared and hashed by identity: a part is one analysis of one skill definition."""

    skill: SkillDefinition
    tools: tuple[ExposedTool, ...]
    name_words: tuple[Collection[str], ...]
    """Per tool: the words of its name, the skill's name and its exposed name (frozensets
    when analysed here, tuples when read from the saved analysis: only membership is
    asked, of a few words each)."""
    text_words: tuple[Collection[str], ...]
    """Per tool: the words of the descriptions and parameters that are not name words."""
    vocabulary: frozenset[str]
    """Every word of every tool."""
    costs: dict[Cost, tuple[int, ...]] = field(default_factory=dict)
    """Declaration sizes per manifest format, per tool (each rendered once)."""

    @classmethod
    def of(cls, skill: SkillDefinition, tools: Sequence[ExposedTool]) -> SkillPart:
        """Analyse ``tools`` (all of ``skill``, under their exposed names) into the words
        of ``budget.relevance``."""
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
        vocabulary = frozenset().union(*names, *texts)
        return cls(skill, tuple(tools), tuple(names), tuple(texts), vocabulary)

    def positions(self, word: str) -> list[int]:
        """The tools (index in ``tools``) holding ``word``, each listed once per point: a
        name word ``NAME_POINTS`` times, another ``TEXT_POINTS`` times."""
        found: list[int] = []
        for i, name in enumerate(self.name_words):
            if word in name:
                found += [i] * NAME_POINTS
            elif word in self.text_words[i]:
                found += [i] * TEXT_POINTS
        return found

    def cost(self, cost: Cost) -> tuple[int, ...]:
        found = self.costs.get(cost)
        if found is None:
            found = self.costs[cost] = tuple(cost(t) for t in self.tools)
        return found
