"""The names a model sees for our tools, and the exact way back from a name to a tool.

A model calls a tool by one string. Tool names are only unique *inside* a skill, so when two
skills offer a tool of the same name, both are exposed qualified as ``skill__tool``; a tool
whose name is unique keeps its plain name (shorter prompts, and the name the skill author
chose). The mapping back is a dictionary lookup, never a guess.

Why ``__`` and why ``-`` is kept: skill names are ``[a-z0-9-]`` and never contain ``_``, tool
names are ``[a-z0-9_]``. So the first ``__`` in a qualified name always ends the skill part,
and ``split_qualified`` recovers (skill, tool) exactly, even for a tool called ``a__b``.
``-`` is kept as is: FunctionGemma reads a name up to ``{``, and OpenAI-style function names
allow ``[a-zA-Z0-9_-]``. OpenAI caps names at 64 characters; a longer qualified name keeps
the tool part whole and shortens the skill part, adding 6 hex digits of its SHA-256 so two
long skill names stay apart. Should two entries still end up with one name (two skills with
the same name from different folders), later ones get ``_2``, ``_3`` … in input order.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from operator import attrgetter

from msgspec import Struct

from gibberish.skills.model import Mode, ParameterDefinition, SkillDefinition, ToolDefinition

_exposed_name = attrgetter("name")

SEPARATOR = "__"
MAX_NAME_LENGTH = 64


class ExposedTool(Struct, frozen=True, eq=False):
    """One tool as a model sees it: the exposed ``name`` plus the skill and tool behind it."""

    name: str
    skill: SkillDefinition
    tool: ToolDefinition

    @property
    def skill_name(self) -> str:
        return self.skill.name

    @property
    def tool_name(self) -> str:
        return self.tool.name

    @property
    def description(self) -> str:
        return self.tool.description

    @property
    def parameters(self) -> tuple[ParameterDefinition, ...]:
        return self.tool.parameters

    @property
    def qualified(self) -> bool:
        return self.name != self.tool.name

    def __repr__(self) -> str:
        return f"ExposedTool({self.name!r} -> {self.skill.name}/{self.tool.name})"


def qualified_name(skill_name: str, tool_name: str) -> str:
    """``skill__tool``, shortened to 64 characters when needed (see the module docstring)."""
    name = f"{skill_name}{SEPARATOR}{tool_name}"
    if len(name) <= MAX_NAME_LENGTH:
        return name
    digest = hashlib.sha256(skill_name.encode()).hexdigest()[:6]
    room = MAX_NAME_LENGTH - len(SEPARATOR) - len(tool_name) - len(digest) - 1
    if room < 1:  # tool names are at most 32 characters, so this does not happen in practice
        return name[:MAX_NAME_LENGTH]
    return f"{skill_name[:room].rstrip('-')}-{digest}{SEPARATOR}{tool_name}"


def split_qualified(name: str) -> tuple[str, str] | None:
    """``("git", "log")`` for ``"git__log"``; None when ``name`` is not qualified."""
    skill, sep, tool = name.partition(SEPARATOR)
    if not sep or not skill or not tool:
        return None
    return skill, tool


def exposed_names(pairs: Sequence[tuple[SkillDefinition, ToolDefinition]]) -> list[str]:
    """The exposed name of every (skill, tool) pair, in input order (module docstring)."""
    counts = Counter(tool.name for _, tool in pairs)
    names = [
        tool.name if counts[tool.name] == 1 else qualified_name(skill.name, tool.name)
        for skill, tool in pairs
    ]
    # A plain name can equal another pair's qualified name (a tool literally called
    # "git__log"); qualify the plain one too, then make any remaining clash unique.
    taken = {n for n, (_, tool) in zip(names, pairs, strict=True) if n != tool.name}
    if taken:
        names = [
            qualified_name(skill.name, tool.name) if n == tool.name and n in taken else n
            for n, (skill, tool) in zip(names, pairs, strict=True)
        ]
    if len(set(names)) == len(names):
        return names
    seen: dict[str, int] = {}
    result = []
    for name in names:
        final = name
        if name in seen:
            seen[name] += 1
            final = f"{name}_{seen[name]}"
            while final in seen:
                seen[name] += 1
                final = f"{name}_{seen[name]}"
        seen.setdefault(final, 1)
        result.append(final)
    return result


def expose(entries: Iterable[tuple[SkillDefinition, ToolDefinition]]) -> list[ExposedTool]:
    """Give every (skill, tool) pair its exposed name, in input order."""
    pairs = list(entries)
    names = exposed_names(pairs)
    return [ExposedTool(n, s, t) for n, (s, t) in zip(names, pairs, strict=True)]


class ToolCatalog:
    """The tools offered to a model, and the exact mapping name → (skill, tool).

    ``resolve`` accepts the exposed name, and also the qualified ``skill__tool`` form of a
    tool that is exposed under its plain name (a model may qualify on its own; the match is
    still exact, never fuzzy).
    """

    __slots__ = ("_by_name", "_qualified", "_tools")

    def __init__(self, entries: Iterable[tuple[SkillDefinition, ToolDefinition]] = ()) -> None:
        self._tools: tuple[ExposedTool, ...] = tuple(expose(entries))
        self._by_name = {t.name: t for t in self._tools}
        self._qualified: dict[tuple[str, str], ExposedTool] | None = None

    @classmethod
    def from_skills(
        cls, skills: Iterable[SkillDefinition], mode: Mode | None = None
    ) -> ToolCatalog:
        """Every tool of every loaded skill, keeping only skills offered in ``mode`` (if given).

        Broken skills (``ok`` is False) and instruction skills (no tools) offer nothing.
        """
        return cls(
            (skill, tool)
            for skill in skills
            if skill.ok and (mode is None or skill.available_in(mode))
            for tool in skill.tools
        )

    @classmethod
    def of_exposed(cls, tools: Iterable[ExposedTool]) -> ToolCatalog:
        """A catalog over tools that already carry their exposed names (keeps the names)."""
        catalog = cls()
        catalog._tools = tuple(tools)
        catalog._by_name = dict(
            zip(map(_exposed_name, catalog._tools), catalog._tools, strict=True)
        )
        return catalog

    def _by_pair(self) -> dict[tuple[str, str], ExposedTool]:
        """(skill, tool) → tool; built on first use (a resolve by exposed name needs none)."""
        if self._qualified is None:
            self._qualified = {(t.skill.name, t.tool.name): t for t in self._tools}
        return self._qualified

    @property
    def tools(self) -> tuple[ExposedTool, ...]:
        return self._tools

    def names(self) -> list[str]:
        return [t.name for t in self._tools]

    def resolve(self, name: str) -> ExposedTool | None:
        found = self._by_name.get(name)
        if found is not None:
            return found
        split = split_qualified(name)
        return self._by_pair().get(split) if split else None

    def find(self, skill_name: str, tool_name: str) -> ExposedTool | None:
        return self._by_pair().get((skill_name, tool_name))

    def subset(self, names: Sequence[str]) -> list[ExposedTool]:
        return [t for n in names if (t := self.resolve(n)) is not None]

    def __len__(self) -> int:
        return len(self._tools)

    def __iter__(self) -> Iterator[ExposedTool]:
        return iter(self._tools)

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self.resolve(name) is not None

    def __repr__(self) -> str:
        return f"ToolCatalog({self.names()!r})"
