"""Text for people: sizes, durations, the one-line summary of a run. Qt-free and import-light."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gibberish.runner.envelope import RunResult


def human_bytes(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            if unit == "bytes" or value.is_integer():
                return f"{int(value)} {unit}"
            return f"{value:.1f} {unit}"
        value /= 1024
    return f"{count} bytes"


def human_duration(ms: int) -> str:
    if ms < 1000:
        return f"{ms} ms"
    seconds = ms / 1000
    if seconds < 60:
        return f"{seconds:.1f} s"
    minutes, seconds = divmod(int(seconds), 60)
    return f"{minutes} min {seconds} s"


def first_line(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def summary_line(result: RunResult) -> str:
    """The notification body: the error on failure, else the first line of the output."""
    envelope = result.envelope
    if not envelope.success:
        return envelope.error or first_line(envelope.output) or "The tool failed."
    return first_line(envelope.output) or "Finished with no output."


def plain_tooltip(text: str) -> str:
    """``text`` as a tooltip that shows it literally.

    Qt guesses rich text in tooltips as in labels, so a skill description such as
    ``<h2 style='color:green'>✔ verified</h2>`` would draw as a heading: escape it, keep
    its line breaks, and mark the whole as rich text so nothing is guessed. Text without
    a ``<`` is never taken for rich text and is returned as it is.
    """
    if "<" not in text:
        return text
    escaped = html.escape(text).replace("\n", "<br>")
    return f"<qt style='white-space:pre-wrap'>{escaped}</qt>"
