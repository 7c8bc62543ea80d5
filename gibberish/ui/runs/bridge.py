"""Getting a run's output and its end from the runner's thread onto the GUI thread.

The runner calls ``on_output`` and the done callback on its own background thread, and
Qt widgets may only be touched from the GUI thread. The choice made here:

* **Output** goes into ``OutputTail``, a lock-protected buffer that keeps only the newest
  ``limit`` bytes (older ones are counted, not kept). The first chunk after the GUI has
  drained the buffer emits ``RunEvents.output_ready`` through a *queued* connection;
  further chunks only append. So however fast a tool prints, at most one wake-up event is
  waiting in the GUI's queue, memory stays bounded, and the GUI decides when to look
  (the result window drains on a 50 ms timer and appends a bounded tail).
* **The end** (``RunResult``) is emitted once with ``RunEvents.finished``, also queued,
  so it is handled after every wake-up that came before it.

A signal with ``Qt.QueuedConnection`` was preferred over ``QMetaObject.invokeMethod`` or
a polling timer: it is the documented thread-safe way into a QObject's thread, it needs
no event loop in the runner's thread, and when nothing happens nothing runs.
"""

from __future__ import annotations

import codecs
import threading
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from gibberish.runner.envelope import RunResult


VIEW_LIMIT = 256 * 1024
"""Bytes of output the result window keeps (the full output is in the run's log file)."""


class OutputTail:
    """The newest ``limit`` bytes of a stream, safe to feed from one thread and drain from another."""

    def __init__(self, limit: int = VIEW_LIMIT) -> None:
        self.limit = limit
        self._lock = threading.Lock()
        self._buffer = bytearray()
        self._dropped = 0
        self.total = 0

    def feed(self, chunk: bytes) -> bool:
        """Append ``chunk``; True when the buffer was empty (the reader needs waking)."""
        if not chunk:
            return False
        with self._lock:
            was_empty = not self._buffer
            self.total += len(chunk)
            if len(chunk) >= self.limit:
                self._dropped += len(self._buffer) + len(chunk) - self.limit
                self._buffer[:] = chunk[-self.limit :]
            else:
                self._buffer += chunk
                excess = len(self._buffer) - self.limit
                if excess > 0:
                    del self._buffer[:excess]
                    self._dropped += excess
            return was_empty

    def take(self) -> tuple[bytes, int]:
        """Everything buffered, and how many bytes were dropped before it since the last take."""
        with self._lock:
            data = bytes(self._buffer)
            dropped = self._dropped
            self._buffer.clear()
            self._dropped = 0
        return data, dropped


class TextDecoder:
    """Incremental UTF-8 decoding that restarts cleanly after bytes were dropped."""

    def __init__(self) -> None:
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")

    def decode(self, data: bytes, *, after_gap: bool = False, final: bool = False) -> str:
        if after_gap:
            self._decoder.reset()
            start = 0
            # Skip continuation bytes of a character whose start was dropped.
            while start < len(data) and start < 4 and 0x80 <= data[start] <= 0xBF:
                start += 1
            data = data[start:]
        return self._decoder.decode(data, final)


class RunEvents(QObject):
    """The application-wide outlet for run events; lives (in the GUI thread) as long as the app.

    One long-lived QObject rather than one per run: the runner's thread may hold its
    callbacks until after the run's window is gone, and a QObject must never be destroyed
    from a thread other than its own. Runs are told apart by an integer key.
    """

    output_ready = Signal(int)
    finished = Signal(int, object)


class RunBridge:
    """One run's thread-safe callbacks: ``feed`` and ``done`` may be called from any thread."""

    def __init__(self, events: RunEvents, key: int, limit: int = VIEW_LIMIT) -> None:
        self.events = events
        self.key = key
        self.tail = OutputTail(limit)

    def feed(self, chunk: bytes) -> None:
        """The runner's ``on_output`` callback (background thread)."""
        if self.tail.feed(chunk):
            self.events.output_ready.emit(self.key)

    def done(self, result: RunResult) -> None:
        """The handle's done callback (background thread)."""
        self.events.finished.emit(self.key, result)
