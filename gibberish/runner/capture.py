"""Output capture in bounded memory: a head, a tail, and a copy small enough to parse.

A tool may print a gigabyte; the envelope shows its first and last 2 KiB, which is where
people (and models) look: the command's banner and its final error or summary. Memory
stays bounded whatever the volume: the head stops growing at its limit, the tail is
overwritten in place, and the copy kept for JSON parsing is dropped the moment the output
outgrows it. Cuts never split a UTF-8 character, so the text shown is exactly what the
tool wrote, minus whole characters.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Final

from gibberish.logger import logger
from gibberish.runner.envelope import ABSENT

HEAD_LIMIT: Final = 2048
TAIL_LIMIT: Final = 2048
#: ``parsed`` is attempted only when the whole output fits in this many bytes.
PARSE_LIMIT: Final = 1024 * 1024

_UTF8_BOM: Final = b"\xef\xbb\xbf"
_log = logger(__name__)


def _is_continuation(byte: int) -> bool:
    return byte & 0xC0 == 0x80


def _sequence_length(lead: int) -> int:
    if lead < 0xC0:
        return 1  # ASCII, or a stray continuation byte: stands alone
    if lead < 0xE0:
        return 2
    if lead < 0xF0:
        return 3
    return 4


def head_cut(data: bytes | bytearray) -> int:
    """Length of the longest prefix of ``data`` that does not end inside a character."""
    end = len(data)
    start = end - 1
    while start >= 0 and end - start <= 3 and _is_continuation(data[start]):
        start -= 1
    if start < 0 or data[start] < 0xC0:
        return end
    return start if start + _sequence_length(data[start]) > end else end


def tail_start(data: bytes | bytearray) -> int:
    """Offset of the first byte of ``data`` that does not continue a cut character."""
    start = 0
    while start < min(3, len(data)) and _is_continuation(data[start]):
        start += 1
    return start


def truncation_marker(dropped: int) -> str:
    return f"\n... [truncated {dropped} bytes] ...\n"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def parse_json_document(data: bytes) -> Any:
    """The JSON object or array ``data`` holds, else :data:`ABSENT`.

    Only objects and arrays count as a *document*: a tool printing ``42``, ``true`` or
    ``"ok"`` is printing text, and a parsed ``null`` would be indistinguishable from
    "nothing parsed". ``NaN``/``Infinity`` are refused (they are not JSON and would make
    the envelope itself unserialisable), as is anything that is not valid UTF-8.
    """
    if data.startswith(_UTF8_BOM):
        data = data[len(_UTF8_BOM) :]
    stripped = data.strip()
    if not stripped or stripped[:1] not in (b"{", b"["):
        return ABSENT
    try:
        return json.loads(stripped.decode("utf-8"), parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return ABSENT


class OutputCapture:
    """Keeps head, tail and a bounded whole copy of a byte stream fed in chunks."""

    def __init__(
        self,
        *,
        head_limit: int = HEAD_LIMIT,
        tail_limit: int = TAIL_LIMIT,
        parse_limit: int = PARSE_LIMIT,
    ) -> None:
        self._head_limit = head_limit
        self._tail_limit = tail_limit
        self._parse_limit = parse_limit
        self._head = bytearray()
        self._tail = bytearray()
        self._whole: bytearray | None = bytearray()
        self.total = 0

    def feed(self, chunk: bytes | bytearray | memoryview) -> None:
        size = len(chunk)
        if not size:
            return
        self.total += size
        if self._whole is not None:
            if self.total <= self._parse_limit:
                self._whole += chunk
            else:
                self._whole = None
        view = memoryview(chunk)
        room = self._head_limit - len(self._head)
        if room > 0:
            self._head += view[:room]
            view = view[room:]
        if not view:
            return
        if len(view) >= self._tail_limit:
            self._tail[:] = view[len(view) - self._tail_limit :]
        else:
            self._tail += view
            excess = len(self._tail) - self._tail_limit
            if excess > 0:
                del self._tail[:excess]

    @property
    def truncated(self) -> bool:
        return self.total > len(self._head) + len(self._tail)

    def text(self) -> str:
        """The output as text: whole, or head + marker + tail cut on character boundaries."""
        if not self.truncated:
            return bytes(self._head + self._tail).decode("utf-8", errors="replace")
        head = bytes(self._head[: head_cut(self._head)])
        tail = bytes(self._tail[tail_start(self._tail) :])
        dropped = self.total - len(head) - len(tail)
        return (
            head.decode("utf-8", errors="replace")
            + truncation_marker(dropped)
            + tail.decode("utf-8", errors="replace")
        )

    def parsed(self) -> Any:
        """The whole output as a JSON document, or :data:`ABSENT` (also when too big)."""
        if self._whole is None:
            return ABSENT
        return parse_json_document(bytes(self._whole))


class LogFile:
    """The full output, written as it arrives, capped at ``limit`` bytes.

    The file is private (0600: output can hold anything) and a failure to write it never
    fails the run — the envelope does not depend on it — it only stops the log.
    """

    def __init__(self, path: Path, limit: int) -> None:
        self.path = path
        self.limit = limit
        self.written = 0
        self.truncated = False
        path.parent.mkdir(parents=True, exist_ok=True)
        flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)
        self._fd: int | None = os.open(path, flags, 0o600)

    def write(self, chunk: bytes | memoryview) -> None:
        if self._fd is None:
            return
        room = self.limit - self.written
        if len(chunk) > room:
            self.truncated = True
            chunk = memoryview(chunk)[:room]
        view = memoryview(chunk)
        try:
            while view:
                count = os.write(self._fd, view)
                self.written += count
                view = view[count:]
        except OSError as exc:
            _log.warning("stopped writing run log %s: %s", self.path, exc)
            self.truncated = True
            self.close()

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)
