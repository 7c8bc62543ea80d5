"""The fingerprint of a skill: one SHA-256 that changes when any file in its folder changes.

Approvals are given to a fingerprint, not to a name, so editing SKILL.md *or* a script
the skill runs means asking again (DESIGN §6). The digest is SHA-256 over the sorted list
of ``(relative path, SHA-256 of the entry)`` pairs; the per-file map is kept too, so the
approval dialog can say *which* files changed.

What is hashed, and why:

* every regular file, recursively, by content;
* a symlink by its target text *and*, when it resolves to a file inside the skill folder,
  that file's content — so re-pointing a link, or editing what it points to, both count
  as a change. A link that leaves the folder (or dangles, or points at a folder) is
  recorded by its target text only: nothing outside the skill folder is ever read;
* anything else (fifo, socket, device) by its kind only — it is never opened, because
  opening a fifo would block;
* an entry that cannot be read by a marker naming the error, so the fingerprint is still
  defined (and changes once the file becomes readable).

Skipped: ``__pycache__`` and ``.git`` folders (Python and git rewrite them on their own,
which would revoke an approval after the first run or the next fetch) and the provenance
file ``.gibberish-source.json`` (it records the fingerprint at import time, so it cannot
be part of it). Relative paths use ``/`` whatever the platform.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from gibberish.trust.decision import ChangedFiles

PROVENANCE_FILE = ".gibberish-source.json"
"""Written by importers into a skill folder; its presence marks the skill untrusted."""

SKIPPED_DIRS = frozenset({"__pycache__", ".git"})
SKIPPED_FILES = frozenset({PROVENANCE_FILE})

_CHUNK = 1 << 16


@dataclass(frozen=True)
class Fingerprint:
    """``digest``: hex SHA-256 of the whole folder; ``files``: relative path -> entry hash."""

    digest: str
    files: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not isinstance(self.files, MappingProxyType):
            object.__setattr__(self, "files", MappingProxyType(dict(self.files)))

    def __hash__(self) -> int:
        return hash(self.digest)


def fingerprint(skill_dir: Path) -> Fingerprint:
    """Fingerprint every file in ``skill_dir`` (see the module docstring for the rules).

    Raises ``OSError`` (``FileNotFoundError``, ``NotADirectoryError`` ...) when
    ``skill_dir`` itself is not a readable folder; problems with entries inside it never
    raise.
    """
    root = Path(skill_dir)
    if not root.is_dir():
        raise NotADirectoryError(f"not a skill folder: {root}")
    real_root = os.path.realpath(root)
    files: dict[str, str] = {}
    _walk(root, "", real_root, files)
    return Fingerprint(digest=combine(files), files=files)


def combine(files: Mapping[str, str]) -> str:
    """The folder digest of a ``relative path -> entry hash`` map (order does not matter)."""
    h = hashlib.sha256()
    for rel in sorted(files):
        # NUL cannot occur in a path, newline cannot occur in a hex digest: unambiguous.
        h.update(os.fsencode(rel))
        h.update(b"\0")
        h.update(files[rel].encode("ascii"))
        h.update(b"\n")
    return h.hexdigest()


def what_changed(old: Mapping[str, str], new: Mapping[str, str]) -> ChangedFiles:
    """Which files were added, removed or modified between two fingerprints' file maps."""
    return ChangedFiles(
        added=tuple(sorted(set(new) - set(old))),
        removed=tuple(sorted(set(old) - set(new))),
        modified=tuple(sorted(p for p in set(old) & set(new) if old[p] != new[p])),
    )


def _walk(folder: Path, prefix: str, real_root: str, out: dict[str, str]) -> None:
    try:
        entries = sorted(os.scandir(folder), key=lambda e: e.name)
    except OSError as exc:
        # An unreadable sub-folder still contributes, so making it readable is a change.
        if prefix:
            out[prefix.rstrip("/")] = _marker("unreadable-dir", exc.strerror or "")
        return
    for entry in entries:
        rel = prefix + entry.name
        try:
            if entry.is_symlink():
                out[rel] = _hash_symlink(Path(entry.path), real_root)
            elif entry.is_dir(follow_symlinks=False):
                if entry.name not in SKIPPED_DIRS:
                    _walk(Path(entry.path), rel + "/", real_root, out)
            elif entry.is_file(follow_symlinks=False):
                if not (prefix == "" and entry.name in SKIPPED_FILES):
                    out[rel] = _hash_file(entry.path)
            else:
                mode = entry.stat(follow_symlinks=False).st_mode
                out[rel] = _marker("special", _kind(mode))
        except OSError as exc:
            out[rel] = _marker("unreadable", exc.strerror or type(exc).__name__)


def _hash_file(path: str) -> str:
    h = hashlib.sha256()
    # O_NOFOLLOW: if the file was swapped for a symlink since we looked, do not follow it.
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return _marker("special", _kind(os.fstat(handle.fileno()).st_mode))
        while chunk := handle.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def _hash_symlink(link: Path, real_root: str) -> str:
    target = os.readlink(link)
    h = hashlib.sha256(b"symlink\0" + os.fsencode(target) + b"\0")
    resolved = os.path.realpath(link)
    inside = resolved == real_root or resolved.startswith(real_root.rstrip(os.sep) + os.sep)
    if inside and os.path.isfile(resolved):
        h.update(b"content\0")
        try:
            h.update(_hash_file(resolved).encode("ascii"))
        except OSError as exc:
            h.update(b"unreadable\0" + (exc.strerror or "").encode())
    elif not inside:
        h.update(b"outside")
    return h.hexdigest()


def _marker(kind: str, detail: str) -> str:
    """A hex digest standing for something that is not file content."""
    return hashlib.sha256(f"{kind}\0{detail}".encode()).hexdigest()


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "other"
