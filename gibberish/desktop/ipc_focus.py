"""What every compositor asked over its own socket has in common: find the socket from
the environment, ask for the focused window's process, and say in one sentence why that
cannot be done. Sway and Hyprland differ only in how they are asked."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from gibberish.desktop.focus import FocusInfo, describe_process
from gibberish.logger import logger

log = logger("gibberish.desktop")


def valid_pid(value: Any) -> int | None:
    """A compositor's pid field, when it is a real process id (never a bool or 0)."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


class IpcFocusProvider:
    """Subclasses name the compositor and say how to find its socket and ask it."""

    name = ""
    error: type[Exception] = OSError
    not_set = ""  # the sentence when the socket's variable is not set
    gone = ""  # appended to the error when the compositor does not answer

    def __init__(self, *, env: Mapping[str, str] | None = None, timeout: float = 1.0) -> None:
        self._env = env
        self._timeout = timeout

    def socket_path(self, env: Mapping[str, str]) -> str | Path | None:
        raise NotImplementedError

    def focused_pid(self, path: str | Path, timeout: float) -> int | None:
        raise NotImplementedError

    def probe(self, path: str | Path, timeout: float) -> None:
        raise NotImplementedError

    def _path(self) -> str | Path | None:
        return self.socket_path(self._env if self._env is not None else os.environ)

    def focused(self) -> FocusInfo | None:
        path = self._path()
        if path is None:
            log.debug("no focused window: %s", self.not_set)
            return None
        try:
            pid = self.focused_pid(path, self._timeout)
        except self.error as exc:
            log.debug("no focused window: %s", exc)
            return None
        return describe_process(pid) if pid is not None else None

    def problem(self) -> str | None:
        path = self._path()
        if path is None:
            return self.not_set
        try:
            self.probe(path, self._timeout)
        except self.error as exc:
            return f"{exc} {self.gone}"
        return None
