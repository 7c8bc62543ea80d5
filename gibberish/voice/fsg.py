"""The grammar as a finite-state graph, built here instead of by PocketSphinx's JSGF compiler.

PocketSphinx compiles JSGF by copying every rule into each place it is referenced, so a
grammar with thousands of number slots held thousands of copies of the 0–999 sub-grammar
(1,000 tools took tens of seconds to load). Here the spoken forms become a word graph
directly:

1. the forms go into a trie of *symbols* (a word, a number slot, or a choice of values);
2. the trie is minimized bottom-up (states with the same future are merged), so forms
   sharing an ending share its states — the ending "<number> count" exists once;
3. each symbol is expanded into words. A number slot is a null transition into the
   number sub-graph that leads to the slot's target state; that sub-graph is built once
   per target, and minimization leaves only a handful of targets.

Every transition has probability 1, as PocketSphinx gives each JSGF alternative, so the
graph accepts exactly the JSGF's word sequences and scores them the same way.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from msgspec import Struct, field

from gibberish.voice.numbers import TENS, UNITS
from gibberish.voice.phrases import Slot, SlotKind, SpokenForm

NUMBER = "<number>"
Symbol = str | tuple[tuple[str, ...], ...]
"""A word, ``NUMBER``, or a choice: the word sequences of its values."""
Transition = tuple[int, int, float] | tuple[int, int, float, str]
"""PocketSphinx's ``create_fsg`` shape: (from, to, probability[, word]); no word = null."""


def symbols_of(form: SpokenForm) -> tuple[Symbol, ...]:
    out: list[Symbol] = []
    for item in form.items:
        if isinstance(item, str):
            out.append(item)
        elif isinstance(item, Slot) and item.kind is SlotKind.NUMBER:
            out.append(NUMBER)
        elif isinstance(item, Slot) and item.kind in (SlotKind.CHOICE, SlotKind.FLAG):
            out.append(tuple(words for words, _value in item.choices))
    return tuple(out)


class _Node(Struct):
    final: bool = False
    edges: dict[Symbol, _Node] = field(default_factory=dict)


def _trie(sequences: Iterable[tuple[Symbol, ...]]) -> _Node:
    root = _Node()
    for seq in sequences:
        node = root
        for symbol in seq:
            node = node.edges.setdefault(symbol, _Node())
        node.final = True
    return root


class WordGraph(Struct):
    """A graph PocketSphinx loads with ``Decoder.create_fsg``."""

    transitions: list[Transition] = field(default_factory=list)
    states: int = 2
    start: int = 0
    final: int = 1
    number_graphs: int = 0
    """How many copies of the number sub-graph were built (one per distinct target)."""

    def new_state(self) -> int:
        self.states += 1
        return self.states - 1

    def word(self, src: int, dst: int, word: str) -> None:
        self.transitions.append((src, dst, 1.0, word))

    def null(self, src: int, dst: int) -> None:
        self.transitions.append((src, dst, 1.0))

    def words(self) -> set[str]:
        return {t[3] for t in self.transitions if len(t) == 4}

    def sentences(self, limit: int = 100_000) -> Iterator[str]:
        """Every word sequence the graph accepts (for tests; acyclic graphs only)."""
        out: dict[int, list[tuple[int, str | None]]] = {}
        for t in self.transitions:
            out.setdefault(t[0], []).append((t[1], t[3] if len(t) == 4 else None))
        stack: list[tuple[int, tuple[str, ...]]] = [(self.start, ())]
        produced = 0
        while stack and produced < limit:
            state, said = stack.pop()
            if state == self.final:
                produced += 1
                yield " ".join(said)
            for dst, word in out.get(state, ()):
                stack.append((dst, (*said, word) if word else said))


def _below_hundred(g: WordGraph, src: int, dst: int) -> None:
    for word in UNITS[1:20]:
        g.word(src, dst, word)
    tens = g.new_state()
    for word in TENS:
        g.word(src, tens, word)
    g.null(tens, dst)
    for word in UNITS[1:10]:
        g.word(tens, dst, word)


def add_number(g: WordGraph, src: int, dst: int) -> None:
    """0–999 as ``numbers.spoken_forms`` says them: zero | below 100 | (a|unit) hundred
    [[and] below 100]."""
    g.word(src, dst, "zero")
    _below_hundred(g, src, dst)
    hundred, after = g.new_state(), g.new_state()
    for word in ("a", *UNITS[1:10]):
        g.word(src, hundred, word)
    g.word(hundred, after, "hundred")
    g.null(after, dst)
    _below_hundred(g, after, dst)
    anded = g.new_state()
    g.word(after, anded, "and")
    _below_hundred(g, anded, dst)
    g.number_graphs += 1


class _Emitter:
    """Minimizes the trie while numbering its states, then writes the transitions."""

    def __init__(self) -> None:
        self.graph = WordGraph()
        self._register: dict[tuple[object, ...], int] = {}
        self._number_entry: dict[int, int] = {}

    def state_for(self, node: _Node) -> int:
        edges = tuple(sorted(((s, self.state_for(n)) for s, n in node.edges.items()), key=repr))
        key = (node.final, edges)
        found = self._register.get(key)
        if found is not None:
            return found
        g = self.graph
        state = g.final if not edges else g.new_state()
        if edges and node.final:
            g.null(state, g.final)
        for symbol, target in edges:
            self._edge(state, symbol, target)
        self._register[key] = state
        return state

    def _edge(self, src: int, symbol: Symbol, dst: int) -> None:
        g = self.graph
        if symbol == NUMBER:
            entry = self._number_entry.get(dst)
            if entry is None:
                entry = self._number_entry[dst] = g.new_state()
                add_number(g, entry, dst)
            g.null(src, entry)
        elif isinstance(symbol, str):
            g.word(src, dst, symbol)
        else:
            for words in symbol:
                here = src
                for word in words[:-1]:
                    step = g.new_state()
                    g.word(here, step, word)
                    here = step
                g.word(here, dst, words[-1])


PHONES = (
    "AA", "AE", "AH", "AO", "AW", "AY", "B", "CH", "D", "DH", "EH", "ER", "EY", "F", "G",
    "HH", "IH", "IY", "JH", "K", "L", "M", "N", "NG", "OW", "OY", "P", "R", "S", "SH", "T",
    "TH", "UH", "UW", "V", "W", "Y", "Z", "ZH",
)  # fmt: skip
"""The acoustic model's 39 phones (its ``SIL`` is added by the decoder itself)."""
GARBAGE_PREFIX = "garbage_"
"""Dictionary words of one phone each; no spoken form can contain one (words never hold
an underscore)."""


def garbage_words() -> dict[str, str]:
    return {GARBAGE_PREFIX + p.lower(): p for p in PHONES}


def add_garbage(g: WordGraph, penalty: float) -> None:
    """A competitor to every phrase: any sequence of phones, each costing ``penalty``.

    Speech that no phrase explains is explained better by this loop, and the utterance
    ends as garbage (rejected) instead of being forced onto the nearest phrase.
    """
    loop = g.new_state()
    g.null(g.start, loop)
    for word in garbage_words():
        g.transitions.append((loop, loop, penalty, word))
    g.null(loop, g.final)


def word_graph(forms: Iterable[SpokenForm], garbage: float = 0.0) -> WordGraph:
    """The minimized graph of ``forms``; the root becomes state 0, the end state 1."""
    root = _trie(s for s in (symbols_of(f) for f in forms) if s)
    emitter = _Emitter()
    top = emitter.state_for(root)
    emitter.graph.null(emitter.graph.start, top)
    if garbage:
        add_garbage(emitter.graph, garbage)
    return close_nulls(emitter.graph)


def close_nulls(g: WordGraph) -> WordGraph:
    """Adds a direct null transition for every chain of them.

    PocketSphinx's search follows one null transition per step and expects the graph to
    be closed already (its JSGF compiler does this); ``create_fsg`` does not.
    """
    nulls: dict[int, set[int]] = {}
    for t in g.transitions:
        if len(t) == 3:
            nulls.setdefault(t[0], set()).add(t[1])
    closed: dict[int, set[int]] = {}

    def reach(state: int) -> set[int]:
        found = closed.get(state)
        if found is None:
            found = set()
            for nxt in nulls.get(state, ()):
                found |= {nxt} | reach(nxt)
            closed[state] = found
        return found

    for state, direct in nulls.items():
        for extra in sorted(reach(state) - direct):
            g.null(state, extra)
    return g
