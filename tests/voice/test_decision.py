"""The decision's ways to ask Whisper: a phrase the grammar is not doubtful of is weighed
with the encoder and forced alignment only, never transcribed, when the weights confirm
it; the same encoder states are transcribed when the weights move away from it or could
veto it; speech the grammar refused is transcribed (``voice.decision``).

A real tiny.en model; its transcriptions (``transcribe``, and ``transcribe_heard`` over
states already encoded: the decoder's free generation) are counted on the recognizer the
service holds."""

from __future__ import annotations

from pathlib import Path

import msgspec.structs
import pytest

from gibberish.voice import ProposalStatus, VoiceConfig, WavSource
from gibberish.voice.decision import Decision
from gibberish.voice.second_opinion import VETO_NATS, doubtful, short
from tests.voice.test_whisper import _model_folder, needs_model

FIXTURES = Path(__file__).parent / "fixtures"
HEARD_RIGHT = FIXTURES / "slt-show_the_last_five_commits.wav"
"""flite slt's "show the last five commits": the grammar hears it right, without doubt."""
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
        service.grammar(catalog), msgspec.structs.replace(asking, backend="whisper")
    )
    transcribed: list[str] = []
    transcribe, transcribe_heard = whisper.transcribe, whisper.transcribe_heard

    def counting(samples):
        transcribed.append("transcribe")
        return transcribe(samples)

    def counting_heard():
        transcribed.append("transcribe_heard")
        return transcribe_heard()

    monkeypatch.setattr(whisper, "transcribe", counting)
    monkeypatch.setattr(whisper, "transcribe_heard", counting_heard)
    return asking, transcribed


@needs_model
def test_a_phrase_not_doubted_is_weighed_without_a_transcription(service, catalog, counted) -> None:
    asking, transcribed = counted
    alone = service.listen(
        WavSource(HEARD_RIGHT), catalog, msgspec.structs.replace(asking, second_opinion=False)
    )
    assert not doubtful(alone.heard) and alone.call.arguments["count"] == 5
    both = service.listen(WavSource(HEARD_RIGHT), catalog, asking)
    assert transcribed == []
    assert (both.call.name, dict(both.call.arguments)) == ("git_log", {"count": 5})
    assert both.heard.details.get("weighed_only") is True


@needs_model
def test_weights_that_move_away_from_the_phrase_transcribe_the_states_already_encoded(
    service, catalog, counted
) -> None:
    """The grammar hears "nine" without doubt; the weights favour "five", so Whisper's own
    call joins the readings — transcribed from the states already encoded, not again."""
    asking, transcribed = counted
    alone = service.listen(
        WavSource(FIVE_COMMITS), catalog, msgspec.structs.replace(asking, second_opinion=False)
    )
    assert not doubtful(alone.heard) and alone.call.arguments["count"] == 9
    both = service.listen(WavSource(FIVE_COMMITS), catalog, asking)
    assert transcribed == ["transcribe_heard"]
    assert (both.call.name, dict(both.call.arguments)) == ("git_log", {"count": 5})
    assert "weighed_only" not in both.heard.details
    assert "likelier" in both.heard.details["second_opinion"]


@needs_model
def test_a_short_phrase_whisper_could_veto_is_transcribed(service, catalog, counted) -> None:
    """No reading of "call my mother" comes within ``VETO_NATS`` of certainty, so Whisper's
    own transcript is needed to refuse it — and refuses it."""
    asking, transcribed = counted
    refused = service.listen(WavSource(CALL_MY_MOTHER), catalog, asking)
    assert transcribed == ["transcribe_heard"]
    assert refused.status is ProposalStatus.NO_MATCH
    assert "Whisper heard" in refused.heard.details["second_opinion"]


@needs_model
def test_speech_the_grammar_refused_is_transcribed(service, catalog, counted) -> None:
    asking, transcribed = counted
    rescued = service.listen(WavSource(STAGED), catalog, asking)
    assert transcribed == ["transcribe"]
    assert (rescued.call.name, dict(rescued.call.arguments)) == ("git_diff", {"staged": True})


@needs_model
def test_weighing_alone_never_vetoes(service, catalog) -> None:
    """Without a transcript, what Whisper heard counts as the likeliest reading, so the
    weights alone pick a reading and never refuse one: "call my mother" heard as "show my
    notes" is refused only once Whisper's transcript is weighed beside it."""
    from gibberish.voice.audio import read_wav
    from gibberish.voice.decision import _unheard
    from gibberish.voice.second_opinion import Weighed, decide
    from gibberish.voice.whisper import Weight

    grammar = service.grammar(catalog)
    decision = Decision(catalog, grammar, service.sounds_like(grammar))
    whisper = service.recognizer(grammar, VoiceConfig("whisper", str(_model_folder())))
    alone = service.listen(WavSource(CALL_MY_MOTHER), catalog, VoiceConfig())
    assert short(alone) and not doubtful(alone.heard)
    assert whisper.hear(read_wav(CALL_MY_MOTHER))
    readings = decision._readings(alone)
    weights = whisper.weigh([r.heard.text for r in readings])
    likeliest = max(w.per_token for w in weights)
    assert likeliest < -VETO_NATS  # so unlikely that a transcript may veto it
    own = Weight(likeliest, 1)
    weighed = Weighed(list(zip(readings, weights, strict=True)), own)
    assert decide(alone, _unheard(), (), weighed) is alone
