"""Whisper weighing the grammar's readings: which numbers are tried, how texts are
spelled for it, and what its weights settle (a likelier number, a veto by likelihood)."""

from __future__ import annotations

from pathlib import Path

import msgspec.structs
import pytest

from gibberish.assistant import validate_call
from gibberish.assistant.heard import Heard
from gibberish.assistant.proposal import Proposal
from gibberish.voice import ProposalStatus, VoiceConfig, WavSource
from gibberish.voice.audio import read_wav
from gibberish.voice.numbers import holds_a_number, spoken_number
from gibberish.voice.readings import nearest_values, number_readings
from gibberish.voice.second_opinion import (
    ACCEPT_NATS,
    RIVAL_NATS,
    SIDE_NATS,
    VETO_NATS,
    Weighed,
    decide,
    worth_asking,
)
from gibberish.voice.whisper import Weight, WhisperRecognizer, numpy_zeros, spelled
from tests.voice.test_whisper import _model_folder, needs_model

WEIGHED = Path(__file__).parent / "fixtures" / "weighed"
"""espeak-ng voices neither the suite's corpus nor the benchmarks speak with, saying a
number the grammar alone mishears and Whisper's own transcript names no tool for:
``espeak-ng -v en-us+f1 -w raw.wav "show the last five commits"`` (heard "nine") and
``espeak-ng -v en-gb-x-gbclan … "show the top fifteen processes"`` (heard "fifty"), each
then ``sox raw.wav -r 16000 -c 1 -b 16 <name>.wav``; and en-gb-x-gbclan's "show the staged
changes", which the grammar refuses and Whisper writes as no form."""


def _words(values) -> set[str]:
    return {spoken_number(v) for v in values}


@pytest.mark.parametrize(
    ("said", "heard"),
    [(15, 50), (50, 15), (12, 2), (5, 9), (105, 109), (13, 30), (3, 30)],
)
def test_the_number_said_is_among_the_readings_of_the_number_heard(said, heard) -> None:
    assert said in nearest_values(heard)
    assert heard not in nearest_values(heard)


def test_readings_replace_each_number_run_and_keep_the_rest_of_the_phrase() -> None:
    readings = number_readings("show the last one hundred and five commits")
    assert "show the last one hundred nine commits" in readings
    assert "show the last one hundred and five commits" not in readings
    assert all(r.startswith("show the last ") and r.endswith(" commits") for r in readings)
    assert number_readings("show git status") == []
    assert holds_a_number("git log count three") and not holds_a_number("take a note")


@pytest.mark.parametrize(
    ("text", "spelling"),
    [
        ("Show the last five commits!", "show the last 5 commits"),
        ("show the last one hundred and five commits", "show the last 105 commits"),
        ("So, now, let's go!", "so now let's go"),
        ("take a note", "take a note"),
        ("  ", ""),
    ],
)
def test_texts_are_weighed_in_whisper_s_own_spelling(text, spelling) -> None:
    assert spelled(text) == spelling


def _proposal(catalog, text: str, call: tuple | None, *, fit: float | None = None):
    heard = Heard(text, 0.8, (), "pocketsphinx")
    if fit is not None:
        heard.details["acoustic_fit"] = fit
    if call is None:
        return Proposal(heard, ProposalStatus.NO_MATCH)
    return Proposal(heard, ProposalStatus.OK, calls=(validate_call(call, catalog),))


def _whisper(catalog, text: str, call: tuple | None = None) -> Proposal:
    proposal = _proposal(catalog, text, call)
    return msgspec.structs.replace(
        proposal, heard=msgspec.structs.replace(proposal.heard, backend="whisper")
    )


def test_a_number_heard_is_always_worth_asking_about(catalog) -> None:
    sure = _proposal(catalog, "show the last nine commits", ("git_log", {"count": 9}), fit=-1.0)
    assert worth_asking(sure)
    plain = _proposal(catalog, "what is the git status", ("git_status", {}), fit=-1.0)
    assert not worth_asking(plain)


def test_a_reading_whisper_finds_much_likelier_is_taken(catalog) -> None:
    nine = _proposal(catalog, "show the last nine commits", ("git_log", {"count": 9}), fit=-1.0)
    five = _proposal(catalog, "show the last five commits", ("git_log", {"count": 5}))
    heard = _whisper(catalog, "show the last fine commits")

    def weighed(lead: float) -> Weighed:
        return Weighed(
            [(nine, Weight(-2.0 * 5, 5)), (five, Weight((-2.0 + lead) * 5, 5))], Weight(-0.5, 5)
        )

    chosen = decide(nine, heard, weighed=weighed(SIDE_NATS + 0.1))
    assert chosen is five and "likelier" in chosen.heard.details["second_opinion"]
    assert decide(nine, heard, weighed=weighed(SIDE_NATS - 0.1)) is nine


def test_a_reading_no_tool_takes_is_never_chosen(catalog) -> None:
    nine = _proposal(catalog, "show the last nine commits", ("git_log", {"count": 9}))
    nothing = _proposal(catalog, "show the last nine hundred commits", None)
    weighed = Weighed([(nine, Weight(-9.0, 5)), (nothing, Weight(-1.0, 5))], Weight(-1.0, 5))
    assert decide(nine, _whisper(catalog, "show the last 900 commits"), weighed=weighed) is nine


def test_a_doubtful_phrase_far_less_likely_than_what_whisper_heard_is_vetoed(catalog) -> None:
    forced = _proposal(catalog, "find files", ("find_files", {}), fit=-4.5)
    heard = _whisper(catalog, "5-5.")
    far = Weighed([(forced, Weight(-3 * (VETO_NATS + 1.5), 3))], Weight(-3.0, 3))
    vetoed = decide(forced, heard, weighed=far)
    assert vetoed.status is ProposalStatus.NO_MATCH and vetoed.call is None
    assert "5-5." in vetoed.message
    # Whisper misspelling what it heard right: within the margin, the phrase stands.
    near = Weighed([(forced, Weight(-3 * (VETO_NATS - 0.5) - 3.0, 3))], Weight(-3.0, 3))
    assert decide(forced, heard, weighed=near) is forced
    # A short phrase is checked even when it fits the sound (item: short phrases): the
    # same weights refuse it.
    fits = _proposal(catalog, "find files", ("find_files", {}), fit=-1.0)
    short_far = msgspec.structs.replace(far, readings=[(fits, far.readings[0][1])])
    assert decide(fits, heard, weighed=short_far).status is ProposalStatus.NO_MATCH
    # A longer phrase that fits the sound is not doubted, so Whisper has no veto over it.
    longer = _proposal(catalog, "find files named report", ("find_files", {}), fit=-1.0)
    long_far = msgspec.structs.replace(far, readings=[(longer, far.readings[0][1])])
    assert decide(longer, heard, weighed=long_far) is longer


def test_whisper_s_own_call_is_weighed_like_any_reading(catalog) -> None:
    """Whisper naming a call (here the grammar's tool with another argument) is taken only
    when its sentence is the likelier one: "Show top processing by CDO" taken as "… by
    memory" does not overrule "… by cpu" that Whisper finds likelier."""
    cpu = _proposal(
        catalog, "show top processes by cpu", ("top_processes", {"sort_by": "cpu"}), fit=-4.0
    )
    memory = _whisper(catalog, "Show top processing by CDO.", ("top_processes", {"sort_by": "mem"}))
    memory.heard.details["taken_as"] = "show top processes by memory"
    own = Weight(-2.5, 5)
    kept = Weighed([(cpu, Weight(-15.0, 5)), (memory, Weight(-25.0, 5))], own)
    assert decide(cpu, memory, weighed=kept) is cpu
    taken = Weighed([(cpu, Weight(-25.0, 5)), (memory, Weight(-15.0, 5))], own)
    chosen = decide(cpu, memory, weighed=taken)
    assert chosen is memory and chosen.heard.details["second_opinion_of"] == cpu.heard.text
    assert "show top processes by memory" in chosen.heard.details["second_opinion"]


@pytest.fixture(scope="module")
def whisper() -> WhisperRecognizer:
    return WhisperRecognizer(_model_folder())


@needs_model
def test_whisper_weighs_the_number_said_above_the_one_the_grammar_heard(whisper) -> None:
    whisper.decode(read_wav(WEIGHED / "f1-show_the_last_five_commits.wav"))
    said, heard = whisper.weigh(["show the last five commits", "show the last nine commits"])
    assert said.total - heard.total >= SIDE_NATS
    assert whisper.weigh([]) is None


@needs_model
@pytest.mark.parametrize(
    ("name", "tool", "wrong", "right"),
    [
        ("f1-show_the_last_five_commits", "git_log", 9, 5),
        ("gbclan-show_the_top_fifteen_processes", "top_processes", 50, 15),
    ],
)
def test_a_misheard_number_is_settled_by_whisper_s_weights(
    service, catalog, name, tool, wrong, right
) -> None:
    asking = VoiceConfig("pocketsphinx", str(_model_folder()), second_opinion=True)
    source = WavSource(WEIGHED / f"{name}.wav")
    alone = service.listen(source, catalog, msgspec.structs.replace(asking, second_opinion=False))
    assert (alone.call.name, dict(alone.call.arguments)) == (tool, {"count": wrong})
    both = service.listen(source, catalog, asking)
    assert (both.call.name, dict(both.call.arguments)) == (tool, {"count": right})
    assert "likelier" in both.heard.details["second_opinion"]


def test_the_nearest_sentences_are_offered_with_the_transcript_s_numbers(service, catalog) -> None:
    sounds_like = service.sounds_like(service.grammar(catalog))
    assert "show the staged changes" in sounds_like.nearest("short message changes")
    assert "show the last 7 commits" in sounds_like.nearest("shoe the lust 7 comets")
    assert len(sounds_like.nearest("anything at all", limit=3)) == 3
    assert sounds_like.nearest("") == []


def _refused(catalog) -> Proposal:
    return _proposal(catalog, "", None)


def test_a_refused_request_is_rescued_only_by_a_sentence_nearly_as_likely(catalog) -> None:
    staged = _whisper(catalog, "show the staged changes", ("git_diff", {"staged": True}))
    notes = _whisper(catalog, "show my notes", ("read_notes", {}))
    heard = _whisper(catalog, "short message changes")
    own = Weight(-1.0 * 4, 4)

    def weighed(staged_gap: float, notes_gap: float) -> Weighed:
        return Weighed(
            [
                (staged, Weight((-1.0 - staged_gap) * 4, 4)),
                (notes, Weight((-1.0 - notes_gap) * 3, 3)),
            ],
            own,
        )

    rescued = decide(_refused(catalog), heard, weighed=weighed(ACCEPT_NATS - 0.3, 6.0))
    assert rescued is staged and "nearly as likely" in rescued.heard.details["second_opinion"]
    # Too far from what Whisper heard (speech no tool covers): still no match.
    assert decide(_refused(catalog), heard, weighed=weighed(ACCEPT_NATS + 0.3, 6.0)).call is None
    # A sentence of another call about as likely: no guess.
    rival = weighed(1.0, 1.0 + RIVAL_NATS - 0.3)
    assert decide(_refused(catalog), heard, weighed=rival).call is None


@needs_model
def test_speech_the_grammar_refused_is_rescued_by_whisper_s_weights(service, catalog) -> None:
    """espeak-ng en-gb-x-gbclan's "show the staged changes": the grammar hears no phrase,
    Whisper writes "short-ner stage changes", which matches no form by sound."""
    asking = VoiceConfig("pocketsphinx", str(_model_folder()), second_opinion=True)
    source = WavSource(WEIGHED / "gbclan-show_the_staged_changes.wav")
    alone = service.listen(source, catalog, msgspec.structs.replace(asking, second_opinion=False))
    assert alone.status is ProposalStatus.NO_MATCH
    both = service.listen(source, catalog, asking)
    assert (both.call.name, dict(both.call.arguments)) == ("git_diff", {"staged": True})
    assert "nearly as likely" in both.heard.details["second_opinion"]


@needs_model
def test_audio_longer_than_one_window_is_not_weighed(whisper) -> None:
    """Dictation past 30 s is transcribed window by window: no one set of encoder states
    to weigh a sentence against, so the second opinion falls back to its sound rules."""
    whisper.transcribe(numpy_zeros(31 * 16_000))
    assert whisper.weigh(["show git status"]) is None
    whisper.decode(read_wav(WEIGHED / "f1-show_the_last_five_commits.wav"))
    assert whisper.weigh(["show git status"]) is not None
