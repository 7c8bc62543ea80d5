"""Relative dependencies (``../base``) of a skill fetched from an archive or a repository.

A dependency written as a relative path means "the skill next to me in the same
collection". For a local folder that is a folder on disk; for an archive, a download or
a git repository it is a folder *inside the same source*: the same archive (already
staged), or the same repository at the same ref with another subfolder. A path that
climbs out of the source is refused: a collection cannot name files beside it.
"""

from __future__ import annotations

import posixpath

from gibberish.install.discover import InstallError
from gibberish.install.sources import Source, git_source_text
from gibberish.lazy import lazy_pattern
from gibberish.redaction import without_credentials

_SCHEME = lazy_pattern(r"^[A-Za-z][A-Za-z0-9+.-]*:")


def relative_path(text: str) -> str | None:
    """``text`` as a relative path (``../base``, ``./x``), or None when it is a source of
    its own (a URL, ``github:``, an absolute or home path)."""
    text = text.strip()
    if not text or text.startswith(("/", "~")) or _SCHEME.match(text) or "@" in text.split("/")[0]:
        return None
    return text


def inside(skill_path: str, text: str, origin: str) -> str:
    """The folder ``text`` names, relative to the source's root, from the skill at
    ``skill_path`` (relative to the same root); InstallError when it leaves the source."""
    joined = posixpath.normpath(posixpath.join(skill_path or ".", text))
    if joined == ".." or joined.startswith("../") or posixpath.isabs(joined):
        raise InstallError(
            f"{origin}: the dependency “{text}” leads out of the source; a relative "
            "dependency must name a folder inside the same archive or repository."
        )
    return "" if joined == "." else joined


def same_repository(source: Source, subdir: str) -> Source:
    """The git source ``source`` at the same ref, with ``subdir`` instead of its own.

    ``location`` keeps what the person typed (the fetch may need its credentials); the
    ``text`` that is kept and shown never holds them (:mod:`gibberish.redaction`)."""
    text = without_credentials(git_source_text(source, subdir))
    return Source("git", source.location, source.ref, subdir, text)
