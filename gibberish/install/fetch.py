"""``fetch(source)``: any source string → a private staging folder, safely.

This is the one entry point the installer, the tray and exporters use::

    with fetch("file:///srv/skills.git#v1.2:skills/pdf") as staged:
        staged.root        # a private folder holding the fetched files
        staged.resolved    # the commit, or "sha256:<hex>" of the archive or file
        staged.skipped     # entries left out on purpose (".git", submodules)

The staging folder (mode 0700) is created under ``workdir`` (default: the system's
temporary folder) and removed when the ``with`` block ends, whatever happens. Every
kind of source writes through :class:`~gibberish.install.tree.StagingTree`, so the
same rules (no path escapes, no writes through links, no devices, no special mode bits,
caps checked while writing) hold for archives, downloads, git trees and folders alike.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from msgspec import Struct, field

from gibberish.install.limits import FetchError, Limits
from gibberish.install.netcheck import require_public
from gibberish.install.sources import Source, SourceError, parse_source
from gibberish.install.tree import StagingTree, is_special
from gibberish.redaction import scrub

__all__ = ["FetchError", "Limits", "Source", "SourceError", "Staged", "fetch", "parse_source"]

SKILL_FILE = "SKILL.md"


class Staged(Struct, frozen=True):
    """What a fetch produced. ``root`` exists only inside the ``with`` block."""

    source: Source
    root: Path
    resolved: str
    skipped: list[str] = field(default_factory=list)


@contextlib.contextmanager
def fetch(
    source: str | Source, *, limits: Limits | None = None, workdir: Path | None = None
) -> Iterator[Staged]:
    """Fetch ``source`` into a fresh private folder; FetchError/SourceError say why not."""
    parsed = parse_source(source) if isinstance(source, str) else source
    limits = limits or Limits()
    if workdir is not None:
        workdir.mkdir(parents=True, exist_ok=True, mode=0o700)
    scratch = Path(tempfile.mkdtemp(prefix="gibberish-fetch-", dir=workdir))
    try:
        root = scratch / "staged"
        root.mkdir(mode=0o700)
        tree = StagingTree(root, limits, origin=parsed.text or parsed.location)
        if limits.public_only and parsed.kind in ("url", "git"):
            try:
                require_public(parsed.location)
            except FetchError as exc:
                raise FetchError(scrub(str(exc))) from None
        try:
            resolved = _FETCHERS[parsed.kind](parsed, scratch, tree, limits)
        except FetchError as exc:  # a message may quote the URL as typed, token and all
            raise FetchError(scrub(str(exc))) from None
        yield Staged(parsed, root, resolved, list(tree.skipped))
    finally:
        remove_tree(scratch)


def _fetch_folder(source: Source, scratch: Path, tree: StagingTree, limits: Limits) -> str:
    del scratch, limits
    path = Path(source.location)
    if path.is_file():  # a lone SKILL.md
        with open(path, "rb") as handle:
            tree.add_file(SKILL_FILE, handle)
        return ""
    copy_folder(path, tree)
    return ""


def copy_folder(path: Path, tree: StagingTree) -> None:
    """Copy a local folder through ``tree``: links kept only when contained, no devices."""
    for current, dirs, files in os.walk(path, followlinks=False):
        base = Path(current)
        relative = base.relative_to(path).as_posix()
        prefix = "" if relative == "." else relative + "/"
        for name in sorted(dirs + files):
            full = base / name
            st = full.lstat()
            if os.path.islink(full):
                tree.add_symlink(prefix + name, os.readlink(full))
            elif full.is_dir():
                tree.add_dir(prefix + name)
            elif is_special(st.st_mode):
                tree.refuse(prefix + name, "a device, FIFO or socket")
            else:
                with open(full, "rb") as handle:
                    tree.add_file(prefix + name, handle, st.st_mode)
        dirs[:] = [d for d in dirs if d.lower() != ".git" and not os.path.islink(base / d)]
    tree.finish()


def _fetch_archive(source: Source, scratch: Path, tree: StagingTree, limits: Limits) -> str:
    del scratch, limits
    from gibberish.install.archive import extract_archive  # tarfile, zipfile: archives only

    path = Path(source.location)
    tree.input_size = path.stat().st_size
    extract_archive(path, tree)
    return "sha256:" + _sha256(path)


def _fetch_git(source: Source, scratch: Path, tree: StagingTree, limits: Limits) -> str:
    from gibberish.install.gitfetch import fetch_git  # with httpx: only for git sources

    return fetch_git(source, scratch, tree, limits)


def _fetch_url(source: Source, scratch: Path, tree: StagingTree, limits: Limits) -> str:
    from gibberish.install.archive import extract_archive, sniff_archive
    from gibberish.install.download import download  # httpx: only for downloads

    body = scratch / "download"
    got = download(source.location, body, limits)
    if sniff_archive(body):
        tree.input_size = got.size
        extract_archive(body, tree)
    elif body.read_bytes()[:64].lstrip(b"\xef\xbb\xbf \t\r\n").startswith(b"---"):
        with open(body, "rb") as handle:
            tree.add_file(SKILL_FILE, handle)
    else:
        raise FetchError(
            f"{source.text}: the server sent neither an archive nor a SKILL.md "
            f"(content type {got.content_type or 'unknown'})."
        )
    return "sha256:" + got.sha256


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def remove_tree(folder: Path) -> None:
    """Remove a staging folder, even one holding read-only folders."""

    def make_writable(func, path, _exc):  # type: ignore[no-untyped-def]
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(path), 0o700)
            func(path)

    shutil.rmtree(folder, onerror=make_writable)


_FETCHERS = {
    "folder": _fetch_folder,
    "archive": _fetch_archive,
    "url": _fetch_url,
    "git": _fetch_git,
}
