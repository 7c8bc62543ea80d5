"""Ask the running tray to approve an MCP call, over its single-instance socket. Qt-free.

The MCP server has no window and its stdio belongs to the agent, so it cannot ask the
person itself. When the tray runs, the server connects to the tray's local socket (the
same one a second ``gibberish`` start uses), sends one line

    mcp-approve {"ref": ..., "arguments": {...}, "cwd": ..., "digest": ...}

and waits for one JSON line back: ``{"answer": "once" | "always" | "no", "message": ...}``.
The tray prepares the run itself from ``ref``, ``arguments`` and ``cwd`` with its own
Engine and shows its usual approval dialog; it answers ``no`` when what it would show is
not what the server is about to run (a different argv or skill fingerprint). A tray too
old to know the request answers ``ok``, which counts as no answer. No tray, no answer
within the wait, or any socket error: ``None`` — the caller refuses the call and says how
to approve instead. Never a silent run.
"""

from __future__ import annotations

import json
from typing import Any

from msgspec import Struct

from gibberish.instance_socket import APPROVAL_PREFIX, exchange

REQUEST_PREFIX = APPROVAL_PREFIX
ANSWERS = frozenset({"once", "always", "no"})
DEFAULT_WAIT = 120.0
MAX_REPLY = 64 * 1024
UNNAMED_CLIENT = "an MCP client"
MAX_CLIENT_NAME = 60


class ApprovalRequest(Struct, frozen=True):
    ref: str
    arguments: dict[str, Any]
    cwd: str
    argv: tuple[str, ...]
    digest: str
    """The skill fingerprint the server will run against."""
    client: str = UNNAMED_CLIENT
    """Who asked (``client_label``), for the dialog."""

    def to_line(self) -> bytes:
        payload = {
            "ref": self.ref,
            "arguments": self.arguments,
            "cwd": self.cwd,
            "argv": list(self.argv),
            "digest": self.digest,
            "client": self.client,
        }
        text = json.dumps(payload, ensure_ascii=False, separators=(",", ":"))
        return (REQUEST_PREFIX + text + "\n").encode("utf-8")

    @classmethod
    def from_line(cls, line: str) -> ApprovalRequest:
        """Parse a request line (the tray side); ValueError when it is malformed."""
        if not line.startswith(REQUEST_PREFIX):
            raise ValueError("not an approval request")
        data = json.loads(line[len(REQUEST_PREFIX) :])
        if not isinstance(data, dict) or not isinstance(data.get("ref"), str):
            raise ValueError("an approval request needs a ref")
        arguments = data.get("arguments") or {}
        if not isinstance(arguments, dict):
            raise ValueError("arguments must be an object")
        return cls(
            ref=data["ref"],
            arguments=arguments,
            cwd=str(data.get("cwd") or ""),
            argv=tuple(str(a) for a in data.get("argv") or ()),
            digest=str(data.get("digest") or ""),
            client=str(data.get("client") or UNNAMED_CLIENT)[: MAX_CLIENT_NAME + 30],
        )


def client_label(name: object, version: object = None) -> str:
    """How the approval dialog names the client that asked: "the MCP client “Claude Code
    1.2”". The name is the client's own (``clientInfo``), so it is shown quoted, without
    control or bidi characters, and cut to ``MAX_CLIENT_NAME`` characters."""
    text = " ".join(str(part) for part in (name, version) if part not in (None, ""))
    text = "".join(c if c.isprintable() and c not in _BIDI else " " for c in text)
    text = " ".join(text.split())
    if not text:
        return UNNAMED_CLIENT
    if len(text) > MAX_CLIENT_NAME:
        text = text[: MAX_CLIENT_NAME - 1] + "…"
    return f"the MCP client “{text}”"


_BIDI = frozenset("\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


def answer_line(answer: str, message: str = "") -> bytes:
    """The tray's reply line."""
    return (json.dumps({"answer": answer, "message": message}) + "\n").encode("utf-8")


def request_approval(
    request: ApprovalRequest, *, path: str | None = None, wait: float = DEFAULT_WAIT
) -> tuple[str, str] | None:
    """``(answer, message)`` from the tray, or None when no tray answered."""
    line = exchange(request.to_line(), wait=wait, limit=MAX_REPLY, path=path)
    if line is None:
        return None
    try:
        reply = json.loads(line.decode("utf-8", errors="replace"))
    except ValueError:
        return None  # "ok": a tray that does not know approval requests
    if not isinstance(reply, dict) or reply.get("answer") not in ANSWERS:
        return None
    return str(reply["answer"]), str(reply.get("message") or "")
