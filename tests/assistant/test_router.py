"""The router end to end over the loopback server: prompt → model → parse → validate → result."""

from __future__ import annotations

import threading

import pytest

from gibberish.assistant.clients import Api, ModelSettings, client_for
from gibberish.assistant.functiongemma import render_declaration
from gibberish.assistant.naming import ToolCatalog
from gibberish.assistant.proposal import ProposalStatus
from gibberish.assistant.router import (
    CONFIDENCE_COERCED,
    CONFIDENCE_FIRST,
    CONFIDENCE_REPAIRED,
    Router,
    correction_text,
)
from gibberish.assistant.validate import CallStatus
from tests.assistant.fakeserver import Calls, Stall, Text

S, E = "<start_function_call>", "<end_function_call>"


def router(server, api=Api.OLLAMA_GENERATE, **kw) -> Router:
    settings = ModelSettings(endpoint=server.url, api=api, timeout=kw.pop("timeout", 5.0))
    return Router(client_for(settings), **kw)


def test_first_answer_valid(model_server, catalog):
    model_server.queue(Text(f"{S}call:git_log{{count:5}}{E}"))
    result = router(model_server).route("show me the last 5 git commits", catalog)
    assert result.status is ProposalStatus.OK and result.ok
    assert result.confidence == CONFIDENCE_FIRST == 1.0
    assert result.attempts == 1 and result.candidates == ()
    call = result.call
    assert (call.skill, call.tool, dict(call.arguments)) == ("git", "git_log", {"count": 5})
    assert call.exposed.skill.name == "git"
    (sent,) = model_server.requests
    assert sent.body["raw"] is True
    prompt = sent.body["prompt"]
    assert "<start_of_turn>user\nshow me the last 5 git commits<end_of_turn>" in prompt
    for name in result.offered:
        assert render_declaration(catalog.resolve(name)) in prompt


def test_coerced_values_lower_confidence(model_server, catalog):
    model_server.queue(Text(f"{S}call:git_log{{count:<escape>5<escape>}}{E}"))
    result = router(model_server).route("git log 5 commits", catalog)
    assert result.status is ProposalStatus.OK
    assert result.confidence == CONFIDENCE_COERCED
    assert result.call.arguments == {"count": 5}


def test_parallel_calls(model_server, catalog):
    model_server.queue(Text(f"{S}call:git_status{{}}{E}{S}call:git_diff{{staged:true}}{E}"))
    result = router(model_server).route("git status and staged diff", catalog)
    assert result.status is ProposalStatus.OK
    assert [c.tool for c in result.calls] == ["git_status", "git_diff"]


def test_one_repair_retry_when_the_answer_does_not_parse(model_server, catalog):
    model_server.queue(
        Text("Sure, here are your commits!"),
        Text(f"{S}call:git_log{{count:3}}{E}"),
    )
    result = router(model_server).route("show the git log", catalog)
    assert result.status is ProposalStatus.OK
    assert result.attempts == 2
    assert result.confidence == CONFIDENCE_REPAIRED
    assert result.outputs == ("Sure, here are your commits!", f"{S}call:git_log{{count:3}}{E}")
    first, second = model_server.requests
    correction = correction_text(["the output contains no function call"])
    assert second.body["prompt"] == first.body["prompt"] + (
        "Sure, here are your commits!<end_of_turn>\n"
        f"<start_of_turn>user\n{correction}<end_of_turn>\n"
        "<start_of_turn>model\n"
    )


def test_repair_when_the_call_does_not_validate(model_server, catalog):
    model_server.queue(
        Text(f"{S}call:git_log{{count:<escape>lots<escape>}}{E}"),
        Text(f"{S}call:git_log{{count:20}}{E}"),
    )
    result = router(model_server).route("git log, lots of commits", catalog)
    assert result.status is ProposalStatus.OK and result.attempts == 2
    second = model_server.requests[1].body["prompt"]
    assert "Parameter 'count' expects an integer (a whole number such as 5), got 'lots'." in second


def test_unknown_tool_then_still_wrong_asks_the_user(model_server, catalog):
    model_server.queue(
        Text(f"{S}call:show_history{{}}{E}"),
        Text("no idea"),
    )
    result = router(model_server).route("show the commit history", catalog)
    assert result.status is ProposalStatus.ASK_USER
    assert result.confidence == 0.0 and result.attempts == 2
    assert result.candidates and result.candidates[0].name == "git_log"
    assert "could not be used" in result.message
    assert len(model_server.requests) == 2  # exactly one retry


def test_low_confidence_falls_back_to_fuzzy_matches(model_server, catalog):
    # Repaired (0.6) and the tool shares no word with a request another tool matches (×0.7).
    model_server.queue(
        Text("hmm"),
        Text(f"{S}call:git_status{{}}{E}"),
    )
    result = router(model_server).route("deploy a preview build to vercel", catalog)
    assert result.status is ProposalStatus.ASK_USER
    assert result.confidence == pytest.approx(0.42)
    assert result.call.tool == "git_status"  # kept for information
    assert result.candidates[0].name == "deploy_preview"
    assert result.message.startswith("Not sure the model picked the right tool (git_status)")


def test_disagreement_alone_stays_above_threshold(model_server, catalog):
    model_server.queue(Text(f"{S}call:git_status{{}}{E}"))
    result = router(model_server).route("deploy a preview build", catalog)
    assert result.status is ProposalStatus.OK
    assert result.confidence == pytest.approx(0.7)


def test_threshold_is_configurable(model_server, catalog):
    model_server.queue(Text(f"{S}call:git_log{{count:<escape>5<escape>}}{E}"))
    result = router(model_server, threshold=0.95).route("git log", catalog)
    assert result.status is ProposalStatus.ASK_USER and result.confidence == 0.9


def test_missing_arguments_are_not_repaired(model_server, catalog):
    model_server.queue(Text(f"{S}call:summarize_url{{}}{E}"))
    result = router(model_server).route("summarize the article", catalog)
    assert result.status is ProposalStatus.NEEDS_ARGUMENTS
    assert result.call.status is CallStatus.MISSING_ARGUMENTS
    assert result.call.missing == ("url",)
    assert result.message == "Missing: url."
    assert len(model_server.requests) == 1


def test_chat_api_end_to_end(model_server, catalog):
    model_server.queue(Calls([("summarize_url", {"url": "https://example.com/a?b=1,2"})]))
    result = router(model_server, api=Api.OLLAMA_CHAT).route(
        "summarize https://example.com/a?b=1,2", catalog
    )
    assert result.status is ProposalStatus.OK
    assert result.call.arguments == {"url": "https://example.com/a?b=1,2"}
    assert {t["function"]["name"] for t in model_server.requests[0].body["tools"]} == set(
        result.offered
    )


def test_openai_streamed_repair(model_server, catalog):
    model_server.queue(
        Calls([("git_log", {"count": 5, "author": "me"})]),
        Calls([("git_log", {"count": 5})]),
    )
    result = router(model_server, api=Api.OPENAI).route("git log by me", catalog)
    assert result.status is ProposalStatus.OK and result.attempts == 2
    messages = model_server.requests[1].body["messages"]
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user"]
    assert messages[2]["content"] == (
        "<start_function_call>call:git_log{author:<escape>me<escape>,count:5}<end_function_call>"
    )
    assert "git_log has no argument 'author'" in messages[3]["content"]


def test_budget_limits_the_offered_tools(model_server, catalog):
    model_server.queue(Text(f"{S}call:deploy_preview{{}}{E}"))
    result = router(model_server, budget=120).route("deploy a preview", catalog)
    assert result.status is ProposalStatus.OK
    assert result.offered[0] == "deploy_preview" and len(result.offered) < len(catalog)
    prompt = model_server.requests[0].body["prompt"]
    assert "git_status" not in prompt


def test_model_unreachable_is_a_result_with_candidates(closed_port, catalog):
    settings = ModelSettings(endpoint=f"http://127.0.0.1:{closed_port}", timeout=2)
    result = Router(client_for(settings)).route("summarize this url", catalog)
    assert result.status is ProposalStatus.ERROR
    assert result.message.startswith("No model server at")
    assert result.candidates[0].name == "summarize_url"


def test_timeout_on_the_retry_keeps_the_first_calls(model_server, catalog):
    model_server.queue(Text(f"{S}call:git_log{{oops:1}}{E}"), Stall(10))
    result = router(model_server, timeout=1.0).route("git log", catalog)
    assert result.status is ProposalStatus.ERROR and result.attempts == 2
    assert result.call.status is CallStatus.INVALID


def test_cancelled(model_server, catalog):
    model_server.queue(Text("z" * 50, chunk=1, delay=0.02))
    cancel = threading.Event()
    result = router(model_server).route(
        "git log", catalog, cancel=cancel, on_text=lambda _: cancel.set()
    )
    assert result.status is ProposalStatus.CANCELLED and result.message == "Cancelled."


def test_no_tools(model_server):
    result = router(model_server).route("anything", ToolCatalog())
    assert result.status is ProposalStatus.NO_TOOLS
    assert model_server.requests == []


def test_empty_request_does_not_ask_the_model(model_server, catalog):
    result = router(model_server).route("   ", catalog)
    assert result.status is ProposalStatus.ASK_USER and result.candidates == ()
    assert model_server.requests == []


def test_accepts_a_plain_list_of_exposed_tools(model_server, catalog):
    model_server.queue(Text(f"{S}call:git_status{{}}{E}"))
    result = router(model_server).route("git status", list(catalog))
    assert result.ok and result.call.tool == "git_status"
    assert result.to_dict()["calls"][0]["tool"] == "git_status"


class FakeClient:
    """The Protocol is small enough for a test double."""

    def __init__(self, texts):
        self.settings = ModelSettings()
        self.texts = list(texts)
        self.requests = []

    def complete(self, request, *, cancel=None, on_text=None):
        from gibberish.assistant.callparser import parse_calls
        from gibberish.assistant.clients import ModelReply

        self.requests.append(request)
        text = self.texts.pop(0)
        parsed = parse_calls(text)
        return ModelReply(text, parsed.calls, parsed.errors)


def test_router_takes_any_client_with_the_protocol(catalog):
    client = FakeClient([f"{S}call:git_diff{{staged:1}}{E}"])
    result = Router(client).route("staged git diff", catalog)
    assert result.ok and result.call.arguments == {"staged": True}
    assert result.confidence == CONFIDENCE_COERCED
    assert client.requests[0].messages[0].content == "staged git diff"


def test_a_cut_off_call_is_repaired_with_the_models_own_output(model_server, catalog):
    cut = f"{S}call:git_log{{count:<escape>5"
    model_server.queue(
        Text(cut, finish="length", tokens=256), Text(f"{S}call:git_log{{count:5}}{E}")
    )
    result = router(model_server).route("last 5 commits", catalog)
    assert result.status is ProposalStatus.OK and result.attempts == 2
    retry = model_server.requests[1].body["prompt"]
    assert f"<start_of_turn>model\n{cut}<end_of_turn>" in retry
    assert (
        "That was not a valid function call: the model's answer was cut off at 256 tokens" in retry
    )


def test_a_cut_off_native_call_goes_back_as_written(model_server, catalog):
    model_server.queue(
        Calls([("git_log", '{"count": 5, "auth')], finish="length", tokens=9),
        Calls([("git_log", {"count": 5})]),
    )
    result = router(model_server, api=Api.OPENAI).route("last 5 commits", catalog)
    assert result.status is ProposalStatus.OK and result.attempts == 2
    messages = model_server.requests[1].body["messages"]
    assert messages[2] == {
        "role": "assistant",
        "content": '{"name": "git_log", "arguments": {"count": 5, "auth}',
    }
    assert messages[3]["content"].startswith(
        "That was not a valid function call: the model's answer was cut off at 9 tokens; "
        "call 1 (git_log): the arguments are not valid JSON."
    )


def test_four_parallel_calls_are_all_proposed(model_server, catalog):
    four = [("git_log", {"count": 1}), ("git_status", {}), ("git_diff", {}), ("git_log", {})]
    model_server.queue(Calls(four))
    result = router(model_server, api=Api.OLLAMA_CHAT).route("git log status diff", catalog)
    assert result.status is ProposalStatus.OK
    assert [c.name for c in result.calls] == ["git_log", "git_status", "git_diff", "git_log"]
