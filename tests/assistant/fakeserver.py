"""A scripted model server on 127.0.0.1 that speaks the documented shapes of the APIs.

It implements what the clients rely on — Ollama ``/api/generate`` (raw, NDJSON stream or one
object), Ollama ``/api/chat`` (NDJSON stream or one object, ``message.tool_calls`` with
object arguments), OpenAI ``/v1/chat/completions`` (one object, or SSE chunks with
``delta.tool_calls`` fragments and ``data: [DONE]``) — plus their errors: an unknown model
is a 404 with the runtime's message. Every request body is recorded so tests can assert
what the client sent. Replies are queued per test; sleeps wait on an event that ``stop``
sets, so shutting down never waits for a slow script.
"""

from __future__ import annotations

import contextlib
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Text:
    """The model writes ``text`` (split into ``chunk``-sized pieces when streaming)."""

    text: str
    chunk: int = 7
    delay: float = 0.0
    finish: str = "stop"
    """``done_reason`` (Ollama) / ``finish_reason`` (OpenAI) of the last chunk."""
    tokens: int | None = None
    """``eval_count`` / ``usage.completion_tokens``, when the server reports it."""


@dataclass
class Calls:
    """The runtime reports tool calls (chat APIs): ``[(name, arguments), …]``."""

    calls: list[tuple[str, dict[str, Any] | str]]
    """Arguments as an object, or (OpenAI) as raw text — e.g. JSON cut off mid-way."""
    text: str = ""
    finish: str | None = None
    tokens: int | None = None


@dataclass
class Status:
    code: int
    body: Any = field(default_factory=dict)


@dataclass
class Stall:
    """Send nothing for ``seconds`` (the test's client should time out first)."""

    seconds: float


@dataclass
class Drip:
    """Answer 200, then send one byte of ``text`` every ``every`` seconds, never a newline."""

    every: float = 0.5
    text: str = "x" * 1000


@dataclass
class Chatty:
    """A model that talks until the token limit the request asked for (one ``word`` per
    token), then stops with ``length``; with no limit it goes on for ``fallback`` tokens."""

    word: str = "bla "
    fallback: int = 100_000


@dataclass
class Garbage:
    """Answer 200 with a body that is not JSON."""

    body: str = "<html>hello</html>"


@dataclass
class StreamError:
    """Start a normal NDJSON stream, then report ``message`` as ``{"error": …}`` (Ollama)."""

    message: str


@dataclass
class Recorded:
    path: str
    body: dict[str, Any]
    headers: dict[str, str]


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # keep test output quiet
        pass

    def do_POST(self) -> None:
        with contextlib.suppress(OSError):  # the client went away (timeout / cancel tests)
            self._post()

    def _post(self) -> None:
        fake = self.server.fake
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        fake.raw_bodies.append(raw)
        body = json.loads(raw or b"{}")
        fake.requests.append(Recorded(self.path, body, dict(self.headers.items())))
        openai = self.path == "/v1/chat/completions"
        if self.path not in ("/api/generate", "/api/chat", "/v1/chat/completions"):
            self._send(404, "404 page not found", "text/plain")
            return
        model = body.get("model")
        if model not in fake.models:
            message = f'model "{model}" not found, try pulling it first'
            if openai:
                err = {"error": {"message": message, "type": "api_error", "code": None}}
                self._send(404, err)
            else:
                self._send(404, {"error": message})
            return
        reply = fake.replies.popleft() if fake.replies else Status(500, {"error": "no reply"})
        if isinstance(reply, Status):
            self._send(reply.code, reply.body)
            return
        if isinstance(reply, Stall):
            fake.stopping.wait(reply.seconds)
            self._send(200, {"error": "too late"})
            return
        if isinstance(reply, Drip):
            self._start_stream("application/x-ndjson")
            for ch in reply.text:
                self._line(ch, reply.every)
                if fake.stopping.is_set():
                    break
            return
        if isinstance(reply, Chatty):
            limit = body.get("max_tokens") or (body.get("options") or {}).get("num_predict")
            count = limit or reply.fallback
            reply = Text(reply.word * count, chunk=len(reply.word), finish="length", tokens=count)
        if isinstance(reply, Garbage):
            self._send(200, reply.body, "text/html")
            return
        if isinstance(reply, StreamError):
            self._start_stream("application/x-ndjson")
            self._line(json.dumps({"model": model, "response": "<start", "done": False}) + "\n")
            self._line(json.dumps({"error": reply.message}) + "\n")
            return
        default_stream = not openai
        stream = body.get("stream", default_stream)
        if self.path == "/api/generate":
            self._generate(model, reply, stream)
        elif self.path == "/api/chat":
            self._ollama_chat(model, reply, stream)
        else:
            self._openai(model, reply, stream)

    # -- plumbing -----------------------------------------------------------------------------
    def _send(self, code: int, body: Any, content_type: str = "application/json") -> None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _start_stream(self, content_type: str) -> None:
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.end_headers()

    def _line(self, text: str, delay: float = 0.0) -> None:
        self.wfile.write(text.encode())
        self.wfile.flush()
        if delay:
            self.server.fake.stopping.wait(delay)

    @staticmethod
    def _pieces(text: str, size: int) -> list[str]:
        return [text[i : i + size] for i in range(0, len(text), size)] or [""]

    # -- Ollama --------------------------------------------------------------------------------
    def _generate(self, model: str, reply: Any, stream: bool) -> None:
        assert isinstance(reply, Text), "generate answers with Text"
        stamp = {"model": model, "created_at": "2025-01-01T00:00:00Z"}
        done = {"done": True, "done_reason": reply.finish}
        if reply.tokens is not None:
            done["eval_count"] = reply.tokens
        if not stream:
            self._send(200, {**stamp, "response": reply.text, **done})
            return
        self._start_stream("application/x-ndjson")
        for piece in self._pieces(reply.text, reply.chunk):
            self._line(json.dumps({**stamp, "response": piece, "done": False}) + "\n", reply.delay)
        self._line(json.dumps({**stamp, "response": "", **done}) + "\n")

    def _ollama_chat(self, model: str, reply: Any, stream: bool) -> None:
        stamp = {"model": model, "created_at": "2025-01-01T00:00:00Z"}
        text = reply.text
        tool_calls = (
            [{"function": {"name": n, "arguments": a}} for n, a in reply.calls]
            if isinstance(reply, Calls)
            else []
        )
        done = {"done": True, "done_reason": getattr(reply, "finish", None) or "stop"}
        if getattr(reply, "tokens", None) is not None:
            done["eval_count"] = reply.tokens
        if not stream:
            message: dict[str, Any] = {"role": "assistant", "content": text}
            if tool_calls:
                message["tool_calls"] = tool_calls
            self._send(200, {**stamp, "message": message, **done})
            return
        self._start_stream("application/x-ndjson")
        delay = getattr(reply, "delay", 0.0)
        if text:
            for piece in self._pieces(text, getattr(reply, "chunk", 7)):
                msg = {"role": "assistant", "content": piece}
                self._line(json.dumps({**stamp, "message": msg, "done": False}) + "\n", delay)
        if tool_calls:
            msg = {"role": "assistant", "content": "", "tool_calls": tool_calls}
            self._line(json.dumps({**stamp, "message": msg, "done": False}) + "\n")
        final = {"role": "assistant", "content": ""}
        self._line(json.dumps({**stamp, "message": final, **done}) + "\n")

    # -- OpenAI --------------------------------------------------------------------------------
    def _openai(self, model: str, reply: Any, stream: bool) -> None:
        calls = reply.calls if isinstance(reply, Calls) else []
        text = reply.text
        base = {"id": "chatcmpl-1", "created": 0, "model": model}
        finish = getattr(reply, "finish", None) or ("tool_calls" if calls else "stop")
        tokens = getattr(reply, "tokens", None)
        usage = {"completion_tokens": tokens} if tokens is not None else None
        if not stream:
            message: dict[str, Any] = {"role": "assistant", "content": text or None}
            if calls:
                message["tool_calls"] = [
                    {
                        "id": f"call_{i}",
                        "type": "function",
                        "function": {"name": n, "arguments": _arguments(a)},
                    }
                    for i, (n, a) in enumerate(calls)
                ]
            choice = {"index": 0, "message": message, "finish_reason": finish}
            data = {**base, "object": "chat.completion", "choices": [choice]}
            if usage:
                data["usage"] = usage
            self._send(200, data)
            return
        self._start_stream("text/event-stream")

        def event(delta: dict[str, Any], finish: str | None = None) -> None:
            chunk = {
                **base,
                "object": "chat.completion.chunk",
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
            }
            self._line(f"data: {json.dumps(chunk)}\n\n", getattr(reply, "delay", 0.0))

        event({"role": "assistant", "content": ""})
        if text:
            for piece in self._pieces(text, getattr(reply, "chunk", 7)):
                event({"content": piece})
        for i, (name, args) in enumerate(calls):
            head = {"index": i, "id": f"call_{i}", "type": "function"}
            event({"tool_calls": [{**head, "function": {"name": name, "arguments": ""}}]})
            encoded = _arguments(args)
            for piece in self._pieces(encoded, 5):
                event({"tool_calls": [{"index": i, "function": {"arguments": piece}}]})
        event({}, finish)
        if usage:
            self._line(f"data: {json.dumps({**base, 'choices': [], 'usage': usage})}\n\n")
        self._line(": keep-alive comment\n\n")
        self._line("data: [DONE]\n\n")


def _arguments(args: dict[str, Any] | str) -> str:
    return args if isinstance(args, str) else json.dumps(args)


class _Server(ThreadingHTTPServer):
    fake: FakeModelServer
    daemon_threads = False  # so that server_close() joins every handler thread


class FakeModelServer:
    def __init__(self, models: tuple[str, ...] = ("functiongemma",)) -> None:
        self.models = set(models)
        self.requests: list[Recorded] = []
        self.raw_bodies: list[bytes] = []
        self.replies: deque[Any] = deque()
        self.stopping = threading.Event()
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.fake = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def queue(self, *replies: Any) -> None:
        self.replies.extend(replies)

    def start(self) -> FakeModelServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()  # joins the handler threads (block_on_close)
        self._thread.join()
