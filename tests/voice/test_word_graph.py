"""The word graph the grammar decoder loads: exactly the spoken forms, numbers built once."""

from __future__ import annotations

import itertools

from gibberish.skills.model import ParameterDefinition, ParameterType, ToolDefinition
from gibberish.voice.fsg import WordGraph, add_number, close_nulls, garbage_words, word_graph
from gibberish.voice.grammar import VoiceTool, grammar_for_tools
from gibberish.voice.matcher import PhraseMatcher
from gibberish.voice.numbers import spoken_forms
from gibberish.voice.phrases import Slot, SlotKind, SpokenForm


def _sayings(form: SpokenForm) -> set[str]:
    """Every word sequence one form allows, expanded independently of the graph code."""
    parts: list[list[str]] = []
    for item in form.items:
        if isinstance(item, str):
            parts.append([item])
        elif item.kind is SlotKind.NUMBER:
            parts.append(list(spoken_forms()))
        elif item.kind in (SlotKind.CHOICE, SlotKind.FLAG):
            parts.append([" ".join(words) for words, _value in item.choices])
    return {" ".join(p for p in combo if p) for combo in itertools.product(*parts)}


def test_the_number_sub_graph_says_exactly_the_spoken_numbers() -> None:
    graph = WordGraph()
    add_number(graph, graph.start, graph.final)
    said = list(close_nulls(graph).sentences())
    assert len(said) == len(set(said))  # no two paths for one number
    assert set(said) == set(spoken_forms())


def test_the_graph_accepts_exactly_the_bundled_grammar(catalog) -> None:
    grammar = grammar_for_tools(VoiceTool(t.name, t.tool) for t in catalog.tools)
    expected = set().union(*(_sayings(f) for f in grammar.forms))
    graph = word_graph(grammar.forms)
    accepted = list(graph.sentences(limit=10 * len(expected)))
    assert set(accepted) == expected
    assert graph.number_graphs < sum(
        isinstance(i, Slot) and i.kind is SlotKind.NUMBER for f in grammar.forms for i in f.items
    )
    matcher = PhraseMatcher(grammar.forms, free_text=False)
    for sentence in ("show the last five commits", "show top processes by mem", "git diff staged"):
        assert sentence in expected and matcher.match(sentence) is not None


def _many_tools(n: int) -> list[VoiceTool]:
    count = (ParameterDefinition("count", ParameterType.INTEGER, False, "How many"),)
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel"]
    tools = []
    for i in range(n):
        a, b, c = words[i % 8], words[(i // 8) % 8], words[(i // 64) % 8]
        tool = ToolDefinition(
            f"{a}_{b}_{c}_{i}",
            f"Show the {a} {b} report for {c}.",
            count if i % 2 else (),
            phrases=(f"give me {a} {b} {c} {{count}} times",) if i % 2 else (),
        )
        tools.append(VoiceTool(tool.name, tool))
    return tools


def test_a_thousand_tools_share_one_number_graph_per_ending_and_load() -> None:
    from gibberish.voice.sphinx import SphinxRecognizer

    grammar = grammar_for_tools(_many_tools(1000))
    slots = sum(
        isinstance(i, Slot) and i.kind is SlotKind.NUMBER for f in grammar.forms for i in f.items
    )
    graph = word_graph(grammar.forms)
    assert slots > 2500
    # What follows a number is "" (end), "count" or "times": three sub-graphs in all.
    assert graph.number_graphs == 3
    assert len(graph.transitions) < 20 * 1000
    recognizer = SphinxRecognizer(grammar)  # PocketSphinx accepts the graph
    assert "foxtrot" in recognizer.pronunciations


def test_the_garbage_path_cannot_collide_with_a_spoken_word(catalog) -> None:
    grammar = grammar_for_tools(VoiceTool(t.name, t.tool) for t in catalog.tools)
    assert not set(garbage_words()) & set(grammar.words)
    assert all("_" not in w for w in grammar.words)
    with_garbage = word_graph(grammar.forms, garbage=1e-8)
    assert set(garbage_words()) <= with_garbage.words()


def test_null_transitions_are_closed_as_pocketsphinx_expects(catalog) -> None:
    grammar = grammar_for_tools(VoiceTool(t.name, t.tool) for t in catalog.tools)
    graph = word_graph(grammar.forms, garbage=1e-8)
    nulls: dict[int, set[int]] = {}
    for t in graph.transitions:
        if len(t) == 3:
            nulls.setdefault(t[0], set()).add(t[1])
    chained = {(a, c) for a, bs in nulls.items() for b in bs for c in nulls.get(b, ())}
    assert chained, "the graph has null chains (number endings, optional final words)"
    assert all(c in nulls[a] for a, c in chained)
