"""A write-only staging tree that refuses every path, link or entry that could escape.

Archives, git trees and local folders all go through :class:`StagingTree`, so there is
one place that decides what a hostile entry can do: nothing outside the staging root is
ever written, nothing is written through a link, every file gets plain permissions
(no setuid, setgid or sticky bit), and the caps in :class:`Limits` hold while writing.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import IO, NoReturn

from gibberish.install.limits import FetchError, Limits
from gibberish.lazy import lazy_pattern

CHUNK = 64 * 1024
_DRIVE = lazy_pattern(r"^[A-Za-z]:")


def member_parts(name: str, *, origin: str) -> tuple[str, ...]:
    """The path components of an entry name, or FetchError when it could leave the root."""
    shown = ascii(name) if not _is_utf8(name) else repr(name)
    if not _is_utf8(name):
        raise FetchError(f"{origin}: the entry {shown} has a name that is not valid UTF-8.")
    if "\\" in name or "\x00" in name:
        raise FetchError(f"{origin}: the entry {shown} has a backslash or NUL in its name.")
    if name.startswith("/") or _DRIVE.match(name):
        raise FetchError(f"{origin}: the entry {shown} has an absolute path.")
    parts = tuple(p for p in name.split("/") if p not in ("", "."))
    if ".." in parts:
        raise FetchError(f"{origin}: the entry {shown} points outside the archive (“..”).")
    if not parts:
        raise FetchError(f"{origin}: an entry has an empty name.")
    return parts


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


class StagingTree:
    """Entries written under ``root`` (an empty private folder), within ``limits``.

    ``input_size`` is the size of the compressed input, for the ratio check.
    """

    def __init__(self, root: Path, limits: Limits, *, origin: str, input_size: int = 0) -> None:
        self.root = root
        self.limits = limits
        self.origin = origin
        self.input_size = input_size
        self.written = 0
        self.entries = 0
        self._kinds: dict[tuple[str, ...], str] = {}
        self.skipped: list[str] = []  # entries left out on purpose (``.git`` folders)

    # -- entries ---------------------------------------------------------------------------

    def add_dir(self, name: str) -> None:
        parts = member_parts(name, origin=self.origin)
        if not self._left_out(parts):
            self._make_parents((*parts, "x"))

    def add_file(self, name: str, data: IO[bytes], mode: int = 0o644) -> None:
        parts = self._claim(name, "file")
        if parts is None:
            return
        target = self._make_parents(parts)
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        fd = os.open(target, flags, 0o600)
        with os.fdopen(fd, "wb") as out:
            size = 0
            while chunk := data.read(CHUNK):
                size += len(chunk)
                self._count_bytes(len(chunk), size, name)
                out.write(chunk)
            os.fchmod(out.fileno(), plain_mode(mode))

    def add_bytes(self, name: str, content: bytes, mode: int = 0o644) -> None:
        import io

        self.add_file(name, io.BytesIO(content), mode)

    def add_symlink(self, name: str, target: str) -> None:
        """A link kept only when it is relative and stays inside (checked again in finish)."""
        parts = self._claim(name, "link")
        if parts is None:
            return
        if len(target) > self.limits.max_link_target or not target:
            raise FetchError(f"{self.origin}: the link {name!r} has an empty or overlong target.")
        if target.startswith("/") or _DRIVE.match(target) or "\\" in target or "\x00" in target:
            raise FetchError(
                f"{self.origin}: the link {name!r} points to an absolute path ({target!r})."
            )
        joined = PurePosixPath(*parts[:-1], target)
        if not _stays_inside(joined.parts):
            raise FetchError(f"{self.origin}: the link {name!r} points outside ({target!r}).")
        os.symlink(target, self._make_parents(parts))

    def add_hardlink(self, name: str, existing: str) -> None:
        """A hard link becomes a copy of an entry written earlier in the same archive."""
        source_parts = member_parts(existing, origin=self.origin)
        if self._kinds.get(source_parts) != "file":
            raise FetchError(
                f"{self.origin}: the hard link {name!r} points to {existing!r}, "
                "which is not a file earlier in the archive."
            )
        source = self.root.joinpath(*source_parts)
        with open(source, "rb") as handle:
            self.add_file(name, handle, os.stat(source).st_mode)

    def refuse(self, name: str, what: str) -> NoReturn:
        raise FetchError(
            f"{self.origin}: the entry {name!r} is {what}; skills may hold only files, "
            "folders and links inside themselves."
        )

    def finish(self) -> None:
        """Check every link once more against the real tree (a chain of links could escape),
        and leave out, with a note in ``skipped``, a link in a loop or to nothing: only a
        link that stays inside and leads somewhere is kept (the install's audit lists those)."""
        root = os.path.realpath(self.root)
        for parts, kind in list(self._kinds.items()):
            if kind != "link":
                continue
            path = self.root.joinpath(*parts)
            resolved = os.path.realpath(path)
            if resolved != root and not resolved.startswith(root + os.sep):
                raise FetchError(
                    f"{self.origin}: the link {'/'.join(parts)!r} leads outside through other links."
                )
            name = "/".join(parts)
            try:
                os.stat(path)
            except OSError as exc:
                what = "in a loop" if exc.errno == errno.ELOOP else "to nothing"
                os.unlink(path)
                del self._kinds[parts]
                self.skipped.append(f"{name} (a link {what}; left out)")

    # -- bookkeeping -----------------------------------------------------------------------

    def _left_out(self, parts: tuple[str, ...]) -> bool:
        """Git metadata is never copied: it could carry hooks and config that run code."""
        if any(part.lower() == ".git" for part in parts):
            top = "/".join(parts[: [p.lower() for p in parts].index(".git") + 1])
            if top not in self.skipped:
                self.skipped.append(top)
            return True
        return False

    def _claim(self, name: str, kind: str) -> tuple[str, ...] | None:
        parts = member_parts(name, origin=self.origin)
        if self._left_out(parts):
            return None
        if parts in self._kinds:
            raise FetchError(f"{self.origin}: the entry {name!r} appears twice.")
        self._count_entry()
        self._kinds[parts] = kind
        return parts

    def _make_parents(self, parts: Iterable[str]) -> Path:
        parts = tuple(parts)
        current = self.root
        for index, part in enumerate(parts[:-1]):
            current = current / part
            prefix = parts[: index + 1]
            known = self._kinds.get(prefix)
            if known is None:
                self._count_entry()
                self._kinds[prefix] = "dir"
                os.mkdir(current, 0o755)
            elif known != "dir":
                raise FetchError(
                    f"{self.origin}: {'/'.join(prefix)!r} is both a {known} and a folder."
                )
        return self.root.joinpath(*parts)

    def _count_entry(self) -> None:
        self.entries += 1
        if self.entries > self.limits.max_entries:
            raise FetchError(
                f"{self.origin}: more than {self.limits.max_entries:,} entries; "
                "that is not a skill (refused as a possible archive bomb)."
            )

    def _count_bytes(self, chunk: int, file_size: int, name: str) -> None:
        self.written += chunk
        limits = self.limits
        if file_size > limits.max_file_bytes:
            raise FetchError(
                f"{self.origin}: {name!r} is larger than {limits.max_file_bytes // 2**20} MiB; refused."
            )
        if self.written > limits.max_total_bytes:
            raise FetchError(
                f"{self.origin}: unpacks to more than {limits.max_total_bytes // 2**20} MiB; "
                "refused as a possible archive bomb."
            )
        if (
            self.input_size
            and self.written > limits.ratio_floor
            and self.written > limits.max_ratio * self.input_size
        ):
            raise FetchError(
                f"{self.origin}: unpacks to more than {limits.max_ratio} times its own size; "
                "refused as a possible archive bomb."
            )


def plain_mode(mode: int) -> int:
    """Owner read/write, everyone read; executable stays executable; no special bits."""
    return 0o755 if mode & 0o111 else 0o644


def _stays_inside(parts: tuple[str, ...]) -> bool:
    depth = 0
    for part in parts:
        if part == "..":
            depth -= 1
            if depth < 0:
                return False
        elif part not in ("", "."):
            depth += 1
    return True


def is_special(mode: int) -> bool:
    """Devices, FIFOs and sockets: never copied."""
    return stat.S_ISCHR(mode) or stat.S_ISBLK(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)
