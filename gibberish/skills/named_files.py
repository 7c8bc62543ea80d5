"""Files a SKILL.md names, found the way a person meant them.

Skills written on macOS or Windows often name ``REFERENCE.md`` while the file is
``reference.md``: those disks ignore case, Linux does not. A named file is found when
its name differs only in case from exactly one file on disk (never when two candidates
would fit), and always inside the skill folder. A file the text names that is nowhere
in the folder is reported so ``skills check``, ``compile`` and ``install`` can warn.

What counts as naming a file, for the warning: a Markdown link target. Bare words
(``see REFERENCE.md``) are looked up (in any case) but never reported when missing: the
public collections mention ``CLAUDE.md`` or ``README.md`` meaning the person's own files,
and link text naming a file kept elsewhere (``[x.md](references/x.md)``).
"""

from __future__ import annotations

import os
import stat

from gibberish.lazy import lazy_pattern
from gibberish.skills import fields as F
from gibberish.skills.model import Diagnostic, SkillDefinition
from gibberish.skills.parser import is_inside

_LINK = lazy_pattern(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_FENCE = lazy_pattern(r"^\s*(```|~~~)")
MAX_BYTES = 1024 * 1024


def find_named(root: str, base: str, word: str) -> str | None:
    """The path (relative to ``root``, with ``/``) of the regular file ``word`` names from
    the folder ``base`` (relative to ``root``): exact, else the one file whose path
    differs only in case. None when there is none, or it would leave the folder."""
    real_root = os.path.realpath(root)
    full = os.path.realpath(os.path.join(real_root, base, word))
    if _is_file_inside(full, real_root):
        return os.path.relpath(full, real_root).replace(os.sep, "/")
    parts = os.path.normpath(os.path.join(base, word)).replace(os.sep, "/").split("/")
    if ".." in parts or not parts:
        return None
    current = real_root
    for part in parts:
        if part in ("", "."):
            continue
        try:
            entries = os.listdir(current)
        except OSError:
            return None
        if part in entries:
            current = os.path.join(current, part)
            continue
        matches = [e for e in entries if e.lower() == part.lower()]
        if len(matches) != 1:
            return None
        current = os.path.join(current, matches[0])
    real = os.path.realpath(current)
    if _is_file_inside(real, real_root):
        return os.path.relpath(real, real_root).replace(os.sep, "/")
    return None


def _is_file_inside(path: str, root: str) -> bool:
    return path != os.path.join(root, "SKILL.md") and is_inside(path, root) and os.path.isfile(path)


def named_in(text: str) -> list[str]:
    """Files ``text`` names (Markdown link targets outside code blocks), in order of
    first mention, each once."""
    found: list[tuple[int, str]] = []
    offset, fenced = 0, False
    for line in text.splitlines(keepends=True):
        if _FENCE.match(line):
            fenced = not fenced
        elif not fenced:
            for pattern in (_LINK,):
                found.extend((offset + m.start(), m.group(1)) for m in pattern.finditer(line))
        offset += len(line)
    out: list[str] = []
    for _, raw in sorted(found):
        raw = raw.strip().split("#", 1)[0].split("?", 1)[0]
        if (
            raw
            and "://" not in raw
            and not raw.startswith(("mailto:", "/", "~", "$", "#"))
            and "{" not in raw
            and raw.lower() != "skill.md"
            and raw not in out
        ):
            out.append(raw)
    return out


def missing_named(folder: str, text: str) -> list[str]:
    """The files ``text`` (a SKILL.md's body) names that are not in ``folder``."""
    root = os.path.realpath(folder)
    return [
        raw
        for raw in named_in(text)
        if find_named(folder, "", raw) is None and not _is_dir_inside(root, raw)
    ]


def _is_dir_inside(root: str, raw: str) -> bool:
    """A link to a folder of the skill (``templates/``) names something that is there."""
    full = os.path.realpath(os.path.join(root, raw))
    return is_inside(full, root) and os.path.isdir(full)


def missing_warnings(skill: SkillDefinition, shown: str | None = None) -> list[Diagnostic]:
    """A warning for each file the skill's SKILL.md names that its folder lacks (the
    line is where it is first named; ``shown`` is the SKILL.md path to print)."""
    path = skill.source_path
    try:  # only a regular file is read: a FIFO in its place must not hang the check
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        with os.fdopen(fd, "rb") as handle:
            if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
                return []
            text = handle.read(MAX_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return []
    out = []
    for raw in missing_named(str(skill.directory), text):
        line = next((i for i, t in enumerate(text.splitlines(), 1) if raw in t), None)
        out.append(
            F.warning(
                F.W_NAMED_FILE_MISSING,
                f"SKILL.md names {raw!r}, which is not in the skill folder (not even with "
                "other upper and lower case); add it or fix the name.",
                shown or str(path),
                line,
            )
        )
    return out
