"""Text for people: sizes, durations, the one-line summary of a run. Qt-free and import-light."""

from __future__ import annotations

import html
import os
import re
import shlex
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gibberish.paths import home_short
from gibberish.skills.titles import title
from gibberish.words import plural

if TYPE_CHECKING:
    from gibberish.runner.envelope import RunResult
    from gibberish.skills.model import ParameterDefinition, ToolDefinition


def human_bytes(count: int) -> str:
    value = float(count)
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            if unit == "bytes":
                return plural(int(value), "byte")
            if value.is_integer():
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
    return title(name)


def title_of_ref(ref: str) -> str:
    """``skill.tool`` → the tool's title ("Git log")."""
    return human_title(ref.rsplit(".", 1)[-1])


def run_notice(ref: str, result: RunResult) -> tuple[str, str]:
    """(title, body) of the notification for a finished run: ✓ or ✗, the tool, how long,
    and on failure what went wrong."""
    envelope = result.envelope
    took = human_duration(envelope.duration_ms)
    if envelope.success:
        return f"✓ {title_of_ref(ref)}", f"Finished in {took}."
    why = envelope.error or first_line(envelope.output) or "The tool failed."
    return f"✗ {title_of_ref(ref)}", f"{why} ({took})"


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


_DEFAULT_NOTE = re.compile(r"\s*\((?:default|defaults to)\b[^)]*\)\s*", re.I)
LABEL_LIMIT = 40


def plain_text(text: str) -> str:
    """A skill's Markdown as a person reads it: no backticks, stars or underscores of
    emphasis (the words stay)."""
    text = re.sub(r"`([^`\n]*)`", r"\1", text)
    text = re.sub(r"\*\*([^*\n]+)\*\*", r"\1", text)
    text = re.sub(r"(?<![\w*])\*([^*\n]+)\*(?![\w*])", r"\1", text)
    return text.replace("`", "")


def param_label(param: ParameterDefinition) -> str:
    """A field's label in people's words: the parameter's description, short (its
    first sentence without "(default: …)"), else its name as a title."""
    text = _DEFAULT_NOTE.sub(" ", plain_text(param.description)).strip()
    first = re.split(r"(?<=[.;:!?])\s", text, maxsplit=1)[0].rstrip(".;:!? ")
    if first and len(first) <= LABEL_LIMIT:
        return first[0].upper() + first[1:]
    return human_title(param.name)


def param_hint(param: ParameterDefinition) -> str:
    """What is left of the description once the label took its first sentence."""
    label = param_label(param)
    text = plain_text(param.description).strip()
    if label == human_title(param.name) or not text:
        return text
    rest = _DEFAULT_NOTE.sub(" ", text).strip()
    rest = rest[len(label) :].lstrip(".;:!? ") if rest.lower().startswith(label.lower()) else rest
    return rest.strip()


def arguments_text(tool: ToolDefinition | None, arguments: dict) -> str:
    """A run's arguments as a person reads them: "Number of commits to show: 5"."""
    parts = []
    for name, value in arguments.items():
        param = tool.parameter(name) if tool is not None else None
        label = param_label(param) if param is not None else human_title(name)
        shown = ", ".join(map(str, value)) if isinstance(value, list | tuple) else value
        if isinstance(value, bool):
            shown = "yes" if value else "no"
        parts.append(f"{label}: {shown}")
    return " · ".join(parts)


def readable_command(tool: ToolDefinition | None, argv: Sequence[str]) -> str:
    """The command as a person thinks of it: the program's own name and the arguments
    that carry their values. A wrapper in the skill's folder reads as what it wraps
    (``…/scripts/safe-git`` → ``git``) and option words the template always passes
    (``--oneline``) are left out: ``git log -n 10``. The exact argv is shown beside it."""
    if not argv:
        return ""
    program = os.path.basename(argv[0]) or argv[0]
    if program.startswith("safe-"):
        program = program[len("safe-") :]
    fixed: list[str] = []
    command = tool.command if tool is not None else None
    if command is not None:
        words = list(command.args)
        for at, word in enumerate(words):
            literal = not word.placeholders
            text = word.literal_text if literal else ""
            follows = words[at + 1] if at + 1 < len(words) else None
            if literal and text.startswith("-") and (follows is None or not follows.placeholders):
                fixed.append(text)
    rest = list(argv[1:])
    for flag in fixed:
        if flag in rest:
            rest.remove(flag)
    return command_text([program, *rest])


__all__ = [
    "NBSP",
    "command_text",
    "home_short",
    "human_title",
    "inline_markdown",
    "plural",
]
