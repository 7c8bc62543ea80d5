"""The Hyprland backend: the active window's pid from Hyprland's request socket.

``hyprctl activewindow -j`` is a thin client of the socket
``$XDG_RUNTIME_DIR/hypr/$HYPRLAND_INSTANCE_SIGNATURE/.socket.sock`` (``/tmp/hypr/…`` before
Hyprland 0.40): it writes ``j/activewindow`` and reads one JSON object (``{}`` when no
window has the focus) until the compositor closes the connection. Speaking to the socket
directly spawns nothing per question and needs no ``hyprctl`` on ``PATH``.
"""

from __future__ import annotations

import json
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gibberish.desktop.ipc_focus import IpcFocusProvider, valid_pid

ACTIVE_WINDOW = b"j/activewindow"
MAX_REPLY = 1024 * 1024


class HyprlandError(Exception):
    """The socket is gone or did not answer as Hyprland does."""


def socket_path(env: Mapping[str, str]) -> Path | None:
    """The request socket of the Hyprland instance this session belongs to."""
    signature = env.get("HYPRLAND_INSTANCE_SIGNATURE", "")
    if not signature or "/" in signature or signature in (".", ".."):
        return None
    candidates = []
    if env.get("XDG_RUNTIME_DIR"):
        candidates.append(Path(env["XDG_RUNTIME_DIR"]) / "hypr" / signature / ".socket.sock")
    candidates.append(Path("/tmp/hypr") / signature / ".socket.sock")
    return next((c for c in candidates if c.exists()), candidates[0])


def request(path: Path, command: bytes, *, timeout: float = 1.0) -> Any:
    """Send one request and decode the JSON answer."""
    data = bytearray()
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(command)
            while chunk := sock.recv(65536):
                data += chunk
                if len(data) > MAX_REPLY:
                    raise HyprlandError(f"{path} answered more than a window description.")
    except OSError as exc:
        raise HyprlandError(f"the Hyprland socket {path} cannot be reached: {exc}") from None
    try:
        return json.loads(bytes(data))
    except ValueError:
        raise HyprlandError(f"{path} answered {bytes(data[:60])!r}, not JSON.") from None


def active_pid(answer: Any) -> int | None:
    return valid_pid(answer.get("pid")) if isinstance(answer, dict) else None


class HyprlandFocusProvider(IpcFocusProvider):
    """The focused Hyprland window's process."""

    name = "hyprland"
    error = HyprlandError
    not_set = "HYPRLAND_INSTANCE_SIGNATURE is not set: start gibberish inside Hyprland."
    gone = "Is Hyprland still running? Restart gibberish from inside it."

    def socket_path(self, env: Mapping[str, str]) -> Path | None:
        return socket_path(env)

    def focused_pid(self, path: str | Path, timeout: float) -> int | None:
        return active_pid(request(Path(path), ACTIVE_WINDOW, timeout=timeout))

    def probe(self, path: str | Path, timeout: float) -> None:
        request(Path(path), ACTIVE_WINDOW, timeout=timeout)
