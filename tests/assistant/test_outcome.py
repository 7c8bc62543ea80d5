"""The one mapping from a router result to what a front end does (CLI and tray alike)."""

from __future__ import annotations

from gibberish.assistant.fuzzy import FuzzyIndex
from gibberish.assistant.outcome import Next, advise
from gibberish.assistant.router import RouteResult, RouteStatus
from gibberish.assistant.validate import validate_call


def test_every_parallel_call_is_proposed_and_named(catalog):
    calls = tuple(
        validate_call(c, catalog)
        for c in [("git_log", {"count": 2}), ("git_status", {}), ("git_diff", {}), ("git_log", {})]
    )
    advice = advise(RouteResult(RouteStatus.OK, "git things", calls, 1.0), "fg")
    assert advice.next is Next.PROPOSE and len(advice.calls) == 4
    assert advice.refs == ("git.git_log",)
    assert advice.message.endswith(
        "It also proposed 3 more call(s): git.git_status, git.git_diff, git.git_log."
    )


def test_an_unusual_number_is_pointed_at(catalog):
    call = validate_call(("git_log", {"count": 10**15}), catalog)
    advice = advise(RouteResult(RouteStatus.OK, "log", (call,), 1.0), "fg")
    assert "Look closely: count=1000000000000000 is unusually large" in advice.message
    assert advice.unusual == call.unusual


def test_missing_arguments_are_named(catalog):
    call = validate_call(("summarize_url", {}), catalog)
    advice = advise(RouteResult(RouteStatus.NEEDS_ARGUMENTS, "summarize", (call,), 1.0), "fg")
    assert advice.next is Next.PROPOSE and advice.missing == ("url",)
    assert "It did not say: url." in advice.message


def test_unsure_offers_the_models_guess_first(catalog):
    guess = validate_call(("deploy_preview", {}), catalog)
    matches = tuple(FuzzyIndex.for_tools(catalog.tools).rank("git log", 3, require_all=False))
    result = RouteResult(RouteStatus.ASK_USER, "git log", (guess,), 0.3, matches)
    advice = advise(result, "fg")
    assert advice.next is Next.CHOOSE
    assert advice.message == "fg was not sure what you meant — pick a tool:"
    assert advice.refs[0] == "deploy.deploy_preview" and "git.git_log" in advice.refs
    assert dict(advice.descriptions)["deploy.deploy_preview"] == "Deploy a preview build to Vercel."


def test_error_no_tools_and_cancel():
    error = advise(RouteResult(RouteStatus.ERROR, "x", message="No model server at …"), "fg")
    assert error.next is Next.FAIL and error.failed and error.settings_link
    assert error.message == "No model server at …"
    none = advise(RouteResult(RouteStatus.NO_TOOLS, "x"), "fg", "Dev mode")
    assert none.next is Next.CHOOSE and not none.failed
    assert (
        none.message == "No tools are available in Dev mode — pick another mode in the tray menu."
    )
    assert advise(RouteResult(RouteStatus.CANCELLED, "x"), "fg").next is Next.CANCELLED
