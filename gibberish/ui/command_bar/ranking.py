"""Which tools the command bar lists, in which order: its ranking, apart from its widgets.

Typing ranks every tool offered with ``assistant.fuzzy.FuzzyIndex`` (the same ranker the
model router falls back on) and keeps word matches ahead of looser ones; the empty query
lists pinned tools, recent runs and suggestions. None of this needs a widget, so it lives
here and the bar only shows what it is given.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from gibberish.paths import home_short
from gibberish.ui.formatting import arguments_text, human_title, plain_text

if TYPE_CHECKING:
    from gibberish.assistant.fuzzy import FuzzyIndex, FuzzyMatch
    from gibberish.engine.core import ToolRef
    from gibberish.engine.run_history import PastRun
    from gibberish.skills.model import SkillDefinition, ToolDefinition

__all__ = ["MAX_RESULTS", "Row", "ToolRanker", "most_used"]

_WORD = re.compile(r"[^\W_]+")
MAX_RESULTS = 12
RECENT_SHOWN = 5
WEAK_BESIDE_STRONG = 0.5
"""A match on no word of the title or description is listed beside word matches only
from this score (its name holds the letters closely)."""
WEAK_ALONE = 0.3
"""... and alone (nothing matched on a word: a typo, letters of a name) from this one."""


class Row:
    """What a row says besides its tool: a tag ("Pinned", "Recent") and, for a recent
    run, the run to start again with its arguments in words."""

    __slots__ = ("past", "subtitle", "tag")

    def __init__(self, tag: str = "", subtitle: str = "", past: PastRun | None = None) -> None:
        self.tag = tag
        self.subtitle = subtitle
        self.past = past


def most_used(
    history: Sequence[str], tools: Sequence[ToolRef], position: Callable[[], dict[str, int]]
) -> list[ToolRef]:
    """With no text typed: the tools run most often lately first (ties: the most recent),
    then the rest of ``tools`` (sorted by name) up to ``MAX_RESULTS``. ``position`` gives
    each ref's place in ``tools`` (made only when something was run)."""
    counts: dict[str, int] = {}
    newest: dict[str, int] = {}
    for place, name in enumerate(history):
        counts[name] = counts.get(name, 0) + 1
        newest.setdefault(name, place)
    positions = position() if counts else {}
    used = sorted(
        (positions[ref] for ref in counts if ref in positions),
        key=lambda i: (-counts[tools[i].ref], newest[tools[i].ref], i),
    )
    chosen = [tools[i] for i in used[:MAX_RESULTS]]
    taken = set(used)
    for i, ref in enumerate(tools):
        if len(chosen) >= MAX_RESULTS:
            break
        if i not in taken:
            chosen.append(ref)
    return chosen


def _prepared_index(offered: list[ToolRef]) -> tuple[list[ToolRef], FuzzyIndex[ToolRef]]:
    """``offered`` sorted by name and a prepared index over them (run on a worker)."""
    from gibberish.assistant.fuzzy import FuzzyIndex  # loaded on that thread

    ordered = by_name(offered)
    index = FuzzyIndex.for_tools(ordered)
    index.prepare()
    return ordered, index


def by_name(tools: Sequence[ToolRef]) -> list[ToolRef]:
    """``tools`` sorted by tool name, then skill name. One string per key, made in one
    pass (names hold no NUL, which sorts before every other character, so this orders
    like the pair): a third faster than a key function returning tuples."""
    keys = [f"{r.tool.name}\0{r.skill.name}" for r in tools]
    return [tools[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]


def same_tools(tools: Sequence[ToolRef], before: Sequence[ToolRef]) -> bool:
    """The same skill and tool objects in the same order (a reloaded skill is a new object)."""
    return len(tools) == len(before) and all(
        a.skill is b.skill and a.tool is b.tool for a, b in zip(tools, before, strict=True)
    )


class Haystacks:
    """Each tool's title, description and skill name as one lower-cased string of words,
    each word after a space, so that "a word starts with ``t``" is one substring search
    for `` t`` (``t`` is itself a run of letters and digits, so it can neither hold nor
    straddle a space).

    Made once per tool and kept while the tool is the same object: a reloaded skill
    brings new tool objects, whose texts are split again; the tools of unchanged skills
    keep theirs across library changes.
    """

    __slots__ = ("_made",)
    LIMIT = 20_000
    """Kept tools before the store starts afresh (tools of many libraries ago)."""

    def __init__(self) -> None:
        self._made: dict[tuple[str, str], tuple[ToolDefinition, SkillDefinition, str]] = {}

    def of(self, ref: ToolRef) -> str:
        """``ref``'s words as `` word word …``."""
        tool, skill = ref.tool, ref.skill
        found = self._made.get((skill.name, tool.name))
        if found is not None and found[0] is tool and found[1] is skill:
            return found[2]
        if len(self._made) > self.LIMIT:
            self._made.clear()
        text = f"{human_title(tool.name)} {tool.description} {skill.name}".lower()
        made = "".join(f" {w}" for w in dict.fromkeys(_WORD.findall(text)))
        self._made[(skill.name, tool.name)] = (tool, skill, made)
        return made

    def fill(self, tools: Sequence[ToolRef]) -> None:
        """Make the texts of ``tools`` now (on the thread that makes an index ahead)."""
        for ref in tools:
            self.of(ref)

    def on_a_word(self, ref: ToolRef, starts: Sequence[str]) -> bool:
        """Every one of ``starts`` (each a typed word after a space) begins a word of
        ``ref``'s title, description or skill name."""
        words = self.of(ref)
        return all(start in words for start in starts)


class ToolRanker:
    """The tools offered, sorted by name, and the index that ranks them for a query.

    The index is kept while the tools stay the same, patched when the library changes,
    and may be made ahead on a thread of its own before the bar first opens.
    """

    def __init__(self) -> None:
        self._index: FuzzyIndex[ToolRef] | None = None
        self._ahead: tuple[list[ToolRef], list[ToolRef], FuzzyIndex[ToolRef]] | None = None
        self.tools: list[ToolRef] = []
        """The tools offered, sorted by name."""
        self._index_of: list[ToolRef] = []  # the tools as given, to tell a change
        self._positions: dict[str, int] | None = None  # ref → place in ``tools``
        self._haystacks = Haystacks()

    def offer(self, tools: Sequence[ToolRef]) -> None:
        """Rank ``tools`` from now on. The same tools as before (the same skills and tool
        objects) keep the index; other tools get a new one once per library change,
        patched from the last one (unchanged skills' entries are reused, see
        ``FuzzyIndex.patched``). A new index splits its texts into words on a thread of
        its own (``FuzzyIndex.prepare``): the letters typed meanwhile are ranked the
        same, only slower."""
        ahead, self._ahead = self._ahead, None
        if self._index is None and ahead is not None and same_tools(tools, ahead[0]):
            self._index_of, self.tools, self._index = ahead
            self._positions = None
        elif self._index is None or not same_tools(tools, self._index_of):
            from gibberish.assistant.fuzzy import FuzzyIndex  # the model feed loads only when used

            self._index_of = list(tools)
            self.tools = by_name(tools)
            self._positions = None  # made when first needed (history, choices)
            if self._index is None:
                self._index = FuzzyIndex.for_tools(self.tools)
            else:
                self._index = self._index.patched(self.tools)
            if not self._index.prepared:
                threading.Thread(target=self._index.prepare, name="command-bar-words").start()

    def index_ahead(self, tools: Sequence[ToolRef]) -> threading.Thread:
        """Make the index over ``tools`` on a thread of its own, for the first ``offer``
        of the very same tools to take; the same thread makes each tool's words for the
        word filter and learns which skill folders ship an icon, so the first letters
        typed make neither."""
        offered = list(tools)

        def make() -> None:
            from gibberish.ui.skill_icons import icon_folders_ahead  # the rows' icons

            ahead = (offered, *_prepared_index(offered))
            self._haystacks.fill(ahead[1])
            icon_folders_ahead({ref.skill.directory for ref in offered})
            self._ahead = ahead

        thread = threading.Thread(target=make, name="command-bar-index")
        thread.start()
        return thread

    @property
    def index_made_ahead(self) -> bool:
        """An index made by ``index_ahead`` waits for its tools' ``offer``."""
        return self._ahead is not None

    @property
    def index(self) -> FuzzyIndex[ToolRef] | None:
        """The ranker over the tools offered (kept while they stay the same)."""
        return self._index

    def ranked(self, text: str, history: Sequence[str]) -> list[ToolRef]:
        """The tools matching ``text``, best first; with no text, the tools run most
        often lately (``history``, newest first) first, then the rest by name."""
        if not text.strip() or self._index is None:
            return self.most_used(history)
        return self._filtered(text, self._index.rank(text, 3 * MAX_RESULTS))

    def _filtered(self, text: str, matches: Sequence[FuzzyMatch[ToolRef]]) -> list[ToolRef]:
        """A match on a word of the title, the description or the skill's name first; a
        weaker match (letters in order, a word of the skill's description) only when it
        is close, or when nothing matches on a word: "disk" offers Disk usage, not Memory
        usage (whose skill's description speaks of disks)."""
        starts = [f" {t}" for t in _WORD.findall(text.lower())]
        on_a_word = self._haystacks.on_a_word
        strong = [m for m in matches if on_a_word(m.item, starts)] if starts else []
        floor = WEAK_BESIDE_STRONG if strong else WEAK_ALONE
        taken = {id(m) for m in strong}
        weak = [m for m in matches if id(m) not in taken and m.score >= floor]
        return [m.item for m in (strong + weak)[:MAX_RESULTS]]

    @property
    def position(self) -> dict[str, int]:
        """Each tool's ``skill.tool`` ref → its place in ``tools`` (by name)."""
        if self._positions is None:
            self._positions = {r.ref: i for i, r in enumerate(self.tools)}
        return self._positions

    def most_used(self, history: Sequence[str]) -> list[ToolRef]:
        return most_used(history, self.tools, lambda: self.position)

    def known(self, refs: Sequence[str]) -> list[ToolRef]:
        """The tools of ``refs`` still offered, in that order."""
        position = self.position
        return [self.tools[position[r]] for r in refs if r in position]

    def home(
        self, pinned: Sequence[str], past_runs: Sequence[PastRun], history: Sequence[str]
    ) -> tuple[list[ToolRef], list[Row | None]]:
        """The empty query: pinned tools, recent runs (by title and arguments), then
        suggestions (the tools used most lately, then the rest by name)."""
        tools: list[ToolRef] = []
        rows: list[Row | None] = []
        position = self.position
        for name in pinned:
            if name in position and len(tools) < MAX_RESULTS:
                tools.append(self.tools[position[name]])
                rows.append(Row("Pinned"))
        for past in past_runs[:RECENT_SHOWN]:
            if past.ref in position and len(tools) < MAX_RESULTS:
                tool = self.tools[position[past.ref]]
                said = arguments_text(tool.tool, past.arguments)
                where = home_short(past.folder) if past.folder else ""
                subtitle = " · ".join(p for p in (said, f"in {where}" if where else "") if p)
                tools.append(tool)
                rows.append(Row("Recent", subtitle or plain_text(tool.tool.description), past))
        shown = {t.ref for t, r in zip(tools, rows, strict=True) if r is not None and not r.past}
        for ref in self.most_used(history):
            if len(tools) >= MAX_RESULTS:
                break
            if ref.ref not in shown:
                tools.append(ref)
                rows.append(Row("Suggested"))
                shown.add(ref.ref)
        return tools, rows
