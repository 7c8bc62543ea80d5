"""Recordings of real people (tests/voice/people/README.md says where they come from).

In-grammar requests become exactly their call; speech no tool covers — a card said with a
word too many, two numbers, a string of numbers, read prose — proposes nothing: no call
and no form asking for a value.
"""

from __future__ import annotations

import pytest

from gibberish.assistant.proposal import Proposal
from gibberish.engine.core import Engine, EngineOptions
from gibberish.voice import ProposalStatus, VoiceConfig, WavSource, spoken
from tests.voice.people.corpus import IN_GRAMMAR, OUT_OF_GRAMMAR, SKILLS, Recording
from tests.voice.test_whisper import _model_folder, needs_model


@pytest.fixture(scope="module")
def people_engine() -> Engine:
    return Engine(EngineOptions(include_user=False, extra_skills_dirs=(SKILLS,)))


def _listen(engine: Engine, recording: Recording, config: VoiceConfig | None = None) -> Proposal:
    service, catalog = spoken.voice_service(engine), engine.feed.catalog(None)
    return service.listen(WavSource(recording.path), catalog, config or VoiceConfig())


def _proposed(proposal: Proposal) -> bool:
    return proposal.status is not ProposalStatus.NO_MATCH


@pytest.mark.parametrize("recording", IN_GRAMMAR, ids=lambda r: r.name)
def test_real_people_in_grammar_are_exact(people_engine, recording: Recording) -> None:
    proposal = _listen(people_engine, recording)
    assert proposal.status is ProposalStatus.OK, proposal.heard
    assert (proposal.call.name, dict(proposal.call.arguments)) == (
        recording.tool,
        recording.arguments,
    )


@pytest.mark.parametrize(
    "name", ["cards-four_queen_of_clubs", "numbers-a_string_of_numbers"], ids=str
)
def test_a_number_slot_does_not_take_speech_outside_the_parameter_range(
    people_engine, name: str
) -> None:
    """ "four queen of clubs" is forced onto "four hundred of clubs", a string of numbers
    onto "thirty three of hearts": the rank's declared range 1..13 refuses both."""
    recording = next(r for r in OUT_OF_GRAMMAR if r.name == name)
    proposal = _listen(people_engine, recording)
    assert not _proposed(proposal), proposal.heard


@pytest.mark.slow
def test_real_people_out_of_grammar_mostly_propose_nothing(people_engine) -> None:
    proposed = [r.name for r in OUT_OF_GRAMMAR if _proposed(_listen(people_engine, r))]
    assert len(proposed) <= 2, proposed


@needs_model
@pytest.mark.slow
def test_with_whisper_no_real_out_of_grammar_speech_is_proposed(people_engine) -> None:
    config = VoiceConfig(model_folder=str(_model_folder()), second_opinion=True)
    proposed = [r.name for r in OUT_OF_GRAMMAR if _proposed(_listen(people_engine, r, config))]
    assert proposed == []
    for recording in IN_GRAMMAR:
        proposal = _listen(people_engine, recording, config)
        assert proposal.call is not None and proposal.call.name == recording.tool


def test_a_weakly_heard_number_without_a_range_is_flagged_for_the_form(tmp_path) -> None:
    """With no range to refuse it, "four queen of clubs" → rank 400 is proposed, but its
    number's words were weakly heard, so the call lists it as unusual: the form says to
    check it before anything runs."""
    skills = tmp_path / "skills"
    (skills / "cards").mkdir(parents=True)
    text = (SKILLS / "cards" / "SKILL.md").read_text()
    (skills / "cards" / "SKILL.md").write_text(text.replace("integer 1..13", "integer"))
    engine = Engine(EngineOptions(include_user=False, extra_skills_dirs=(skills,)))
    recording = next(r for r in OUT_OF_GRAMMAR if r.name == "cards-four_queen_of_clubs")
    proposal = _listen(engine, recording)
    assert proposal.call is not None and proposal.call.arguments == {"rank": 400, "suit": "clubs"}
    assert proposal.call.unusual == ("rank=400 (the recognizer is unsure of “hundred”)",)
