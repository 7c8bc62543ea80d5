"""One deadline and one cancel for a whole HTTP exchange with a model server.

httpx's timeouts bound each *read*, not the exchange: a server that sends one byte every
half second never trips a 3 s read timeout, and a reader blocked in ``recv`` does not look
at a cancel event until the next chunk arrives. ``Watchdog`` closes both gaps: a small
thread waits for the deadline or the cancel event and then shuts the connection's socket
down, which wakes the blocked reader at once. The socket is taken from httpcore's ``trace``
hook the moment the TCP connection is made, so the wait for the response headers is
covered too. After the exchange, ``reason`` says whether the watchdog ended it.
"""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from typing import Any

POLL_SECONDS = 0.02
"""How often the watchdog looks at a cancel event (an Event cannot be waited on together
with the deadline); with no cancel event it simply sleeps until the deadline."""


class Watchdog:
    """Use as a context manager around the request; pass ``trace`` as httpx's trace hook."""

    TIMEOUT = "timeout"
    CANCELLED = "cancelled"

    def __init__(self, deadline: float, cancel: threading.Event | None = None) -> None:
        self.deadline = deadline
        self.cancel = cancel
        self.reason: str | None = None
        self._socket: socket.socket | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._thread = threading.Thread(target=self._watch, name="model-exchange", daemon=True)

    def remaining(self) -> float:
        return max(0.0, self.deadline - time.monotonic())

    def trace(self, event: str, info: dict[str, Any]) -> None:
        """httpcore's trace extension: remember the socket once the connection exists."""
        if event != "connection.connect_tcp.complete":
            return
        stream = info.get("return_value")
        sock = stream.get_extra_info("socket") if stream is not None else None
        with self._lock:
            self._socket = sock
            if self.reason is not None:
                self._shut()

    def __enter__(self) -> Watchdog:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._done.set()
        self._thread.join()

    def _watch(self) -> None:
        while not self._done.is_set():
            if self.cancel is not None and self.cancel.is_set():
                self._fire(self.CANCELLED)
                return
            left = self.deadline - time.monotonic()
            if left <= 0:
                self._fire(self.TIMEOUT)
                return
            self._done.wait(min(left, POLL_SECONDS) if self.cancel is not None else left)

    def _fire(self, reason: str) -> None:
        with self._lock:
            self.reason = reason
            self._shut()

    def _shut(self) -> None:
        if self._socket is not None:
            with contextlib.suppress(OSError):
                self._socket.shutdown(socket.SHUT_RDWR)
