"""Unpacking .zip/.skill and .tar(.gz/.xz) archives into a :class:`StagingTree`.

Entries are streamed one by one; every name, type and size goes through the tree's
checks, so nothing here decides on safety by itself. Anything that is not a file, a
folder or a contained link (devices, FIFOs, sockets, encrypted entries) refuses the
whole archive: a half-imported skill is worse than none.
"""

from __future__ import annotations

import stat
import tarfile
import zipfile
from pathlib import Path

from gibberish.install.limits import FetchError
from gibberish.install.tree import StagingTree, is_special

ZIP_MAGIC = b"PK\x03\x04"
_UNIX = 3
_UTF8_FLAG = 0x800


def sniff_archive(path: Path) -> str | None:
    """``zip``, ``tar`` or None, from the first bytes (names and URLs can lie)."""
    with open(path, "rb") as handle:
        head = handle.read(512)
    if head.startswith((ZIP_MAGIC, b"PK\x05\x06")):
        return "zip"
    if head.startswith((b"\x1f\x8b", b"\xfd7zXZ\x00", b"BZh")) or head[257:262] == b"ustar":
        return "tar"
    return None


def extract_archive(path: Path, tree: StagingTree) -> None:
    kind = sniff_archive(path)
    try:
        if kind == "zip":
            _extract_zip(path, tree)
        elif kind == "tar":
            _extract_tar(path, tree)
        else:
            raise FetchError(f"{tree.origin}: not a zip or tar archive gibberish can open.")
    except (zipfile.BadZipFile, tarfile.TarError, EOFError, OSError, ValueError) as exc:
        if isinstance(exc, FetchError):
            raise
        raise FetchError(f"{tree.origin}: the archive is damaged or truncated ({exc}).") from exc
    tree.finish()


def _zip_name(info: zipfile.ZipInfo) -> str:
    """The entry's name as UTF-8; names not flagged UTF-8 must still decode as UTF-8."""
    if info.flag_bits & _UTF8_FLAG or info.orig_filename.isascii():
        return info.orig_filename
    raw = info.orig_filename.encode("cp437")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("utf-8", "surrogateescape")


def _extract_zip(path: Path, tree: StagingTree) -> None:
    with zipfile.ZipFile(path) as archive:
        for info in archive.infolist():
            name = _zip_name(info)
            mode = info.external_attr >> 16 if info.create_system == _UNIX else 0
            if info.flag_bits & 0x1:
                raise FetchError(
                    f"{tree.origin}: {name!r} is encrypted; gibberish cannot check it."
                )
            if stat.S_ISLNK(mode):
                with archive.open(info) as handle:
                    target = handle.read(tree.limits.max_link_target + 1)
                tree.add_symlink(name, _link_text(target, name, tree))
            elif info.is_dir() or stat.S_ISDIR(mode):
                tree.add_dir(name)
            elif is_special(mode):
                tree.refuse(name, "a device, FIFO or socket")
            else:
                with archive.open(info) as handle:
                    tree.add_file(name, handle, mode or 0o644)


def _link_text(target: bytes, name: str, tree: StagingTree) -> str:
    try:
        return target.decode("utf-8")
    except UnicodeDecodeError:
        raise FetchError(
            f"{tree.origin}: the link {name!r} has a target that is not UTF-8."
        ) from None


def _extract_tar(path: Path, tree: StagingTree) -> None:
    with (
        open(path, "rb") as raw,
        tarfile.open(
            fileobj=raw, mode="r|*", encoding="utf-8", errors="surrogateescape"
        ) as archive,
    ):
        for member in archive:
            _extract_tar_member(archive, member, tree)


def _extract_tar_member(
    archive: tarfile.TarFile, member: tarfile.TarInfo, tree: StagingTree
) -> None:
    name = member.name
    if member.isdir():
        tree.add_dir(name)
    elif member.issym():
        tree.add_symlink(name, member.linkname)
    elif member.islnk():
        tree.add_hardlink(name, member.linkname)
    elif member.ischr() or member.isblk() or member.isfifo():
        tree.refuse(name, "a device or FIFO")
    elif member.isreg():
        handle = archive.extractfile(member)
        if handle is None:  # pragma: no cover - isreg always has data
            tree.refuse(name, "unreadable")
        tree.add_file(name, handle, member.mode)
    else:
        tree.refuse(name, f"of an unsupported type ({member.type!r})")
