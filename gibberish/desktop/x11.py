"""The X11 backend: the active window's process, found with ``xprop`` and psutil."""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Mapping

from gibberish.desktop.focus import FocusInfo, Runner, describe_process, run_quiet
from gibberish.logger import logger

log = logger("gibberish.desktop.x11")


class X11FocusProvider:
    """The active X11 window's process.

    ``xprop -root _NET_ACTIVE_WINDOW`` names the window, ``xprop -id <win> _NET_WM_PID``
    its process. ``xprop`` (x11-utils) was chosen over python-xlib or ctypes to libX11:
    no new dependency and nothing loaded into the tray's own process. Returns None when
    ``DISPLAY`` is unset, in a Wayland session (XWayland only sees X11 windows, so the
    answer would be stale), when xprop is missing or slow, or when the window has no pid.
    """

    name = "x11"

    def __init__(
        self,
        *,
        env: Mapping[str, str] | None = None,
        run: Runner | None = None,
        timeout: float = 0.5,
    ) -> None:
        self._env = env
        self._run = run or (lambda argv: run_quiet(argv, timeout=timeout, env=env))

    def focused(self) -> FocusInfo | None:
        env = self._env if self._env is not None else os.environ
        if not env.get("DISPLAY"):
            log.debug("no focused window: DISPLAY is not set")
            return None
        if env.get("WAYLAND_DISPLAY") or env.get("XDG_SESSION_TYPE") == "wayland":
            log.debug("no focused window: a Wayland session (X11 would only see XWayland)")
            return None
        try:
            window = _parse_window(self._run(["xprop", "-root", "_NET_ACTIVE_WINDOW"]))
            if window is None:
                log.debug("no focused window: xprop named no active window")
                return None
            pid = _parse_pid(self._run(["xprop", "-id", window, "_NET_WM_PID"]))
            if pid is None:
                log.debug("no focused window: window %s has no _NET_WM_PID", window)
                return None
            return describe_process(pid)
        except Exception as exc:
            log.warning("finding the focused window failed: %s", exc, exc_info=True)
            return None

    def problem(self) -> str | None:
        """Why this backend cannot answer here (a sentence with what to do), or None."""
        env = self._env if self._env is not None else os.environ
        if not env.get("DISPLAY"):
            return "DISPLAY is not set: no X11 display to ask."
        if shutil.which("xprop", path=env.get("PATH")) is None:
            return "xprop is missing: install the package “x11-utils”."
        if self._run(["xprop", "-root", "_NET_ACTIVE_WINDOW"]) is None:
            return (
                f"the X display {env['DISPLAY']} does not answer xprop: is the X server "
                "running, and is this gibberish started inside that session?"
            )
        return None


def _parse_window(output: str | None) -> str | None:
    # "_NET_ACTIVE_WINDOW(WINDOW): window id # 0x3a00007" (0x0 when nothing is focused)
    match = re.search(r"#\s*(0x[0-9a-fA-F]+)", output or "")
    if match is None or int(match.group(1), 16) == 0:
        return None
    return match.group(1)


def _parse_pid(output: str | None) -> int | None:
    # "_NET_WM_PID(CARDINAL) = 12345", or "_NET_WM_PID:  not found."
    match = re.search(r"=\s*(\d+)", output or "")
    if match is None or int(match.group(1)) <= 0:
        return None
    return int(match.group(1))
