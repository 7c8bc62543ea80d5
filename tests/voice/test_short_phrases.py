"""Short confident phrases are checked: Whisper confirms a call of three words or fewer
when it is set up (``second_opinion.short``); without it no confidence floor refuses one
(a floor refused right short phrases and caught no wrong one, ADR 0098).

The recordings are flite's awb voice, one of the development voices
(``tests/voice/people/corpus.DEV_VOICES``): "call my mother", which the grammar hears as
"show my notes" as surely as it hears the real "show my notes".
"""

from __future__ import annotations

from pathlib import Path

import msgspec.structs

from gibberish.assistant.heard import Heard
from gibberish.assistant.proposal import Proposal
from gibberish.voice import ProposalStatus, VoiceConfig, WavSource
from gibberish.voice.decision import Decision
from gibberish.voice.second_opinion import short
from tests.voice.test_whisper import _model_folder, needs_model

SHORT = Path(__file__).parent / "fixtures" / "short"
FLOOR_TRIED = 0.55
"""The confidence floor ADR 0080 put under short calls heard without Whisper."""
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
    assert wrong.heard.confidence >= FLOOR_TRIED and right.heard.confidence >= FLOOR_TRIED


def test_without_whisper_a_short_call_heard_unsurely_is_still_proposed(service, catalog) -> None:
    """No floor: on the held-out voices the 0.55 floor refused three right short phrases
    and no wrong one; a person says a short request again more easily than a refused
    right one."""
    right = _heard(service, catalog, SHOW_MY_NOTES, VoiceConfig())
    grammar = service.grammar(catalog)
    decision = Decision(catalog, grammar, service.sounds_like(grammar))
    unsure = msgspec.structs.replace(right.heard, confidence=0.3, details={})
    proposed = decision.propose(unsure, "pocketsphinx")
    assert short(proposed) and proposed.status is right.status
    assert (proposed.call.name, proposed.heard.text) == ("read_notes", "show my notes")


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
