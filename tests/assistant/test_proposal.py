"""The one proposed-call type: what it proposes, what it offers, and the JSON it prints."""

from __future__ import annotations

import pytest

from gibberish.assistant.heard import Heard
from gibberish.assistant.outcome import advise
from gibberish.assistant.proposal import Proposal, ProposalStatus, proposal_of
from gibberish.assistant.validate import validate_call


@pytest.mark.parametrize("status", list(ProposalStatus))
def test_only_an_ok_or_a_needs_arguments_proposal_with_calls_proposes(catalog, status):
    call = validate_call(("git_log", {"count": 2}), catalog)
    with_call = Proposal(None, status, "log", (call,))
    assert with_call.proposes is (status in (ProposalStatus.OK, ProposalStatus.NEEDS_ARGUMENTS))
    assert not Proposal(None, status, "log").proposes
    assert with_call.failed is (status is ProposalStatus.ERROR)


def test_a_guess_the_model_was_unsure_of_is_offered_never_opened(catalog):
    guess = validate_call(("deploy_preview", {}), catalog)
    unsure = advise(Proposal(None, ProposalStatus.ASK_USER, "deploy", (guess,), 0.3), "fg")
    assert not unsure.proposes and unsure.missing == () and unsure.unusual == ()
    assert unsure.refs == ("deploy.deploy_preview",)


def test_each_call_of_a_model_gets_its_own_note(catalog):
    calls = tuple(validate_call(c, catalog) for c in [("git_log", {}), ("git_status", {})])
    worded = advise(Proposal(None, ProposalStatus.OK, "git", calls, 1.0), "fg")
    assert worded.notes[0] == worded.message
    assert worded.notes[1].startswith("Call 2 of 2 proposed by fg for “git”")


def test_the_command_bars_best_match_is_a_proposal_of_that_tool():
    best = proposal_of("hello.echo_text", {"text": "hi"}, message="Best match for “hi”")
    assert best.proposes and best.ref == "hello.echo_text"
    assert dict(best.calls[0].arguments) == {"text": "hi"} and best.message.startswith("Best")


def test_a_spoken_proposal_prints_what_was_heard_and_a_models_how_it_was_asked(catalog):
    call = validate_call(("git_log", {"count": 5}), catalog)
    heard = Heard("show five commits", 0.9, backend="pocketsphinx")
    spoken = Proposal(heard, ProposalStatus.OK, calls=(call,)).to_dict()
    assert set(spoken) == {"status", "heard", "call", "candidates", "message"}
    assert spoken["heard"]["text"] == "show five commits"
    assert spoken["call"]["arguments"] == {"count": 5}
    asked = Proposal(None, ProposalStatus.OK, "log", (call,), 1.0, attempts=1, offered=("git_log",))
    printed = asked.to_dict()
    assert "heard" not in printed and printed["attempts"] == 1
    assert printed["offered"] == ["git_log"] and printed["calls"][0]["tool"] == "git_log"
