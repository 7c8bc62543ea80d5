"""The decision's two ways to ask Whisper: a phrase the grammar is not doubtful of is
weighed with the encoder and forced alignment only, never transcribed; a doubtful one, or
a short one Whisper finds unlikely enough to veto, is transcribed (``voice.decision``).

A real tiny.en model; its ``transcribe`` (the encoder and the decoder's free generation)
is counted on the recognizer the service holds."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gibberish.voice import ProposalStatus, VoiceConfig, WavSource
from gibberish.voice.decision import Decision
from gibberish.voice.second_opinion import VETO_NATS, doubtful, short
from tests.voice.test_whisper import _model_folder, needs_model

FIXTURES = Path(__file__).parent / "fixtures"
FIVE_COMMITS = FIXTURES / "weighed" / "f1-show_the_last_five_commits.wav"
"""espeak-ng en-us+f1's "show the last five commits", which the grammar hears, without
doubt, as "nine" (tests/voice/test_weighing.py)."""
CALL_MY_MOTHER = FIXTURES / "short" / "flite-awb-call_my_mother.wav"
"""Heard by the grammar as "show my notes", a short phrase: only a veto refuses it."""
STAGED = FIXTURES / "weighed" / "gbclan-show_the_staged_changes.wav"
"""Refused by the grammar: only a transcript can rescue it."""


@pytest.fixture
def counted(service, catalog, monkeypatch) -> tuple[VoiceConfig, list[int]]:
    """The asking configuration, and the sample counts of each transcription Whisper
    made while the test listened."""
    asking = VoiceConfig("pocketsphinx", str(_model_folder()), second_opinion=True)
    whisper = service.recognizer(
        service.grammar(catalog), dataclasses.replace(asking, backend="whisper")
    )
    transcribed: list[int] = []
    transcribe = whisper.transcribe

    def counting(samples):
        transcribed.append(len(samples))
        return transcribe(samples)

    monkeypatch.setattr(whisper, "transcribe", counting)
    return asking, transcribed


@needs_model
def test_a_phrase_not_doubted_is_weighed_without_a_transcription(service, catalog, counted) -> None:
    asking, transcribed = counted
    alone = service.listen(
        WavSource(FIVE_COMMITS), catalog, dataclasses.replace(asking, second_opinion=False)
    )
    assert not doubtful(alone.heard) and alone.call.arguments["count"] == 9
    both = service.listen(WavSource(FIVE_COMMITS), catalog, asking)
    assert transcribed == []
    assert (both.call.name, dict(both.call.arguments)) == ("git_log", {"count": 5})
    assert both.heard.details.get("weighed_only") is True
    assert "likelier" in both.heard.details["second_opinion"]


@needs_model
def test_a_short_phrase_whisper_could_veto_is_transcribed(service, catalog, counted) -> None:
    """No reading of "call my mother" comes within ``VETO_NATS`` of certainty, so Whisper's
    own transcript is needed to refuse it — and refuses it."""
    asking, transcribed = counted
    refused = service.listen(WavSource(CALL_MY_MOTHER), catalog, asking)
    assert len(transcribed) == 1
    assert refused.status is ProposalStatus.NO_MATCH
    assert "Whisper heard" in refused.heard.details["second_opinion"]


@needs_model
def test_speech_the_grammar_refused_is_transcribed(service, catalog, counted) -> None:
    asking, transcribed = counted
    rescued = service.listen(WavSource(STAGED), catalog, asking)
    assert len(transcribed) == 1
    assert (rescued.call.name, dict(rescued.call.arguments)) == ("git_diff", {"staged": True})


@needs_model
def test_weighing_alone_never_vetoes(service, catalog) -> None:
    """Without a transcript, what Whisper heard counts as the likeliest reading, so the
    weights alone pick a reading and never refuse one; a veto needs the transcript."""
    grammar = service.grammar(catalog)
    decision = Decision(catalog, grammar, service.sounds_like(grammar))
    folder = str(_model_folder())
    whisper = service.recognizer(grammar, VoiceConfig("whisper", folder))
    alone = service.listen(WavSource(CALL_MY_MOTHER), catalog, VoiceConfig())
    assert short(alone) and not doubtful(alone.heard)
    from gibberish.voice.audio import read_wav

    chosen = decision._weighed_only(whisper, read_wav(CALL_MY_MOTHER), alone)
    # Whisper finds every reading of "call my mother" unlikely: too unlikely to decide
    # without its transcript.
    assert chosen is None
    weights = whisper.weigh(["show my notes"])
    assert weights is not None and weights[0].per_token < -VETO_NATS
