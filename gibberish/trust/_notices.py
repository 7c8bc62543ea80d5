"""One-time messages for the user ("your approvals file was damaged", "no secure keyring").

A notice is something the user should read once, not on every menu refresh: the tray
and the CLI drain them (``drain()`` returns the pending ones and forgets them) and show
them. The same text is queued at most once per ``Notices`` — the Engine keeps one store
per process, so a condition that persists (an insecure keyring) is reported once per
process. The dedupe is per instance rather than global so that separate stores (and
tests) do not swallow each other's messages. Messages about a new event carry something
unique (a file name with a time stamp), so they are never lost.
"""

from __future__ import annotations

import threading


class Notices:
    """A queue of one-time messages with drain semantics."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._seen: set[str] = set()
        self._pending: list[str] = []

    def add(self, message: str) -> None:
        with self._lock:
            if message not in self._seen:
                self._seen.add(message)
                self._pending.append(message)

    def drain(self) -> list[str]:
        with self._lock:
            pending, self._pending = self._pending, []
        return pending
