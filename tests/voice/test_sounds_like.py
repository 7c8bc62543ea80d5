"""Free-form transcripts taken as the spoken form they sound like, or left as no match.

The misheard transcripts are what Whisper tiny.en wrote for the committed fixtures
(``benchmarks/voice.py`` lists them under each voice); the out-of-grammar ones are the
corpus's requests no tool covers.
"""

from __future__ import annotations

import pytest

from gibberish.assistant.heard import Heard
from gibberish.assistant.proposal import ProposalStatus
from gibberish.skills.model import ParameterDefinition, ParameterType, ToolDefinition
from gibberish.voice.grammar import VoiceTool, grammar_for_tools
from gibberish.voice.interpret import interpret
from gibberish.voice.matcher import PhraseMatcher
from gibberish.voice.sounds_like import SoundsLike
from tests.voice.corpus import OUT_OF_GRAMMAR

pytest.importorskip("rapidfuzz")


@pytest.fixture(scope="module")
def bundled(service, catalog):
    grammar = service.grammar(catalog)
    return SoundsLike(grammar.forms), PhraseMatcher(grammar.forms)


MISHEARD = (
    ("Show Jett status", "git_status", {}, "show git status"),
    ("What is the shit status?", "git_status", {}, "what is the git status"),
    ("at Log Count 3", "git_log", {"count": 3}, "git log count 3"),
    ("show the day", "git_diff", {}, "show the diff"),
    ("show the stage changes", "git_diff", {"staged": True}, "show the staged changes"),
    ("blister branches", "git_branches", {}, "list the branches"),
    ("Show the top 15 processors.", "top_processes", {"count": 15}, "show the top 15 processes"),
    ("should not process as by CPU", "top_processes", {"sort_by": "cpu"}, None),
    ("Showed it up, time.", "uptime", {}, "show the uptime"),
    ("How much memory is 3?", "memory_usage", {}, "how much memory is free"),
    ("I've lost this folder.", "list_folder", {}, "list this folder"),
)


@pytest.mark.parametrize(("text", "tool", "arguments", "taken_as"), MISHEARD, ids=lambda v: str(v))
def test_a_misheard_transcript_is_taken_as_the_form_it_sounds_like(
    bundled, text, tool, arguments, taken_as
) -> None:
    sounds_like, words = bundled
    assert words.match(text) is None  # word for word it is no match
    found = sounds_like.match(text)
    assert found is not None
    match, sentence = found
    assert (match.tool, match.arguments) == (tool, arguments)
    if taken_as is not None:
        assert sentence == taken_as


WHISPER_OUT_OF_GRAMMAR = (
    "Play some music.",
    "What is the weather?",
    "Turn off the lights.",
    "Send an email to my boss.",
    "Set a timer for 10 minutes.",
    "Call my mother.",
    "Good morning, everybody.",
    "Book a table for two.",
    "Show this pre-essential",
    "short-ness-aged changes",
)


@pytest.mark.parametrize("text", WHISPER_OUT_OF_GRAMMAR + tuple(p.text for p in OUT_OF_GRAMMAR))
def test_speech_no_tool_covers_stays_no_match(bundled, text) -> None:
    assert bundled[0].match(text) is None


def _tool(name: str, phrase: str, params=()) -> VoiceTool:
    return VoiceTool(name, ToolDefinition(name, f"{name} tool.", tuple(params), phrases=(phrase,)))


COUNT = ParameterDefinition("count", ParameterType.INTEGER, False, "How many")


def test_two_calls_about_as_close_are_no_match_not_a_guess() -> None:
    grammar = grammar_for_tools([_tool("red", "show red notes"), _tool("bed", "show bed notes")])
    sounds_like = SoundsLike(grammar.forms)
    assert sounds_like.match("show ted notes") is None
    found = sounds_like.match("show read notes")
    assert found is not None and found[0].tool == "red"


def test_digits_fill_a_number_slot_but_are_words_in_a_name() -> None:
    grammar = grammar_for_tools(
        [
            _tool("ipv4_report", "show the ipv four report"),
            _tool("log", "show the {count} logs", [COUNT]),
        ]
    )
    sounds_like = SoundsLike(grammar.forms)
    match, sentence = sounds_like.match("Show the 12 blogs.")
    assert (match.tool, match.arguments, sentence) == ("log", {"count": 12}, "show the 12 logs")
    match, _sentence = sounds_like.match("show the IP before report")
    assert (match.tool, match.arguments) == ("ipv4_report", {})


def test_a_form_with_free_text_is_left_to_word_matching() -> None:
    text = ParameterDefinition("text", ParameterType.STRING, True, "The note")
    grammar = grammar_for_tools([_tool("add_note", "take a note {text}", [text])])
    sounds_like = SoundsLike(grammar.forms)
    assert sounds_like.match("bake a note buy milk") is None
    assert PhraseMatcher(grammar.forms).match("take a note buy milk").arguments == {
        "text": "buy milk"
    }


def test_the_proposal_says_what_the_transcript_was_taken_as(bundled, catalog) -> None:
    sounds_like, words = bundled
    heard = Heard("Show Jett status", 0.8, backend="whisper")
    proposal = interpret(heard, catalog, words, sounds_like)
    assert proposal.status is ProposalStatus.OK
    assert proposal.call.name == "git_status"
    assert heard.quoted() == "“Show Jett status” (taken as “show git status”)"
    unmatched = interpret(Heard("Show Jett status", 0.8, backend="whisper"), catalog, words)
    assert unmatched.status is ProposalStatus.NO_MATCH


def test_a_number_slot_needs_a_number_heard() -> None:
    grammar = grammar_for_tools([_tool("log", "show the {count} logs", [COUNT])])
    sounds_like = SoundsLike(grammar.forms)
    assert sounds_like.match("show the blogs") is None
    assert sounds_like.match("show the 3 4 blogs") is None
