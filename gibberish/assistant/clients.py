"""HTTP clients for local model runtimes: Ollama (raw generate, chat) and OpenAI-compatible.

All three take the same ``ModelRequest`` (tools + conversation) and give back the same
``ModelReply`` (the text and the calls found in it), so the router does not care which API
is behind the endpoint. They never run anything.

API shapes they implement, checked against the public documentation (read, not copied):

* Ollama ``POST /api/generate`` (github.com/ollama/ollama docs/api.md, "Generate a
  completion"): ``model``, ``prompt``, ``raw: true`` (no template applied — we send our own
  FunctionGemma prompt), ``stream``, ``options`` (``temperature``, ``stop``); the reply is
  NDJSON lines ``{"response": "…", "done": false}`` ending with ``"done": true``.
* Ollama ``POST /api/chat`` (same docs, "Generate a chat completion", and the Ollama blog
  "Streaming responses with tool calling"): ``messages``, ``tools``; a reply line's
  ``message`` carries ``content`` pieces and ``tool_calls`` as
  ``[{"function": {"name": …, "arguments": {…}}}]`` (arguments an object).
  Errors are ``{"error": "…"}``; an unknown model is HTTP 404 ``model "x" not found``.
* OpenAI ``POST /v1/chat/completions`` (platform.openai.com API reference, function
  calling guide): ``tools``; ``choices[0].message.tool_calls[i].function.arguments`` is a
  JSON *string*. Streamed, the reply is server-sent events ``data: {chunk}`` with
  ``choices[0].delta.tool_calls`` fragments keyed by ``index`` (id and name first,
  ``arguments`` text in pieces), ending with ``data: [DONE]``.

Every API gets the same bounds: ``max_tokens`` (``num_predict`` for Ollama) and the
FunctionGemma stop sequences, so a chatty model cannot stream for the whole timeout; the
reply's ``finish_reason`` says when the limit cut it off.

Timeouts: ``ModelSettings.timeout`` seconds is one deadline for connecting and the whole
response, enforced while reading (``exchange.Watchdog``): a server that trickles one byte
at a time is cut off at the deadline, and cancelling closes the connection at once.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from enum import StrEnum
from functools import partial
from typing import Any, ClassVar, Protocol, runtime_checkable

import httpx
from msgspec import Struct

from gibberish.assistant.callparser import MAX_DEPTH, ParsedCall, json_depth, parse_calls
from gibberish.assistant.conversation import Message, tool_names
from gibberish.assistant.exchange import Watchdog
from gibberish.assistant.functiongemma import (
    DEVELOPER_PROMPT,
    STOP_SEQUENCES,
    neutralize,
    render_call,
    render_conversation,
)
from gibberish.assistant.manifest import tool_schemas
from gibberish.assistant.naming import ExposedTool
from gibberish.assistant.settings import (
    Api,
    ModelSettings,
)


class ModelErrorKind(StrEnum):
    UNREACHABLE = "unreachable"
    MODEL_MISSING = "model_missing"
    TIMEOUT = "timeout"
    HTTP = "http"
    PROTOCOL = "protocol"
    CANCELLED = "cancelled"
    NO_CALL = "no_call"


class ModelError(Exception):
    """Talking to the model failed; ``message`` is one sentence for a person."""

    def __init__(
        self,
        message: str,
        kind: ModelErrorKind = ModelErrorKind.PROTOCOL,
        *,
        status: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.kind = kind
        self.status = status


class ModelCancelled(ModelError):
    def __init__(self) -> None:
        super().__init__("Cancelled.", ModelErrorKind.CANCELLED)


class ModelRequest(Struct, frozen=True):
    tools: tuple[ExposedTool, ...]
    messages: tuple[Message, ...]

    @classmethod
    def single(cls, tools: Sequence[ExposedTool], request: str) -> ModelRequest:
        return cls(tuple(tools), (Message("user", request),))


class ModelReply(Struct, frozen=True):
    text: str
    """What the model wrote (the raw text for generate; message content for chat APIs)."""
    calls: tuple[ParsedCall, ...] = ()
    errors: tuple[str, ...] = ()
    """Why (part of) the reply is not a call; empty when every call was read."""
    native: bool = False
    """True when the calls came from the API's ``tool_calls`` field, not from parsing text."""
    finish_reason: str | None = None
    """Why the model stopped, as the server says: ``stop``, ``length``, ``tool_calls`` …"""
    tokens: int | None = None
    """How many tokens the model wrote, when the server says."""
    raw: str = ""
    """Everything the model wrote, call fragments included (for the repair retry)."""
    limit: int | None = None
    """The token limit that was asked for."""

    @property
    def cut_off(self) -> bool:
        return self.finish_reason == "length"

    def cut_off_problem(self) -> str:
        """ "the model's answer was cut off at N tokens" (N as counted by the server)."""
        count = self.tokens or self.limit
        at = f" at {count} tokens" if count else ""
        return f"the model's answer was cut off{at}"

    def require_calls(self) -> tuple[ParsedCall, ...]:
        """The calls, or ``ModelError`` saying the model answered without calling a tool."""
        if self.calls:
            return self.calls
        said = " ".join(self.text.split())
        said = said[:120] + ("…" if len(said) > 120 else "")
        errors = ([self.cut_off_problem()] if self.cut_off else []) + list(self.errors)
        reason = f" ({'; '.join(errors)})" if errors else ""
        shown = f": “{said}”" if said else ""
        raise ModelError(f"The model did not call a tool{reason}{shown}", ModelErrorKind.NO_CALL)


@runtime_checkable
class ModelClient(Protocol):
    """What the router needs from a client (tests may pass their own)."""

    settings: ModelSettings

    def complete(
        self,
        request: ModelRequest,
        *,
        cancel: threading.Event | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply: ...


def _error_detail(response: httpx.Response) -> str:
    try:
        data = response.json()
    except (ValueError, RecursionError):
        return " ".join(response.text.split())[:200]
    if isinstance(data, dict):
        err = data.get("error", data)
        if isinstance(err, dict):
            err = err.get("message", "")
        return str(err)[:200]
    return ""


def _calls_from_text(text: str) -> tuple[tuple[ParsedCall, ...], tuple[str, ...]]:
    result = parse_calls(text)
    return result.calls, result.errors


class _HttpClient:
    api: ClassVar[Api]
    path: ClassVar[str]

    def __init__(self, settings: ModelSettings | None = None) -> None:
        self.settings = settings or ModelSettings(api=self.api)
        self._received = 0
        """Bytes of the reply read so far in the current exchange (for the timeout message)."""

    # -- what each API does differently ---------------------------------------------------
    def url(self) -> str:
        return self.settings.endpoint.rstrip("/") + self.path

    def body(self, request: ModelRequest) -> dict[str, Any]:
        raise NotImplementedError

    def read(
        self,
        lines: Iterator[str],
        on_text: Callable[[str], None] | None,
    ) -> ModelReply:
        raise NotImplementedError

    def headers(self) -> dict[str, str]:
        return {}

    # -- shared -----------------------------------------------------------------------------
    def complete(
        self,
        request: ModelRequest,
        *,
        cancel: threading.Event | None = None,
        on_text: Callable[[str], None] | None = None,
    ) -> ModelReply:
        """Send ``request`` and read the reply; ``ModelError`` with a clear message on failure."""
        s = self.settings
        if cancel is not None and cancel.is_set():
            raise ModelCancelled()
        body = self.body(request)
        watch = Watchdog(time.monotonic() + s.timeout, cancel)
        timeout = httpx.Timeout(s.timeout, connect=min(s.timeout, 10.0))
        self._received = 0
        try:
            with (
                watch,
                httpx.Client(timeout=timeout, headers=self.headers()) as http,
                http.stream(
                    "POST", self.url(), json=body, extensions={"trace": watch.trace}
                ) as response,
            ):
                if response.status_code >= 400:
                    response.read()
                    raise self.http_error(response)
                reply = self.read(self._lines(response, watch), on_text)
            self._check(watch)
            return reply
        except ModelError:
            raise
        except httpx.HTTPError as exc:
            self._check(watch)
            if isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout):
                raise self.unreachable() from exc
            if isinstance(exc, httpx.TimeoutException):
                raise self.timed_out() from exc
            raise ModelError(
                f"Lost the connection to the model server at {s.endpoint}: {exc}",
                ModelErrorKind.PROTOCOL,
            ) from exc

    def _check(self, watch: Watchdog) -> None:
        """Raise for the watchdog's reason, if it ended the exchange."""
        if watch.reason == Watchdog.CANCELLED:
            raise ModelCancelled()
        if watch.reason == Watchdog.TIMEOUT:
            raise self.timed_out()

    def _lines(self, response: httpx.Response, watch: Watchdog) -> Iterator[str]:
        for line in response.iter_lines():
            self._check(watch)
            self._received += len(line) + 1
            yield line
        self._check(watch)

    def unreachable(self) -> ModelError:
        s = self.settings
        if s.api is Api.OPENAI:
            hint = "start your OpenAI-compatible server or set the endpoint in Settings"
        else:
            hint = "start Ollama (`ollama serve`) or set the endpoint in Settings"
        return ModelError(f"No model server at {s.endpoint} — {hint}", ModelErrorKind.UNREACHABLE)

    def timed_out(self) -> ModelError:
        s = self.settings
        if self._received:
            return ModelError(
                f"The model server at {s.endpoint} did not finish its answer within "
                f"{s.timeout:g} s (it had sent {self._received} bytes) — raise the timeout "
                "or lower max_tokens in Settings",
                ModelErrorKind.TIMEOUT,
            )
        return ModelError(
            f"The model server at {s.endpoint} did not answer within {s.timeout:g} s — "
            "the model may still be loading; try again or raise the timeout in Settings",
            ModelErrorKind.TIMEOUT,
        )

    def not_pulled(self) -> ModelError:
        m = self.settings.model
        return ModelError(
            f"Model {m} is not pulled — run `ollama pull {m}`",
            ModelErrorKind.MODEL_MISSING,
            status=404,
        )

    def http_error(self, response: httpx.Response) -> ModelError:
        s = self.settings
        status = response.status_code
        detail = _error_detail(response)
        low = detail.lower()
        if status == 404 and "model" in low and ("not found" in low or "does not exist" in low):
            if s.api is not Api.OPENAI or "pull" in low:
                return self.not_pulled()
            return ModelError(
                f"Model {s.model} is not available at {s.endpoint} (the server says: {detail})",
                ModelErrorKind.MODEL_MISSING,
                status=status,
            )
        if status == 404:
            return ModelError(
                f"The server at {s.endpoint} has no {self.path} — check the endpoint and the "
                f"API type ({s.api.value}) in Settings",
                ModelErrorKind.HTTP,
                status=status,
            )
        said = f": {detail}" if detail else ""
        return ModelError(
            f"The model server at {s.endpoint} answered HTTP {status}{said}",
            ModelErrorKind.HTTP,
            status=status,
        )

    def server_error(self, error: Any) -> ModelError:
        if isinstance(error, dict):
            error = error.get("message", error)
        text = str(error)
        low = text.lower()
        if "not found" in low and "model" in low:
            return self.not_pulled()
        return ModelError(
            f"The model server at {self.settings.endpoint} reported an error: {text}",
            ModelErrorKind.HTTP,
        )

    def bad_json(self) -> ModelError:
        return ModelError(
            f"The server at {self.settings.endpoint} sent a reply that is not valid JSON — is "
            f"it really a {self.settings.api.value} endpoint?",
            ModelErrorKind.PROTOCOL,
        )

    def json_objects(self, lines: Iterator[str]) -> Iterator[dict[str, Any]]:
        """NDJSON (Ollama): one object per non-empty line; ``{"error": …}`` raises."""
        for line in lines:
            line = line.strip()
            if not line:
                continue
            yield self.decode_object(line)

    def decode_object(self, text: str) -> dict[str, Any]:
        """One streamed JSON object; a reply that is not one, or says ``error``, raises."""
        try:
            obj = json.loads(text)
        except (ValueError, RecursionError):  # nested past Python's stack: not a reply
            raise self.bad_json() from None
        if not isinstance(obj, dict):
            raise self.bad_json()
        if "error" in obj:
            raise self.server_error(obj["error"])
        return obj

    def options(self) -> dict[str, Any]:
        """Ollama's ``options``: temperature, the token limit and the stop sequences."""
        opts: dict[str, Any] = {}
        if self.settings.temperature is not None:
            opts["temperature"] = self.settings.temperature
        opts["num_predict"] = self.settings.max_tokens
        opts["stop"] = list(STOP_SEQUENCES)
        return opts

    def reply(
        self, text: str, raw_calls: Sequence[Any], final: Mapping[str, Any], tokens: Any
    ) -> ModelReply:
        """The reply from what was read: native calls when the API gave any, else parsed text."""
        finish = final.get("done_reason") or final.get("finish_reason")
        count = tokens if isinstance(tokens, int) and not isinstance(tokens, bool) else None
        bounded = partial(
            ModelReply,
            finish_reason=str(finish) if finish else None,
            tokens=count,
            limit=self.settings.max_tokens,
        )
        if raw_calls:
            calls, errors = _native_calls(raw_calls)
            raw = text + "".join(_as_written(c) for c in raw_calls)
            return bounded(text, calls, errors, True, raw=raw)
        calls, errors = _calls_from_text(text)
        return bounded(text, calls, errors, False, raw=text)


class OllamaGenerateClient(_HttpClient):
    """``/api/generate`` with ``raw: true``: our own FunctionGemma prompt, the text parsed."""

    api = Api.OLLAMA_GENERATE
    path = "/api/generate"

    @staticmethod
    def prompt(request: ModelRequest) -> str:
        """The FunctionGemma prompt: the trigger sentence as the system text (unless the
        conversation brings its own), the declarations, the conversation."""
        messages = list(request.messages)
        if not messages or messages[0].role not in ("system", "developer"):
            messages.insert(0, Message("system", DEVELOPER_PROMPT))
        if len(messages) < 2 or messages[1].role != "user":
            raise ValueError("a model request starts with the user's message")
        return render_conversation(request.tools, messages)

    def body(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "model": self.settings.model,
            "prompt": self.prompt(request),
            "raw": True,
            "stream": self.settings.stream,
            "options": self.options(),
        }

    def read(self, lines: Iterator[str], on_text: Callable[[str], None] | None) -> ModelReply:
        pieces: list[str] = []
        final: dict[str, Any] = {}
        for obj in self.json_objects(lines):
            piece = obj.get("response") or ""
            if piece:
                pieces.append(piece)
                if on_text is not None:
                    on_text(piece)
            if obj.get("done"):
                final = obj
                break
        return self.reply("".join(pieces), (), final, final.get("eval_count"))


class OllamaChatClient(_HttpClient):
    """``/api/chat`` with ``tools``: Ollama's own template, ``message.tool_calls`` read.

    No trigger sentence is sent: Ollama's renderer for FunctionGemma writes its own after
    any system message, so a hand-written one would reach the model twice.
    """

    api = Api.OLLAMA_CHAT
    path = "/api/chat"

    def body(self, request: ModelRequest) -> dict[str, Any]:
        return {
            "model": self.settings.model,
            "messages": _ollama_messages(request.messages),
            "tools": tool_schemas(request.tools),
            "stream": self.settings.stream,
            "options": self.options(),
        }

    def read(self, lines: Iterator[str], on_text: Callable[[str], None] | None) -> ModelReply:
        pieces: list[str] = []
        raw_calls: list[Any] = []
        final: dict[str, Any] = {}
        for obj in self.json_objects(lines):
            message = obj.get("message") or {}
            if not isinstance(message, dict):
                raise self.bad_json()
            piece = message.get("content") or ""
            if piece:
                pieces.append(piece)
                if on_text is not None:
                    on_text(piece)
            raw_calls.extend(message.get("tool_calls") or ())
            if obj.get("done"):
                final = obj
                break
        return self.reply("".join(pieces), raw_calls, final, final.get("eval_count"))


class OpenAIChatClient(_HttpClient):
    """``/v1/chat/completions`` with ``tools``; streamed ``delta.tool_calls`` are assembled.

    The trigger sentence goes first as a ``system`` message: a FunctionGemma chat template
    (llama.cpp, vLLM) puts the system text before the declarations and adds none itself.
    """

    api = Api.OPENAI
    path = "/v1/chat/completions"

    def url(self) -> str:
        base = self.settings.endpoint.rstrip("/")
        return base + ("/chat/completions" if base.endswith("/v1") else self.path)

    def headers(self) -> dict[str, str]:
        key = self.settings.api_key
        return {"Authorization": f"Bearer {key}"} if key else {}

    def body(self, request: ModelRequest) -> dict[str, Any]:
        messages = list(request.messages)
        if not messages or messages[0].role not in ("system", "developer"):
            messages.insert(0, Message("system", DEVELOPER_PROMPT))
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": _openai_messages(messages),
            "tools": tool_schemas(request.tools),
            "stream": self.settings.stream,
            "max_tokens": self.settings.max_tokens,
            "stop": list(STOP_SEQUENCES),
        }
        if self.settings.stream:
            body["stream_options"] = {"include_usage": True}
        if self.settings.temperature is not None:
            body["temperature"] = self.settings.temperature
        return body

    def read(self, lines: Iterator[str], on_text: Callable[[str], None] | None) -> ModelReply:
        if self.settings.stream:
            return self._read_stream(lines, on_text)
        data = self.decode_object("\n".join(lines))
        choice = _first_choice(data)
        message = choice.get("message") or {}
        text = message.get("content") or ""
        if text and on_text is not None:
            on_text(text)
        usage = data.get("usage") or {}
        tokens = usage.get("completion_tokens") if isinstance(usage, dict) else None
        return self.reply(text, message.get("tool_calls") or [], choice, tokens)

    def _read_stream(
        self, lines: Iterator[str], on_text: Callable[[str], None] | None
    ) -> ModelReply:
        pieces: list[str] = []
        slots: dict[int, dict[str, Any]] = {}
        final: dict[str, Any] = {}
        tokens = None
        for line in lines:
            line = line.strip()
            if not line or line.startswith(":") or not line.startswith("data:"):
                continue
            payload = line[5:].strip()
            if payload == "[DONE]":
                break
            chunk = self.decode_object(payload)
            if isinstance(chunk.get("usage"), dict):
                tokens = chunk["usage"].get("completion_tokens", tokens)
            choice = _first_choice(chunk)
            if choice.get("finish_reason"):
                final = choice
            delta = choice.get("delta") or {}
            piece = delta.get("content") or ""
            if piece:
                pieces.append(piece)
                if on_text is not None:
                    on_text(piece)
            for frag in delta.get("tool_calls") or ():
                _add_fragment(slots, frag)
        raw_calls = [
            {"function": {"name": s["name"], "arguments": "".join(s["arguments"])}}
            for _, s in sorted(slots.items())
        ]
        return self.reply("".join(pieces), raw_calls, final, tokens)


def _add_fragment(slots: dict[int, dict[str, Any]], frag: Any) -> None:
    """One streamed ``delta.tool_calls`` fragment into its slot (by ``index``)."""
    if not isinstance(frag, dict):
        return
    index = frag.get("index", len(slots))
    slot = slots.setdefault(index, {"name": "", "arguments": []})
    function = frag.get("function") or {}
    name = function.get("name")
    if name and name != slot["name"]:
        slot["name"] += name
    if function.get("arguments"):
        slot["arguments"].append(function["arguments"])


def _as_written(raw: Any) -> str:
    """A native call for the repair retry: in FunctionGemma syntax when it could be read,
    else as the API delivered it (arguments text kept even when it is not valid JSON)."""
    calls, _errors = _native_calls([raw])
    if calls:
        return render_call(calls[0].name, calls[0].arguments)
    return _call_text(raw)


def _call_text(raw: Any) -> str:
    """A native call as the model wrote it (arguments text kept even when not valid JSON)."""
    function = raw.get("function") if isinstance(raw, dict) else None
    if not isinstance(function, dict):
        return json.dumps(raw, ensure_ascii=False)
    arguments = function.get("arguments")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return f'{{"name": {json.dumps(function.get("name"))}, "arguments": {arguments}}}'


def _user_text(message: Message) -> str:
    return message.text if message.role == "assistant" else neutralize(message.text)


def _ollama_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Chat messages for ``/api/chat``; a ``tool`` message names its tool (``tool_name``)."""
    names = iter(tool_names(list(messages)))
    out: list[dict[str, Any]] = []
    for message in messages:
        item: dict[str, Any] = {"role": message.role, "content": _user_text(message)}
        if message.calls:
            item["tool_calls"] = [
                {"function": {"name": c.name, "arguments": dict(c.arguments)}}
                for c in message.calls
            ]
        name = next(names) if message.role == "tool" else ""
        if name:
            item["tool_name"] = name
        out.append(item)
    return out


def _openai_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Chat messages; a ``tool`` message answers the matching call id of the calls before it
    and carries the tool's ``name``: FunctionGemma's chat template (rendered by llama.cpp or
    vLLM) refuses a text result without one."""
    out: list[dict[str, Any]] = []
    ids: list[str] = []
    answered = 0
    names = iter(tool_names(list(messages)))
    for n, message in enumerate(messages):
        item: dict[str, Any] = {"role": message.role, "content": _user_text(message)}
        if message.calls:
            ids, answered = [f"call_{n}_{i}" for i in range(len(message.calls))], 0
            item["tool_calls"] = [
                {
                    "id": call_id,
                    "type": "function",
                    "function": {"name": c.name, "arguments": json.dumps(dict(c.arguments))},
                }
                for call_id, c in zip(ids, message.calls, strict=True)
            ]
        if message.role == "tool":
            item["tool_call_id"] = ids[answered] if answered < len(ids) else f"call_{n}"
            answered += 1
            name = next(names)
            if name:
                item["name"] = name
        out.append(item)
    return out


def _first_choice(data: Mapping[str, Any]) -> dict[str, Any]:
    choices = data.get("choices") or []
    first = choices[0] if choices else {}
    return first if isinstance(first, dict) else {}


def _native_calls(raw_calls: Sequence[Any]) -> tuple[tuple[ParsedCall, ...], tuple[str, ...]]:
    """API ``tool_calls`` → ParsedCalls; arguments may be an object (Ollama) or JSON text (OpenAI)."""
    calls: list[ParsedCall] = []
    errors: list[str] = []
    for n, raw in enumerate(raw_calls, 1):
        function = raw.get("function") if isinstance(raw, dict) else None
        if not isinstance(function, dict) or not function.get("name"):
            errors.append(f"call {n}: no function name")
            continue
        name = str(function["name"])
        arguments = function.get("arguments")
        if arguments is None or arguments == "":
            arguments = {}
        elif isinstance(arguments, str):
            try:
                arguments = json.loads(arguments)
            except (ValueError, RecursionError):
                errors.append(f"call {n} ({name}): the arguments are not valid JSON")
                continue
        if json_depth(arguments) > MAX_DEPTH:
            errors.append(f"call {n} ({name}): the arguments nest too deeply")
            continue
        if not isinstance(arguments, dict):
            errors.append(f"call {n} ({name}): the arguments are not an object")
            continue
        calls.append(ParsedCall(name, arguments, json.dumps(raw, ensure_ascii=False), True))
    return tuple(calls), tuple(errors)


CLIENTS: dict[Api, type[_HttpClient]] = {
    Api.OLLAMA_GENERATE: OllamaGenerateClient,
    Api.OLLAMA_CHAT: OllamaChatClient,
    Api.OPENAI: OpenAIChatClient,
}


def client_for(settings: ModelSettings) -> ModelClient:
    """The client for ``settings.api``."""
    return CLIENTS[settings.api](settings)
