"""The one mapping from a model's proposal to what a front end does (CLI and tray alike)."""

from __future__ import annotations

from gibberish.assistant.fuzzy import FuzzyIndex
from gibberish.assistant.outcome import advise
from gibberish.assistant.proposal import Proposal, ProposalStatus
from gibberish.assistant.validate import validate_call


def test_every_parallel_call_is_proposed_and_named(catalog):
    calls = tuple(
        validate_call(c, catalog)
        for c in [("git_log", {"count": 2}), ("git_status", {}), ("git_diff", {}), ("git_log", {})]
    )
    advice = advise(Proposal(None, ProposalStatus.OK, "git things", calls, 1.0), "fg")
    assert advice.proposes and len(advice.calls) == 4
    assert advice.refs == ("git.git_log",)
    assert advice.message.endswith(
        "It also proposed 3 more calls: git.git_status, git.git_diff, git.git_log."
    )


def test_an_unusual_number_is_pointed_at(catalog):
    call = validate_call(("git_log", {"count": 10**15}), catalog)
    advice = advise(Proposal(None, ProposalStatus.OK, "log", (call,), 1.0), "fg")
    assert "Look closely: count=1000000000000000 is unusually large" in advice.message
    assert advice.unusual == call.unusual


def test_missing_arguments_are_named(catalog):
    call = validate_call(("summarize_url", {}), catalog)
    advice = advise(Proposal(None, ProposalStatus.NEEDS_ARGUMENTS, "summarize", (call,), 1.0), "fg")
    assert advice.proposes and advice.missing == ("url",)
    assert "It did not say: url." in advice.message


def test_unsure_offers_the_models_guess_first(catalog):
    guess = validate_call(("deploy_preview", {}), catalog)
    matches = tuple(FuzzyIndex.for_tools(catalog.tools).rank("git log", 3, require_all=False))
    result = Proposal(None, ProposalStatus.ASK_USER, "git log", (guess,), 0.3, matches)
    advice = advise(result, "fg")
    assert not advice.proposes and not advice.failed
    assert advice.message == "fg was not sure what you meant — pick a tool:"
    assert advice.refs[0] == "deploy.deploy_preview" and "git.git_log" in advice.refs
    assert dict(advice.descriptions)["deploy.deploy_preview"] == "Deploy a preview build to Vercel."


def test_error_no_tools_and_cancel():
    error = advise(Proposal(None, ProposalStatus.ERROR, "x", message="No model server at …"), "fg")
    assert error.status is ProposalStatus.ERROR and error.failed and error.settings_link
    assert error.message == "No model server at …"
    none = advise(Proposal(None, ProposalStatus.NO_TOOLS, "x"), "fg", "Dev mode")
    assert not none.proposes and not none.failed
    assert (
        none.message == "No tools are available in Dev mode — pick another mode in the tray menu."
    )
    cancelled = advise(Proposal(None, ProposalStatus.CANCELLED, "x"), "fg")
    assert cancelled.status is ProposalStatus.CANCELLED and cancelled.message == "Cancelled."
