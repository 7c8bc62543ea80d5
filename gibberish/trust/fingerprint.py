"""The fingerprint of a skill: one SHA-256 that changes when any file in its folder changes.

Approvals are given to a fingerprint, not to a name, so editing SKILL.md *or* a script
the skill runs means asking again (docs/adr/0010-trust-table.md). The digest is SHA-256 over the sorted list
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
* an entry that cannot be read by a marker naming the error *and* its metadata (size,
  mtime, ctime, inode, mode), so the fingerprint is still defined, changes once the file
  becomes readable, and changes when an execute-only file is swapped for another one.

Skipped: only the ``.git`` folder at the top of the skill (git rewrites it on every fetch,
which would revoke an approval each time) and the provenance file
``.gibberish-source.json`` at the top (it records the fingerprint at import time, so it
cannot be part of it). A ``.git`` folder deeper down is an ordinary folder, and
``__pycache__`` folders are fingerprinted everywhere: a planted ``.pyc`` changes what
``python3 scripts/x.py`` runs, so it must count as a change. (Runs get
``PYTHONDONTWRITEBYTECODE=1`` and ``PYTHONPYCACHEPREFIX``, so Python neither writes nor
reads caches inside a skill folder, so this costs no spurious re-approvals.) Nothing in
the top-level ``.git`` is covered, so ``covers()`` tells the caller whether a path inside
the skill folder is fingerprinted; a program there must not be run.

The walk is iterative and bounded: a folder with more than ``MAX_ENTRIES`` entries or
nested deeper than ``MAX_DEPTH`` raises ``FingerprintError`` (an ``OSError``) with a
message for the user. Relative paths use ``/`` whatever the platform.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import stat
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING

from msgspec import Struct, field
from msgspec.structs import force_setattr

from gibberish.trust.provenance import PROVENANCE_FILE

if TYPE_CHECKING:
    from gibberish.skills.model import CommandTemplate, SkillDefinition
    from gibberish.trust.decision import ChangedFiles

SKIPPED_TOP_DIRS = frozenset({".git"})
"""Folders skipped at the top of a skill folder only; deeper down they are fingerprinted."""
SKIPPED_TOP_FILES = frozenset({PROVENANCE_FILE})
"""Files skipped at the top of a skill folder only; deeper down they are fingerprinted."""

MAX_ENTRIES = 20_000
"""More files and folders than this in one skill raises ``FingerprintError``."""
MAX_DEPTH = 64
"""Folders nested deeper than this raise ``FingerprintError``."""

_CHUNK = 1 << 16


class FingerprintError(OSError):
    """The skill folder cannot be fingerprinted (too big, too deep); ``str()`` says why.

    A subclass of ``OSError`` so that callers which already turn an ``OSError`` into a
    message for the user keep working; show ``str(exc)``, it is written for people.
    """


class Fingerprint(Struct, frozen=True):
    """``digest``: hex SHA-256 of the whole folder; ``files``: relative path -> entry hash."""

    digest: str
    files: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        if not isinstance(self.files, MappingProxyType):
            force_setattr(self, "files", MappingProxyType(dict(self.files)))

    def __hash__(self) -> int:
        return hash(self.digest)


def fingerprint(skill_dir: Path) -> Fingerprint:
    """Fingerprint every file in ``skill_dir`` (see the module docstring for the rules).

    Raises ``OSError`` (``FileNotFoundError``, ``NotADirectoryError`` ...) when
    ``skill_dir`` itself is not a readable folder, and ``FingerprintError`` when it is
    too big or too deeply nested to fingerprint; problems with entries inside it never
    raise.
    """
    root = Path(skill_dir)
    if not root.is_dir():
        raise NotADirectoryError(f"not a skill folder: {root}")
    real_root = os.path.realpath(root)
    files: dict[str, str] = {}
    _walk(root, real_root, files)
    return Fingerprint(digest=combine(files), files=files)


def covers(skill_dir: Path, path: Path | str) -> bool:
    """True when the fingerprint of ``skill_dir`` covers the file ``path``.

    ``path`` may be absolute or relative to ``skill_dir``; it is resolved (symlinks
    followed), so a link into the top-level ``.git`` folder is not covered either. False
    for anything outside the skill folder, inside its top-level ``.git`` folder, or the
    provenance file. A caller must not run a program that is not covered: it could be
    changed after approval without anyone being asked again.
    """
    real_root = Path(os.path.realpath(skill_dir))
    target = Path(os.path.realpath(Path(skill_dir) / path))
    try:
        relative = target.relative_to(real_root)
    except ValueError:
        return False
    parts = relative.parts
    if not parts:
        return False
    if parts[0] in SKIPPED_TOP_DIRS and (len(parts) > 1 or target.is_dir()):
        return False
    return not (len(parts) == 1 and parts[0] in SKIPPED_TOP_FILES and not target.is_dir())


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
    from gibberish.trust.decision import ChangedFiles  # an install never compares

    return ChangedFiles(
        added=tuple(sorted(set(new) - set(old))),
        removed=tuple(sorted(set(old) - set(new))),
        modified=tuple(sorted(p for p in set(old) & set(new) if old[p] != new[p])),
    )


def _walk(root: Path, real_root: str, out: dict[str, str]) -> None:
    """Fill ``out`` for every entry under ``root``: iterative, so depth never means recursion."""
    seen = [0]
    pending: list[tuple[str, str, int]] = [(os.fspath(root), "", 0)]
    while pending:
        folder, prefix, depth = pending.pop()
        try:
            entries = _list_folder(root, folder, seen)
        except FingerprintError:
            raise
        except OSError as exc:
            if not prefix:
                raise  # the skill folder itself cannot be listed: nothing to fingerprint
            # An unreadable sub-folder still contributes, so making it readable, or adding
            # or renaming entries in it (its ctime), is a change.
            out[prefix.rstrip("/")] = _unreadable(folder, "unreadable-dir", exc)
            continue
        for entry in entries:
            try:
                _walk_entry(root, real_root, entry, prefix, depth, out, pending)
            except FingerprintError:
                raise
            except OSError as exc:
                out[prefix + entry.name] = _unreadable(entry.path, "unreadable", exc)


def _list_folder(root: Path, folder: str, seen: list[int]) -> list[os.DirEntry[str]]:
    """The entries of ``folder``, counted as they come (``seen[0]`` over the whole walk):
    a huge folder is never listed whole."""
    entries: list[os.DirEntry[str]] = []
    with os.scandir(folder) as scan:
        for entry in scan:
            seen[0] += 1
            if seen[0] > MAX_ENTRIES:
                raise FingerprintError(
                    f"The skill folder {root} holds more than {MAX_ENTRIES:,} files "
                    "and folders, too many to check before each run; remove what "
                    "the skill does not need."
                )
            entries.append(entry)
    return entries


def _walk_entry(
    root: Path,
    real_root: str,
    entry: os.DirEntry[str],
    prefix: str,
    depth: int,
    out: dict[str, str],
    pending: list[tuple[str, str, int]],
) -> None:
    """One entry: a symlink, file or special file is hashed into ``out``; a folder is
    queued in ``pending`` (unless skipped at the top)."""
    rel = prefix + entry.name
    top = depth == 0
    if entry.is_symlink():
        out[rel] = _hash_symlink(Path(entry.path), real_root)
    elif entry.is_dir(follow_symlinks=False):
        if top and entry.name in SKIPPED_TOP_DIRS:
            return
        if depth + 1 > MAX_DEPTH:
            raise FingerprintError(
                f"The skill folder {root} has folders nested more than "
                f"{MAX_DEPTH} deep ({rel}), too deep to check before each "
                "run; flatten it."
            )
        pending.append((entry.path, rel + "/", depth + 1))
    elif entry.is_file(follow_symlinks=False):
        if not (top and entry.name in SKIPPED_TOP_FILES):
            out[rel] = _hash_file(entry.path)
    else:
        mode = entry.stat(follow_symlinks=False).st_mode
        out[rel] = _marker("special", _kind(mode))


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
            h.update(b"unreadable\0" + _unreadable(resolved, "unreadable", exc).encode())
    elif not inside:
        h.update(b"outside")
    return h.hexdigest()


def _marker(kind: str, detail: str) -> str:
    """A hex digest standing for something that is not file content."""
    return hashlib.sha256(f"{kind}\0{detail}".encode()).hexdigest()


def _unreadable(path: str, kind: str, exc: OSError) -> str:
    """The marker of an entry that cannot be read: the error and what ``lstat`` says.

    Content cannot be hashed, so the metadata stands in for it: an execute-only binary
    swapped for another one changes its size, mtime, inode or (which no one can set
    back) its ctime.
    """
    detail = exc.strerror or type(exc).__name__
    try:
        st = os.lstat(path)
    except OSError:
        return _marker(kind, detail)
    return _marker(
        kind,
        f"{detail}\0mode={st.st_mode:o} size={st.st_size} mtime={st.st_mtime_ns} "
        f"ctime={st.st_ctime_ns} ino={st.st_dev}:{st.st_ino}",
    )


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "fifo"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "other"


# -- programs outside the skill folder ------------------------------------------------


class OutsideProgram(Struct, frozen=True):
    """A program (or script) a tool's command names that does not live in the skill folder.

    ``path`` is the file it resolves to now (None when it is not found), ``in_home`` says
    whether that file is in the user's home, where an edit does not need root: those are
    fingerprinted into the skill's approval (``digest``), so editing one asks again.
    """

    tool: str
    word: str
    path: str | None
    in_home: bool
    digest: str | None = None

    def describe(self) -> str:
        """One line for the approval dialog or the CLI."""
        where = self.path or "not found on PATH"
        note = " (in your home: covered by the approval)" if self.in_home else ""
        return f"{self.tool}: {self.word} → {where}{note}"


def _search_path(value: str | None) -> str:
    """Absolute PATH entries only, as the runner gives a tool (``.`` never counts)."""
    entries = [e for e in (value or "").split(os.pathsep) if os.path.isabs(e)]
    return os.pathsep.join(entries) or "/usr/local/bin:/usr/bin:/bin"


def _inside(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def _named_files(command: CommandTemplate, home: str) -> list[tuple[str, bool]]:
    """``(word, is_program)``: the program, and literal arguments naming a path in home."""
    first = command.words[0]
    named = [(first.literal_text, True)] if first.is_literal else []
    for word in command.args:
        if not word.is_literal:
            continue
        text = word.literal_text
        if text.startswith("~/") or (
            text.startswith("/") and _inside(os.path.realpath(text), home)
        ):
            named.append((text, False))
    return named


def _resolve_word(word: str, home: str, search: str) -> str | None:
    if word.startswith("~/"):
        word = os.path.join(home, word[2:])
    if os.path.isabs(word):
        return word if os.path.isfile(word) else None
    if "/" in word:  # ./x is inside the skill; other relative paths depend on the cwd
        return None
    return shutil.which(word, path=search)


def outside_programs(
    skill: SkillDefinition, *, search_path: str | None = None, home: Path | None = None
) -> tuple[OutsideProgram, ...]:
    """Every program a tool of ``skill`` runs from outside its folder, resolved now.

    ``search_path`` defaults to this process's PATH (absolute entries, as a run gets
    it), ``home`` to the home folder. Literal arguments that name a file in the home
    folder (``python3 ~/bin/helper.py``) count too: they are the code that runs.
    """
    home_dir = os.path.realpath(home if home is not None else Path.home())
    search = _search_path(search_path if search_path is not None else os.environ.get("PATH"))
    skill_dir = os.path.realpath(skill.directory)
    found: list[OutsideProgram] = []
    for tool in skill.tools:
        if tool.command is None or not tool.command.words:
            continue
        for word, is_program in _named_files(tool.command, home_dir):
            if word.startswith("./"):
                continue
            path = _resolve_word(word, home_dir, search)
            if path is None and not is_program:
                continue  # an argument that is a folder or no file at all
            real = os.path.realpath(path) if path else None
            if real is not None and _inside(real, skill_dir):
                continue
            in_home = real is not None and _inside(real, home_dir)
            digest = _program_digest(real) if in_home and real else None
            found.append(OutsideProgram(tool.name, word, path, in_home, digest))
    return tuple(found)


def _program_digest(path: str) -> str:
    try:
        return _hash_file(path)
    except OSError as exc:
        return _unreadable(path, "unreadable", exc)


def with_programs(fp: Fingerprint, programs: tuple[OutsideProgram, ...]) -> Fingerprint:
    """``fp`` extended by the programs in the home folder (keyed by their absolute path).

    A skill that runs nothing from the home folder keeps exactly the digest of its
    folder, so approvals given before programs were fingerprinted stay valid.
    """
    extra = {p.path: p.digest for p in programs if p.in_home and p.path and p.digest}
    if not extra:
        return fp
    files = dict(fp.files)
    files.update(extra)
    return Fingerprint(digest=combine(files), files=files)


def skill_fingerprint(
    skill: SkillDefinition, *, folder: Path | None = None, search_path: str | None = None
) -> Fingerprint:
    """The fingerprint an approval is given to: the folder plus the home programs it runs.

    ``folder`` fingerprints another copy of the skill folder (a run's snapshot) instead.
    """
    base = fingerprint(folder if folder is not None else skill.directory)
    return with_programs(base, outside_programs(skill, search_path=search_path))


# -- a private copy of the skill folder, for a sandboxed run --------------------------


def snapshot_folder(skill_dir: Path, dest: Path) -> Path:
    """Copy what the fingerprint covers from ``skill_dir`` into the empty folder ``dest``.

    Regular files (with their permission bits), symlinks (as links) and fifos (as new,
    empty fifos) are copied; the top-level ``.git`` and provenance file are not, as they
    are not fingerprinted. Fingerprint the copy and compare: the copy is what the run
    executes, so a match means the approved content runs, whatever happens to the
    original meanwhile. Raises ``OSError`` with a message when an entry cannot be read.
    """
    root = Path(skill_dir)
    pending: list[tuple[str, str, int]] = [(os.fspath(root), os.fspath(dest), 0)]
    count = 0
    while pending:
        source, target, depth = pending.pop()
        with os.scandir(source) as scan:
            entries = list(scan)
        count += len(entries)
        if count > MAX_ENTRIES or depth > MAX_DEPTH:
            raise FingerprintError(f"The skill folder {root} is too big to copy for a run.")
        for entry in entries:
            out = os.path.join(target, entry.name)
            if depth == 0 and entry.name in SKIPPED_TOP_DIRS | SKIPPED_TOP_FILES:
                continue
            if entry.is_symlink():
                os.symlink(os.readlink(entry.path), out)
            elif entry.is_dir(follow_symlinks=False):
                os.mkdir(out, 0o700)
                pending.append((entry.path, out, depth + 1))
            elif entry.is_file(follow_symlinks=False):
                _copy_file(entry.path, out)
            elif stat.S_ISFIFO(entry.stat(follow_symlinks=False).st_mode):
                os.mkfifo(out, 0o600)
    return dest


def _copy_file(source: str, target: str) -> None:
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(source, flags)
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(handle.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{source} changed into a special file while it was copied")
        out_fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, info.st_mode & 0o755)
        with os.fdopen(out_fd, "wb") as out:
            shutil.copyfileobj(handle, out, _CHUNK)
        os.chmod(target, (info.st_mode & 0o755) | 0o400)
