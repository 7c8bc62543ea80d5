"""Cassettes: real model-server exchanges recorded once, replayed byte for byte in the suite.

``RecordingProxy`` sits on 127.0.0.1 in front of a real server (llama.cpp's
``llama-server``, Ollama): it forwards each request unchanged, relays the response to the
client chunk by chunk as it arrives (so streaming behaves as it does against the server),
and keeps both. ``Cassette.save`` writes them as JSON: the request's method, path and exact
body text; the response's status, content type and body as the list of chunks received.

``ReplayServer`` serves a cassette on 127.0.0.1: the n-th request must equal the n-th
recorded one *byte for byte* — a client that now sends something else gets HTTP 599 and
the difference is kept in ``mismatches`` (re-record with scripts/record-cassettes.py when a
change to the request is intended) — and the response body goes out in the recorded chunks.
Only the framing differs: replies are sent close-delimited (HTTP/1.0), not chunked.
"""

from __future__ import annotations

import base64
import contextlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx

FORMAT = 1


@dataclass
class Exchange:
    method: str
    path: str
    request_body: bytes
    status: int = 0
    content_type: str = ""
    chunks: list[bytes] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "request": {"method": self.method, "path": self.path, **_text(self.request_body)},
            "response": {
                "status": self.status,
                "content_type": self.content_type,
                "chunks": [_text(c) for c in self.chunks],
            },
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Exchange:
        request, response = data["request"], data["response"]
        return cls(
            request["method"],
            request["path"],
            _bytes(request),
            response["status"],
            response["content_type"],
            [_bytes(c) for c in response["chunks"]],
        )


def _text(data: bytes) -> dict[str, str]:
    """UTF-8 text when it is (readable diffs), base64 otherwise — either way exact bytes."""
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(data).decode("ascii")}


def _bytes(item: dict[str, str]) -> bytes:
    return item["text"].encode("utf-8") if "text" in item else base64.b64decode(item["base64"])


@dataclass
class Cassette:
    exchanges: list[Exchange] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    """What was recorded and how (server, model, scenario, the outcome seen)."""

    def save(self, path: Path) -> None:
        data = {
            "format": FORMAT,
            "meta": self.meta,
            "exchanges": [e.to_dict() for e in self.exchanges],
        }
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path) -> Cassette:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("format") != FORMAT:
            raise ValueError(f"{path}: cassette format {data.get('format')!r}, expected {FORMAT}")
        return cls([Exchange.from_dict(e) for e in data["exchanges"]], data.get("meta", {}))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        with contextlib.suppress(OSError):  # the client went away
            self.server.owner.handle(self, Exchange("POST", self.path, body))

    def start(self, status: int, content_type: str) -> None:
        self.send_response(status)
        if content_type:
            self.send_header("Content-Type", content_type)
        self.end_headers()

    def chunk(self, data: bytes) -> None:
        self.wfile.write(data)
        self.wfile.flush()


class _Server(ThreadingHTTPServer):
    owner: _Loopback
    daemon_threads = False


class _Loopback:
    """A threaded HTTP server on 127.0.0.1 that hands each request to ``handle``."""

    def __init__(self) -> None:
        self._httpd = _Server(("127.0.0.1", 0), _Handler)
        self._httpd.owner = self
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}"

    def handle(self, handler: _Handler, exchange: Exchange) -> None:
        raise NotImplementedError

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


class RecordingProxy(_Loopback):
    """Forward to ``target``, relay and keep every exchange (see the module docstring)."""

    def __init__(self, target: str, timeout: float = 600.0) -> None:
        super().__init__()
        self.target = target.rstrip("/")
        self.timeout = timeout
        self.cassette = Cassette()

    def handle(self, handler: _Handler, exchange: Exchange) -> None:
        headers = {"Content-Type": handler.headers.get("Content-Type", "application/json")}
        auth = handler.headers.get("Authorization")
        if auth:
            headers["Authorization"] = auth
        with (
            httpx.Client(timeout=self.timeout) as http,
            http.stream(
                exchange.method,
                self.target + exchange.path,
                content=exchange.request_body,
                headers=headers,
            ) as response,
        ):
            exchange.status = response.status_code
            exchange.content_type = response.headers.get("Content-Type", "")
            handler.start(exchange.status, exchange.content_type)
            for data in response.iter_raw():
                exchange.chunks.append(data)
                handler.chunk(data)
        self.cassette.exchanges.append(exchange)


class ReplayServer(_Loopback):
    """Serve ``cassette``'s responses to requests that match it byte for byte."""

    def __init__(self, cassette: Cassette) -> None:
        super().__init__()
        self.cassette = cassette
        self.served = 0
        self.mismatches: list[str] = []
        self._lock = threading.Lock()

    def handle(self, handler: _Handler, exchange: Exchange) -> None:
        with self._lock:
            n = self.served
            self.served += 1
        recorded = self.cassette.exchanges[n] if n < len(self.cassette.exchanges) else None
        problem = _difference(recorded, exchange, n)
        if problem:
            self.mismatches.append(problem)
            handler.start(599, "text/plain")
            handler.chunk(problem.encode())
            return
        assert recorded is not None
        handler.start(recorded.status, recorded.content_type)
        for data in recorded.chunks:
            handler.chunk(data)


def _difference(recorded: Exchange | None, sent: Exchange, n: int) -> str:
    if recorded is None:
        return f"request {n + 1} was not recorded: {sent.method} {sent.path}"
    if (recorded.method, recorded.path) != (sent.method, sent.path):
        return f"request {n + 1}: {sent.method} {sent.path}, recorded {recorded.path}"
    if recorded.request_body != sent.request_body:
        a, b = recorded.request_body, sent.request_body
        at = next(
            (i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b))
        )
        return (
            f"request {n + 1} body differs from the recording at byte {at}: "
            f"sent …{b[max(0, at - 40) : at + 40]!r}…, recorded …{a[max(0, at - 40) : at + 40]!r}…"
        )
    return ""
