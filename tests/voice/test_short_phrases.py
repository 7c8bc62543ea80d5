"""Short confident phrases are checked: Whisper confirms a call of three words or fewer
when it is set up, a confidence floor when it is not (``second_opinion.short``).

The recordings are flite's awb voice, one of the development voices
(``tests/voice/people/corpus.DEV_VOICES``): "call my mother", which the grammar hears as
"show my notes" as surely as it hears the real "show my notes".
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from gibberish.assistant.heard import Heard
from gibberish.assistant.proposal import Proposal
from gibberish.voice import ProposalStatus, VoiceConfig, WavSource
from gibberish.voice.second_opinion import SHORT_FLOOR, below_the_floor, short
from tests.voice.test_whisper import _model_folder, needs_model

SHORT = Path(__file__).parent / "fixtures" / "short"
CALL_MY_MOTHER = SHORT / "flite-awb-call_my_mother.wav"
SHOW_MY_NOTES = SHORT / "flite-awb-show_my_notes.wav"


def _heard(service, catalog, wav: Path, config: VoiceConfig) -> Proposal:
    return service.listen(WavSource(wav), catalog, config)


def test_the_grammar_alone_is_as_sure_of_the_wrong_short_phrase(service, catalog) -> None:
    """Why a floor cannot be the whole check: the misheard request scores like a right one."""
    wrong = _heard(service, catalog, CALL_MY_MOTHER, VoiceConfig())
    right = _heard(service, catalog, SHOW_MY_NOTES, VoiceConfig())
    assert wrong.call is not None and wrong.call.name == "read_notes" and short(wrong)
    assert right.call is not None and right.call.name == "read_notes"
    assert wrong.heard.confidence >= SHORT_FLOOR and right.heard.confidence >= SHORT_FLOOR


def test_without_whisper_a_short_call_below_the_floor_is_not_proposed(service, catalog) -> None:
    right = _heard(service, catalog, SHOW_MY_NOTES, VoiceConfig())
    unsure = dataclasses.replace(right.heard, confidence=SHORT_FLOOR - 0.01)
    refused = below_the_floor(dataclasses.replace(right, heard=unsure))
    assert refused.status is ProposalStatus.NO_MATCH
    assert refused.message == (
        "Heard “show my notes”, but not clearly enough to act on so short a request. Say "
        "it again, a little more slowly."
    )
    sure = dataclasses.replace(right.heard, confidence=SHORT_FLOOR)
    assert below_the_floor(dataclasses.replace(right, heard=sure)).status is right.status
    long_text = "show the last five commits"
    longer = dataclasses.replace(right.heard, text=long_text, confidence=SHORT_FLOOR - 0.2)
    assert below_the_floor(dataclasses.replace(right, heard=longer)).status is right.status


def test_the_floor_is_applied_when_listening_without_whisper(service, catalog, monkeypatch) -> None:
    from gibberish.voice import second_opinion

    monkeypatch.setattr(second_opinion, "SHORT_FLOOR", 0.99)
    refused = _heard(service, catalog, SHOW_MY_NOTES, VoiceConfig())
    assert refused.status is ProposalStatus.NO_MATCH and "so short a request" in refused.message


def test_a_heard_of_no_call_is_never_short() -> None:
    nothing = Proposal(Heard("", 0.0, (), "pocketsphinx", {}), ProposalStatus.NO_MATCH)
    assert not short(nothing)


@needs_model
def test_whisper_refuses_the_short_phrase_it_did_not_hear(service, catalog) -> None:
    asking = VoiceConfig("pocketsphinx", str(_model_folder()), second_opinion=True)
    refused = _heard(service, catalog, CALL_MY_MOTHER, asking)
    assert refused.status is ProposalStatus.NO_MATCH, refused.heard.details
    assert "Whisper heard" in refused.heard.details["second_opinion"]
    confirmed = _heard(service, catalog, SHOW_MY_NOTES, asking)
    assert confirmed.status is ProposalStatus.OK and confirmed.call.name == "read_notes"
