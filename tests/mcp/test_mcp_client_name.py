"""The MCP approval names the client that asked, from its own (untrusted) clientInfo."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from gibberish.mcp.approval import (
    MAX_CLIENT_NAME,
    UNNAMED_CLIENT,
    ApprovalRequest,
    client_label,
)
from gibberish.mcp.server import client_of


@pytest.mark.parametrize(
    ("name", "version", "shown"),
    [
        ("claude-code", "1.2.0", "the MCP client “claude-code 1.2.0”"),
        ("Cursor", None, "the MCP client “Cursor”"),
        ("evil\nname\x1b[31m", "1", "the MCP client “evil name [31m 1”"),
        ("\u202egnp.exe", "", "the MCP client “gnp.exe”"),
        ("", None, UNNAMED_CLIENT),
        ("  \t ", "", UNNAMED_CLIENT),
        (None, None, UNNAMED_CLIENT),
    ],
)
def test_the_client_is_named_quoted_and_printable(name, version, shown) -> None:
    assert client_label(name, version) == shown


def test_a_long_client_name_is_cut() -> None:
    label = client_label("x" * 500)
    assert label.endswith("…”") and len(label) < MAX_CLIENT_NAME + 30


def _context(client_params=None, meta=None):
    session = SimpleNamespace(client_params=client_params)
    return SimpleNamespace(session=session, request_context=SimpleNamespace(meta=meta))


def test_the_client_info_is_read_from_initialize_or_from_the_request_meta() -> None:
    info = SimpleNamespace(name="zed", title=None, version="0.9")
    assert client_of(_context(SimpleNamespace(client_info=info))) == "the MCP client “zed 0.9”"
    meta = {"io.modelcontextprotocol/clientInfo": {"name": "goose", "version": "2"}}
    assert client_of(_context(None, meta)) == "the MCP client “goose 2”"
    assert client_of(None) == UNNAMED_CLIENT
    assert client_of(_context(None, {"io.modelcontextprotocol/clientInfo": 5})) == UNNAMED_CLIENT


def test_the_request_line_carries_the_client_and_the_tray_caps_it() -> None:
    request = ApprovalRequest("a.b", {}, "/", ("x",), "d", client=client_label("zed", "1"))
    line = request.to_line().decode().strip()
    assert ApprovalRequest.from_line(line).client == "the MCP client “zed 1”"
    long = line.replace("zed 1", "z" * 1000)
    assert len(ApprovalRequest.from_line(long).client) <= MAX_CLIENT_NAME + 30
