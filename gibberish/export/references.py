"""Find the local files a SKILL.md refers to, and read them for inlining.

A reference is a Markdown link target, an ``href``/``src`` attribute, an inline-code
span, a ``./path`` word, or a word of a tool's command — counted only when it names a
regular file inside the skill's folder (after resolving links), so prose that merely
looks like a path is ignored and nothing outside the skill is ever read. Markdown files
found this way are searched too (a ``reference.md`` pointing at examples), breadth
first, in order of first mention, so the result is stable.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from msgspec import Struct

from gibberish.skills.model import SkillDefinition
from gibberish.skills.named_files import find_named

MAX_FILE_BYTES = 1024 * 1024
MAX_FILES = 200

_PATTERNS = (
    re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)"),
    re.compile(r"""(?:href|src)\s*=\s*["']([^"']+)["']"""),
    re.compile(r"`([^`\n]+)`"),
    re.compile(r"(?<![\w/.])(\./[^\s)\]'\"`,;]+)"),
    re.compile(r"(?<![\w/.\-`$~])((?:[\w\-]+/)*[\w\-]+\.md)\b(?![\w/])", re.IGNORECASE),
)


class Resource(Struct, frozen=True):
    rel: str
    """Path relative to the skill folder, with ``/``."""
    text: str | None
    note: str = ""
    """Why ``text`` is None: binary, too large."""


def _candidates(text: str) -> list[str]:
    found: list[tuple[int, str]] = []
    for pattern in _PATTERNS:
        found.extend((m.start(), m.group(1)) for m in pattern.finditer(text))
    out = []
    for _, raw in sorted(found):
        raw = raw.strip().split("#", 1)[0].split("?", 1)[0]
        if raw and "://" not in raw and not raw.startswith(("mailto:", "/", "~", "$")):
            out.append(raw)
    return out


def _resolve(root: str, base: str, raw: str) -> str | None:
    """The file ``raw`` names, exact or differing only in case (``REFERENCE.md`` for
    ``reference.md``; see :mod:`gibberish.skills.named_files`)."""
    words = raw.split() or [raw]
    for word in words:
        found = find_named(root, base, word)
        if found is not None:
            return found
    return None


def _read(root: str, rel: str) -> Resource:
    path = os.path.join(root, rel)
    size = os.path.getsize(path)
    if size > MAX_FILE_BYTES:
        return Resource(rel, None, f"{size // 1024} KiB, too large to inline")
    data = Path(path).read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return Resource(rel, None, "binary file")
    if "\x00" in text:
        return Resource(rel, None, "binary file")
    return Resource(rel, text)


def collect_resources(skill: SkillDefinition) -> tuple[Resource, ...]:
    """Every referenced local file, in order of first mention (SKILL.md first)."""
    root = os.path.realpath(skill.directory)
    texts = [skill.body]
    texts += [t.command.source for t in skill.tools if t.command is not None]
    queue = [("", c) for text in texts for c in _candidates(text)]
    seen: dict[str, Resource] = {}
    while queue and len(seen) < MAX_FILES:
        rel = _resolve(root, *queue.pop(0))
        if rel is None or rel in seen:
            continue
        resource = _read(root, rel)
        seen[rel] = resource
        if resource.text is not None and rel.lower().endswith((".md", ".markdown")):
            base = os.path.dirname(rel)
            queue.extend((base, c) for c in _candidates(resource.text))
    return tuple(seen.values())
