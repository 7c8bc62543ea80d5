"""The Hyprland backend: the active window's pid from Hyprland's request socket.

``hyprctl activewindow -j`` is a thin client of the socket
``$XDG_RUNTIME_DIR/hypr/$HYPRLAND_INSTANCE_SIGNATURE/.socket.sock`` (``/tmp/hypr/…`` before
Hyprland 0.40): it writes ``j/activewindow`` and reads one JSON object (``{}`` when no
window has the focus) until the compositor closes the connection. Speaking to the socket
directly spawns nothing per question and needs no ``hyprctl`` on ``PATH``.
"""

from __future__ import annotations

import json
import logging
import os
import socket
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gibberish.trust.context import FocusInfo, describe_process

log = logging.getLogger("gibberish.desktop.hyprland")

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
    pid = answer.get("pid") if isinstance(answer, dict) else None
    return pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0 else None


class HyprlandFocusProvider:
    """The focused Hyprland window's process."""

    name = "hyprland"

    def __init__(self, *, env: Mapping[str, str] | None = None, timeout: float = 1.0) -> None:
        self._env = env
        self._timeout = timeout

    def _path(self) -> Path | None:
        return socket_path(self._env if self._env is not None else os.environ)

    def focused(self) -> FocusInfo | None:
        path = self._path()
        if path is None:
            return None
        try:
            pid = active_pid(request(path, ACTIVE_WINDOW, timeout=self._timeout))
        except HyprlandError as exc:
            log.debug("no focused window: %s", exc)
            return None
        return describe_process(pid) if pid is not None else None

    def problem(self) -> str | None:
        path = self._path()
        if path is None:
            return "HYPRLAND_INSTANCE_SIGNATURE is not set: start gibberish inside Hyprland."
        try:
            request(path, ACTIVE_WINDOW, timeout=self._timeout)
        except HyprlandError as exc:
            return f"{exc} Is Hyprland still running? Restart gibberish from inside it."
        return None
