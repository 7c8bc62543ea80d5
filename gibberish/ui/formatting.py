"""Text for people: sizes, durations, the one-line summary of a run. Qt-free and import-light."""

from __future__ import annotations

import html
import os
import re
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gibberish.paths import home_short

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


def human_title(name: str) -> str:
    """A tool's identifier as a title: ``git_log`` → "Git log", ``list-large`` → "List large"."""
    words = name.replace("_", " ").replace("-", " ").split()
    if not words:
        return name
    text = " ".join(words)
    return text[0].upper() + text[1:]


def title_of_ref(ref: str) -> str:
    """``skill.tool`` → the tool's title ("Git log")."""
    return human_title(ref.rsplit(".", 1)[-1])


def run_notice(ref: str, result: RunResult) -> tuple[str, str]:
    """(title, body) of the notification for a finished run: ✓ or ✗, the tool, how long,
    and on failure what went wrong."""
    envelope = result.envelope
    took = human_duration(envelope.duration_ms)
    if envelope.success:
        return f"✓ {title_of_ref(ref)}", f"Finished in {took} · {ref}"
    why = envelope.error or first_line(envelope.output) or "The tool failed."
    return f"✗ {title_of_ref(ref)}", f"{why} ({took}) · {ref}"


NBSP = "\u00a0"


def command_text(argv: Sequence[str]) -> str:
    """The argv shell-quoted for reading, with the spaces *inside* an argument made
    non-breaking: a wrapped line then never splits a quoted argument, which would look
    like a newline in it. (``CodeBox`` turns them back into spaces when copied.)

    A path inside the home folder reads ``~/…``, as a shell would accept it back."""
    return " ".join(_home_quoted(arg).replace(" ", NBSP) for arg in argv)


def _home_quoted(arg: str) -> str:
    home = os.path.expanduser("~")
    if home not in ("", "/") and arg.startswith(home + "/"):
        rest = arg[len(home) + 1 :]
        quoted = shlex.quote(rest)
        if quoted == rest:
            return "~/" + rest
    return shlex.quote(arg)


def inline_markdown(text: str) -> str:
    """Safe rich text for a description written in Markdown: everything is escaped
    first, then only `code`, **bold** and *emphasis* become tags. Links, images and raw
    HTML stay literal text: a skill's description can never inject markup."""
    escaped = html.escape(text, quote=False)
    parts = re.split(r"(`[^`\n]+`)", escaped)
    out = []
    for part in parts:
        if len(part) > 2 and part.startswith("`") and part.endswith("`"):
            out.append(f"<code>{part[1:-1]}</code>")
            continue
        part = re.sub(r"\*\*([^*\n]+)\*\*", r"<b>\1</b>", part)
        part = re.sub(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])", r"<i>\1</i>", part)
        out.append(part)
    return "".join(out).replace("\n", "<br>")


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


__all__ = ["NBSP", "command_text", "home_short", "human_title", "inline_markdown"]
