"""The Sway / i3 backend: the focused window's pid from the compositor's IPC socket.

Sway and i3 speak the same IPC protocol on the Unix socket named by ``SWAYSOCK`` (or
``I3SOCK``): a message is the magic ``i3-ipc``, a 32-bit payload length, a 32-bit type
(native byte order) and a JSON payload. ``GET_TREE`` answers the whole layout tree; the
focused window is the node with ``"focused": true`` and its ``pid`` is the client's
process. The framing is a dozen lines, so no IPC library is added for it, and nothing
is spawned per question (``swaymsg`` would be one process each time).
"""

from __future__ import annotations

import json
import socket
import struct
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from gibberish.desktop.ipc_focus import IpcFocusProvider, valid_pid

MAGIC = b"i3-ipc"
GET_TREE = 4
GET_VERSION = 7
_HEADER = struct.Struct("=6sII")
MAX_REPLY = 64 * 1024 * 1024
"""A layout tree is tens of kilobytes; a larger answer is not from a compositor."""


class IpcError(Exception):
    """The compositor's socket is gone or answered something that is not its protocol."""


def socket_path(env: Mapping[str, str]) -> str | None:
    """Sway's socket (it also sets ``I3SOCK``; i3's own tree carries no pids, so i3 on X11
    is asked through ``xprop`` instead)."""
    return env.get("SWAYSOCK") or env.get("I3SOCK") or None


def ask(path: str, kind: int, payload: bytes = b"", *, timeout: float = 1.0) -> Any:
    """Send one IPC message and return the decoded JSON reply."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(path)
            sock.sendall(_HEADER.pack(MAGIC, len(payload), kind) + payload)
            magic, length, _ = _HEADER.unpack(_read(sock, _HEADER.size))
            if magic != MAGIC or length > MAX_REPLY:
                raise IpcError(f"{path} does not speak the Sway/i3 IPC protocol.")
            return json.loads(_read(sock, length))
    except OSError as exc:
        raise IpcError(f"the compositor socket {path} cannot be reached: {exc}") from None
    except ValueError as exc:
        raise IpcError(f"the compositor at {path} answered something unreadable: {exc}") from None


def _read(sock: socket.socket, size: int) -> bytes:
    data = bytearray()
    while len(data) < size:
        chunk = sock.recv(size - len(data))
        if not chunk:
            raise IpcError("the compositor closed the connection mid-answer.")
        data += chunk
    return bytes(data)


def _nodes(node: Any) -> Iterator[dict[str, Any]]:
    stack = [node]
    while stack:
        current = stack.pop()
        if not isinstance(current, dict):
            continue
        yield current
        for key in ("nodes", "floating_nodes"):
            children = current.get(key)
            if isinstance(children, list):
                stack.extend(children)


def focused_pid(tree: Any) -> int | None:
    """The pid of the focused window in a ``GET_TREE`` answer (None: a workspace is focused)."""
    for node in _nodes(tree):
        if node.get("focused") is True:
            return valid_pid(node.get("pid"))
    return None


class SwayFocusProvider(IpcFocusProvider):
    """The focused Sway/i3 window's process, over the IPC socket."""

    name = "sway"
    error = IpcError
    not_set = "SWAYSOCK is not set: start gibberish from inside the Sway session."
    gone = "Is Sway still running? Restart gibberish from inside it."

    def socket_path(self, env: Mapping[str, str]) -> str | None:
        return socket_path(env)

    def focused_pid(self, path: str | Path, timeout: float) -> int | None:
        return focused_pid(ask(str(path), GET_TREE, timeout=timeout))

    def probe(self, path: str | Path, timeout: float) -> None:
        ask(str(path), GET_VERSION, timeout=timeout)
