"""Parsing the source strings people type: a folder, an archive, a URL, a git repository.

One function, :func:`parse_source`, so the CLI, the tray, the lock file and the
dependency resolver all agree on what a string means.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from msgspec import Struct
from msgspec.structs import force_setattr

from gibberish.lazy import lazy_pattern
from gibberish.redaction import scrub, without_credentials

ARCHIVE_SUFFIXES = (".zip", ".skill", ".tar.gz", ".tgz", ".tar.xz", ".txz", ".tar")

_GITHUB = lazy_pattern(
    r"^github:(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+)"
    r"(?P<path>(?:/[^@]+)?)(?:@(?P<ref>[^@]+))?$"
)
_SCP_LIKE = lazy_pattern(r"^[A-Za-z0-9_.-]+@[A-Za-z0-9_.-]+:")


class SourceError(ValueError):
    """A source string that names nothing gibberish can fetch (the message says why)."""


class Source(Struct, frozen=True):
    """What to fetch. ``kind`` is ``folder``, ``archive``, ``url`` or ``git``."""

    kind: str
    location: str
    """Where to fetch from, as typed: it may hold credentials, so it is never stored
    or shown (``text`` and ``pinned`` are)."""
    ref: str = ""
    subdir: str = ""
    text: str = ""

    def __post_init__(self) -> None:
        force_setattr(self, "text", without_credentials(self.text))

    def pinned(self, resolved: str) -> str:
        """The source string that fetches exactly ``resolved`` (a commit) again."""
        if self.kind != "git" or not resolved:
            return self.text
        suffix = f":{self.subdir}" if self.subdir else ""
        return f"{_git_prefix(without_credentials(self.location))}#{resolved}{suffix}"


def git_source_text(source: Source, subdir: str) -> str:
    """The source string for ``source`` (git) at its ref with ``subdir``."""
    fragment = f"#{source.ref}" if source.ref or subdir else ""
    return f"{_git_prefix(source.location)}{fragment}{':' + subdir if subdir else ''}"


def _git_prefix(location: str) -> str:
    if location.startswith(("https://", "http://", "ssh://", "git://")):
        return f"git+{location}"
    return location


def is_archive_name(name: str) -> bool:
    return name.lower().endswith(ARCHIVE_SUFFIXES)


def parse_source(text: str, *, base: Path | None = None) -> Source:
    """Classify ``text``; relative folders and files are resolved against ``base`` (or cwd).

    A message about a bad source never quotes its credentials.
    """
    try:
        return _parse(text, base)
    except SourceError as exc:
        raise SourceError(scrub(str(exc))) from None


def _parse(text: str, base: Path | None) -> Source:
    text = text.strip()
    if not text:
        raise SourceError(
            "The source is empty: give a folder, an archive, a URL or a git repository."
        )
    if text.startswith("-"):
        raise SourceError(f"“{text}” looks like an option, not a source.")
    if text.startswith("github:"):
        return _github(text)
    if text.startswith("git+"):
        location, ref, subdir = _split_fragment(text[4:])
        _require_scheme(location, ("https://", "http://", "ssh://", "git://", "file://"), text)
        return Source("git", location, ref, subdir, text)
    if text.startswith("file://"):
        location, ref, subdir = _split_fragment(text)
        return Source("git", location, ref, subdir, text)
    if _SCP_LIKE.match(text):
        location, ref, subdir = _split_fragment(text)
        return Source("git", location, ref, subdir, text)
    if text.startswith(("http://", "https://")):
        location, ref, subdir = _split_fragment(text)
        if location.endswith(".git"):
            return Source("git", location, ref, subdir, text)
        return Source("url", text, text=text)
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", text):
        raise SourceError(
            f"“{text}”: only http://, https://, file://, git+…:// and github: sources are supported."
        )
    return _local(text, base)


def _github(text: str) -> Source:
    match = _GITHUB.match(text)
    if not match:
        raise SourceError(f"“{text}” is not of the form github:owner/repo[/path][@ref].")
    url = f"https://github.com/{match['owner']}/{match['repo']}.git"
    return Source("git", url, match["ref"] or "", match["path"].strip("/"), text)


def _split_fragment(text: str) -> tuple[str, str, str]:
    location, _, fragment = text.partition("#")
    ref, _, subdir = fragment.partition(":")
    subdir = subdir.strip("/")
    if any(part in ("..", "") for part in subdir.split("/")) and subdir:
        raise SourceError(f"The subfolder “{subdir}” must be a plain path inside the repository.")
    if ref.startswith("-"):
        raise SourceError(f"The ref “{ref}” looks like an option.")
    return location, ref, subdir


def _require_scheme(location: str, schemes: tuple[str, ...], text: str) -> None:
    if not location.startswith(schemes):
        raise SourceError(f"“{text}”: a git+ source needs one of {', '.join(schemes)}.")


def _local(text: str, base: Path | None) -> Source:
    """A folder, an archive or a lone SKILL.md on disk, recorded by its absolute path."""
    path = Path(text).expanduser()
    if not path.is_absolute():
        path = (base or Path.cwd()) / path
    path = Path(os.path.normpath(path))
    if path.is_dir():
        return Source("folder", str(path), text=str(path))
    if path.is_file():
        if is_archive_name(path.name) or path.name == "SKILL.md":
            kind = "archive" if is_archive_name(path.name) else "folder"
            return Source(kind, str(path), text=str(path))
        raise SourceError(
            f"{path}: not an archive gibberish can open (.zip, .skill, .tar.gz, .tar.xz) "
            "and not a SKILL.md."
        )
    raise SourceError(f"{path}: no such folder or file.")
