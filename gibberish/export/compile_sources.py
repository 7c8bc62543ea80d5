"""What ``gibberish compile`` reads: a skill by name or folder, or any source ``install``
takes (an archive, a URL, a git repository, ``github:``), fetched the installer's way.

An archive or repository may hold several skills; each becomes its own command (one
``.toml`` each). Fetched skills are read as untrusted, from a private staging folder
that lives only for the ``with`` block, and a ``SKILL.MD`` in another case is found.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from gibberish.install.discover import InstallError, discover
from gibberish.install.fetch import FetchError, fetch
from gibberish.install.sources import Source, SourceError, is_archive_name, parse_source
from gibberish.skills.model import SkillDefinition


class SourceUnusable(Exception):
    """A source that could not be fetched or holds no usable skill (the message says why)."""


def fetched_source(ref: str) -> Source | None:
    """``ref`` as a source to fetch (an archive, a URL, git, ``github:``), or None when it
    is a skill name, a folder or a SKILL.md (read in place)."""
    path = Path(ref).expanduser()
    if path.is_dir() or path.name.lower() == "skill.md":
        return None
    remote = "://" in ref or ref.startswith(("github:", "git+"))
    if not remote and not (path.is_file() and is_archive_name(path.name)):
        return None
    try:
        return parse_source(ref, base=Path.cwd())
    except SourceError as exc:
        raise SourceUnusable(str(exc)) from None


@contextlib.contextmanager
def skills_in(source: Source) -> Iterator[list[SkillDefinition]]:
    """Every skill ``source`` holds, readable inside the block."""
    try:
        with fetch(source) as staged:
            found = discover(staged.root, source.text)
            yield [item.skill for item in found]
    except (FetchError, SourceError, InstallError) as exc:
        raise SourceUnusable(str(exc)) from None
