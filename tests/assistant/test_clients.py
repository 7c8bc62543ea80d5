"""The clients against a real HTTP server on 127.0.0.1 that speaks the documented API shapes."""

from __future__ import annotations

import json
import threading
import time

import pytest

from gibberish.assistant.clients import (
    Api,
    Message,
    ModelCancelled,
    ModelError,
    ModelErrorKind,
    ModelRequest,
    ModelSettings,
    OllamaChatClient,
    OllamaGenerateClient,
    OpenAIChatClient,
    client_for,
)
from gibberish.assistant.functiongemma import DEVELOPER_PROMPT, render_prompt
from gibberish.assistant.manifest import tool_schemas
from tests.assistant.fakeserver import (
    Calls,
    Chatty,
    Drip,
    Garbage,
    Stall,
    Status,
    StreamError,
    Text,
)

CALL = "<start_function_call>call:git_log{count:5}<end_function_call>"


def settings(server, api: Api, **kw) -> ModelSettings:
    return ModelSettings(endpoint=server.url, api=api, timeout=kw.pop("timeout", 5.0), **kw)


def request(catalog, text="show the last 5 commits") -> ModelRequest:
    return ModelRequest.single(catalog.subset(["git_log", "git_status"]), text)


# -- Ollama /api/generate (raw) ---------------------------------------------------------------


def test_generate_streams_our_prompt_and_parses_the_text(model_server, catalog):
    model_server.queue(Text("  " + CALL, chunk=4))
    client = OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE))
    pieces: list[str] = []
    reply = client.complete(request(catalog), on_text=pieces.append)
    assert [(c.name, c.arguments) for c in reply.calls] == [("git_log", {"count": 5})]
    assert reply.errors == () and not reply.native
    assert "".join(pieces) == "  " + CALL and len(pieces) > 5
    (sent,) = model_server.requests
    assert sent.path == "/api/generate"
    assert sent.body == {
        "model": "functiongemma",
        "prompt": render_prompt(
            catalog.subset(["git_log", "git_status"]), "show the last 5 commits"
        ),
        "raw": True,
        "stream": True,
        "options": {
            "temperature": 0.0,
            "num_predict": 256,
            "stop": ["<end_of_turn>", "<start_function_response>"],
        },
    }


def test_generate_without_streaming(model_server, catalog):
    model_server.queue(Text(CALL))
    client = OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE, stream=False))
    reply = client.complete(request(catalog))
    assert reply.calls[0].name == "git_log"
    assert model_server.requests[0].body["stream"] is False


def test_generate_follow_up_turns_go_into_the_prompt(model_server, catalog):
    model_server.queue(Text(CALL))
    client = OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE, temperature=None))
    tools = catalog.subset(["git_log"])
    convo = ModelRequest(
        tuple(tools),
        (Message("user", "log"), Message("assistant", "nope"), Message("user", "Call a function.")),
    )
    client.complete(convo)
    body = model_server.requests[0].body
    assert body["prompt"].endswith(
        "<start_of_turn>user\nlog<end_of_turn>\n"
        "<start_of_turn>model\nnope<end_of_turn>\n"
        "<start_of_turn>user\nCall a function.<end_of_turn>\n"
        "<start_of_turn>model\n"
    )
    assert body["options"] == {
        "num_predict": 256,
        "stop": ["<end_of_turn>", "<start_function_response>"],
    }


def test_reply_that_is_not_a_call(model_server, catalog):
    model_server.queue(Text("I can't do that, sorry."))
    reply = OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE)).complete(
        request(catalog)
    )
    assert reply.calls == () and reply.errors == ("the output contains no function call",)
    with pytest.raises(ModelError) as info:
        reply.require_calls()
    assert info.value.kind is ModelErrorKind.NO_CALL
    assert info.value.message == (
        "The model did not call a tool (the output contains no function call): "
        "“I can't do that, sorry.”"
    )


# -- Ollama /api/chat -----------------------------------------------------------------------------


@pytest.mark.parametrize("stream", [True, False])
def test_ollama_chat_sends_tools_and_reads_tool_calls(model_server, catalog, stream):
    model_server.queue(Calls([("git_log", {"count": 5}), ("git_status", {})]))
    client = OllamaChatClient(settings(model_server, Api.OLLAMA_CHAT, stream=stream))
    reply = client.complete(request(catalog))
    assert reply.native
    assert [(c.name, c.arguments) for c in reply.calls] == [
        ("git_log", {"count": 5}),
        ("git_status", {}),
    ]
    (sent,) = model_server.requests
    assert sent.path == "/api/chat"
    assert sent.body == {
        "model": "functiongemma",
        # Ollama's renderer writes the trigger sentence itself: none of ours is sent.
        "messages": [{"role": "user", "content": "show the last 5 commits"}],
        "tools": tool_schemas(catalog.subset(["git_log", "git_status"])),
        "stream": stream,
        "options": {
            "temperature": 0.0,
            "num_predict": 256,
            "stop": ["<end_of_turn>", "<start_function_response>"],
        },
    }


def test_ollama_chat_falls_back_to_functiongemma_text(model_server, catalog):
    model_server.queue(Text(CALL, chunk=3))
    pieces: list[str] = []
    reply = OllamaChatClient(settings(model_server, Api.OLLAMA_CHAT)).complete(
        request(catalog), on_text=pieces.append
    )
    assert not reply.native and reply.calls[0].arguments == {"count": 5}
    assert "".join(pieces) == CALL


# -- OpenAI /v1/chat/completions -----------------------------------------------------------------


def test_openai_non_streamed_tool_calls(model_server, catalog):
    model_server.queue(Calls([("git_log", {"count": 5})]))
    s = settings(model_server, Api.OPENAI, stream=False, api_key="sk-test", model="functiongemma")
    reply = OpenAIChatClient(s).complete(request(catalog))
    assert reply.native and reply.calls[0].arguments == {"count": 5}
    (sent,) = model_server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers.get("Authorization") == "Bearer sk-test"
    assert sent.body["tools"] == tool_schemas(catalog.subset(["git_log", "git_status"]))
    assert sent.body["stream"] is False and sent.body["temperature"] == 0.0
    assert sent.body["messages"][0] == {"role": "system", "content": DEVELOPER_PROMPT}
    assert sent.body["max_tokens"] == 256
    assert sent.body["stop"] == ["<end_of_turn>", "<start_function_response>"]


def test_openai_streamed_deltas_are_assembled(model_server, catalog):
    args = {"count": 12, "note": 'a "quoted", {braced} text'}
    model_server.queue(Calls([("git_log", args), ("git_status", {})]))
    s = settings(model_server, Api.OPENAI)
    s = ModelSettings(**{**s.to_dict(), "endpoint": model_server.url + "/v1"})  # base ending in /v1
    reply = OpenAIChatClient(s).complete(request(catalog))
    assert [(c.name, c.arguments) for c in reply.calls] == [("git_log", args), ("git_status", {})]
    assert model_server.requests[0].path == "/v1/chat/completions"
    assert model_server.requests[0].body["stream"] is True


def test_openai_streamed_text_without_call(model_server, catalog):
    model_server.queue(Text("Hello there", chunk=2))
    pieces: list[str] = []
    reply = OpenAIChatClient(settings(model_server, Api.OPENAI)).complete(
        request(catalog), on_text=pieces.append
    )
    assert reply.text == "Hello there" and "".join(pieces) == "Hello there"
    assert not reply.calls and reply.errors


def test_client_for_picks_by_api(model_server):
    for api, cls in [
        (Api.OLLAMA_GENERATE, OllamaGenerateClient),
        (Api.OLLAMA_CHAT, OllamaChatClient),
        (Api.OPENAI, OpenAIChatClient),
    ]:
        assert type(client_for(settings(model_server, api))) is cls


def test_settings_round_trip():
    s = ModelSettings(endpoint="http://h:1", api="openai", timeout=3, api_key="secret")
    assert s.api is Api.OPENAI
    data = s.to_dict()
    assert "api_key" not in data and data["api"] == "openai"
    assert ModelSettings.from_dict({**data, "unknown": 1}) == ModelSettings(
        endpoint="http://h:1", api=Api.OPENAI, timeout=3
    )
    assert "secret" not in repr(s)
    assert hash(s) == hash(ModelSettings(endpoint="http://h:1", api=Api.OPENAI, timeout=3))
    assert hash(s) != hash(ModelSettings(endpoint="http://h:2", api=Api.OPENAI, timeout=3))
    json.dumps(data)


# -- errors ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("api", list(Api))
def test_model_not_pulled(model_server, catalog, api):
    s = settings(model_server, api, model="missing-model")
    with pytest.raises(ModelError) as info:
        client_for(s).complete(request(catalog))
    assert info.value.kind is ModelErrorKind.MODEL_MISSING
    assert (
        info.value.message == "Model missing-model is not pulled — run `ollama pull missing-model`"
    )
    assert model_server.requests[0].body["model"] == "missing-model"


def test_openai_server_without_the_model(model_server, catalog):
    body = {"error": {"message": "The model `gpt-x` does not exist", "code": "model_not_found"}}
    model_server.queue(Status(404, body))
    with pytest.raises(ModelError) as info:
        OpenAIChatClient(settings(model_server, Api.OPENAI)).complete(request(catalog))
    assert info.value.kind is ModelErrorKind.MODEL_MISSING
    assert "is not available at" in info.value.message and "does not exist" in info.value.message


def test_server_error_500(model_server, catalog):
    model_server.queue(Status(500, {"error": "llama runner process has terminated"}))
    with pytest.raises(ModelError) as info:
        OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE)).complete(request(catalog))
    assert info.value.kind is ModelErrorKind.HTTP and info.value.status == 500
    assert info.value.message == (
        f"The model server at {model_server.url} answered HTTP 500: "
        "llama runner process has terminated"
    )


def test_wrong_path_404(model_server, catalog):
    s = ModelSettings(endpoint=model_server.url + "/nope", api=Api.OLLAMA_CHAT, timeout=5)
    with pytest.raises(ModelError) as info:
        OllamaChatClient(s).complete(request(catalog))
    assert info.value.kind is ModelErrorKind.HTTP
    assert "has no /api/chat" in info.value.message


def test_error_in_the_middle_of_a_stream(model_server, catalog):
    model_server.queue(StreamError("out of memory"))
    with pytest.raises(ModelError) as info:
        OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE)).complete(request(catalog))
    assert info.value.message.endswith("reported an error: out of memory")


def test_not_json(model_server, catalog):
    model_server.queue(Garbage())
    with pytest.raises(ModelError) as info:
        OllamaChatClient(settings(model_server, Api.OLLAMA_CHAT)).complete(request(catalog))
    assert info.value.kind is ModelErrorKind.PROTOCOL
    assert "not valid JSON" in info.value.message


@pytest.mark.parametrize("api", list(Api))
def test_nothing_listening(closed_port, catalog, api):
    endpoint = f"http://127.0.0.1:{closed_port}"
    client = client_for(ModelSettings(endpoint=endpoint, api=api, timeout=2))
    with pytest.raises(ModelError) as info:
        client.complete(request(catalog))
    assert info.value.kind is ModelErrorKind.UNREACHABLE
    if api is Api.OPENAI:
        assert info.value.message == (
            f"No model server at {endpoint} — start your OpenAI-compatible server or set the "
            "endpoint in Settings"
        )
    else:
        assert info.value.message == (
            f"No model server at {endpoint} — start Ollama (`ollama serve`) or set the endpoint "
            "in Settings"
        )


def test_slow_server_times_out(model_server, catalog):
    model_server.queue(Stall(10))
    client = OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE, timeout=0.3))
    start = time.monotonic()
    with pytest.raises(ModelError) as info:
        client.complete(request(catalog))
    assert time.monotonic() - start < 3
    assert info.value.kind is ModelErrorKind.TIMEOUT
    assert info.value.message == (
        f"The model server at {model_server.url} did not answer within 0.3 s — the model may "
        "still be loading; try again or raise the timeout in Settings"
    )


def test_trickling_stream_hits_the_overall_deadline(model_server, catalog):
    model_server.queue(Text("x" * 200, chunk=1, delay=0.02))
    client = OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE, timeout=0.5))
    with pytest.raises(ModelError) as info:
        client.complete(request(catalog))
    assert info.value.kind is ModelErrorKind.TIMEOUT


@pytest.mark.parametrize("api", list(Api))
def test_cancel_mid_stream(model_server, catalog, api):
    model_server.queue(Text("y" * 100, chunk=1, delay=0.02))
    cancel = threading.Event()
    pieces: list[str] = []

    def on_text(piece: str) -> None:
        pieces.append(piece)
        if len(pieces) == 3:
            cancel.set()

    client = client_for(settings(model_server, api))
    with pytest.raises(ModelCancelled) as info:
        client.complete(request(catalog), cancel=cancel, on_text=on_text)
    assert info.value.kind is ModelErrorKind.CANCELLED
    assert 3 <= len(pieces) < 10


def test_cancel_before_sending(model_server, catalog):
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(ModelCancelled):
        OllamaGenerateClient(settings(model_server, Api.OLLAMA_GENERATE)).complete(
            request(catalog), cancel=cancel
        )
    assert model_server.requests == []


# -- one deadline, cancel at once, bounded answers ----------------------------------------------


@pytest.mark.parametrize("api", list(Api))
def test_a_server_dripping_one_byte_at_a_time_is_cut_at_the_deadline(model_server, catalog, api):
    """One byte every 0.5 s and never a newline: each read is quick, the exchange is not."""
    model_server.queue(Drip(every=0.5))
    client = client_for(settings(model_server, api, timeout=1.5))
    start = time.monotonic()
    with pytest.raises(ModelError) as info:
        client.complete(request(catalog))
    elapsed = time.monotonic() - start
    assert 1.4 < elapsed < 2.5, elapsed
    assert info.value.kind is ModelErrorKind.TIMEOUT
    assert "did not answer within 1.5 s" in info.value.message


@pytest.mark.parametrize("api", list(Api))
def test_cancel_closes_a_silent_response_at_once(model_server, catalog, api):
    """The server sent its headers and then nothing: cancelling must not wait for a chunk."""
    model_server.queue(Drip(every=30))
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    start = time.monotonic()
    try:
        with pytest.raises(ModelCancelled):
            client_for(settings(model_server, api, timeout=20)).complete(
                request(catalog), cancel=cancel
            )
    finally:
        timer.join()
    assert time.monotonic() - start < 1.5


@pytest.mark.parametrize("api", list(Api))
def test_a_chatty_model_is_stopped_by_the_token_limit(model_server, catalog, api):
    model_server.queue(Chatty())
    client = client_for(settings(model_server, api, max_tokens=40))
    reply = client.complete(request(catalog))
    assert reply.cut_off and reply.tokens == 40
    assert reply.text == "bla " * 40
    with pytest.raises(ModelError) as info:
        reply.require_calls()
    assert "the model's answer was cut off at 40 tokens" in info.value.message
    body = model_server.requests[0].body
    limit = body.get("max_tokens") or body["options"]["num_predict"]
    assert limit == 40


def test_a_cut_off_native_call_keeps_what_the_model_wrote(model_server, catalog):
    model_server.queue(Calls([("git_log", '{"count": 5, "note": "abc')], finish="length"))
    reply = OpenAIChatClient(settings(model_server, Api.OPENAI)).complete(request(catalog))
    assert reply.cut_off and not reply.calls
    assert reply.errors == ("call 1 (git_log): the arguments are not valid JSON",)
    assert reply.raw == '{"name": "git_log", "arguments": {"count": 5, "note": "abc}'


@pytest.mark.parametrize("api", [Api.OLLAMA_CHAT, Api.OPENAI])
def test_four_parallel_calls_all_come_back(model_server, catalog, api):
    four = [("git_log", {"count": n}) for n in (1, 2, 3)] + [("git_status", {})]
    model_server.queue(Calls(four))
    reply = client_for(settings(model_server, api)).complete(request(catalog))
    assert [(c.name, c.arguments) for c in reply.calls] == four
