"""Sealed copies of the home programs a run executes, so what was approved is what runs.

A tool that runs ``~/bin/helper`` (or ``python3 ~/bin/helper.py``) has the helper's
content in its approval (trust/fingerprint.py, ``outside_programs``). Checking that file
and then executing it by its path leaves a window: swapped in between, an unapproved
helper runs. So each such file is read once into an anonymous, sealed memory file
(``memfd_create`` plus ``F_SEAL_WRITE``/``GROW``/``SHRINK``/``SEAL``: nobody, this
process included, can change it afterwards), the copy is hashed, and the run executes
the copy as ``/proc/self/fd/N`` — inherited by the run, sandboxed or not, and never
re-opened by path after the check. A script keeps working (the kernel hands its
interpreter ``/proc/self/fd/N``), though it sees that path as its ``$0``: ADR 0063.

A file that cannot be read cannot be copied, so such a run is refused (the person sees
why) rather than executed from disk.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import os
import stat
from collections.abc import Iterable, Sequence
from pathlib import Path

from msgspec import Struct

from gibberish.trust.fingerprint import OutsideProgram

_SEALS = fcntl.F_SEAL_WRITE | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_SEAL
_CHUNK = 1 << 16
MAX_PROGRAM = 256 * 1024 * 1024
"""A home program bigger than this is not copied (the run is refused)."""


class SealError(OSError):
    """A home program could not be copied for its run; ``str()`` says which and why."""


class SealedProgram(Struct, frozen=True):
    """The sealed copy of ``program``: ``fd`` (read-only, inheritable) and its hash."""

    program: OutsideProgram
    fd: int
    digest: str

    @property
    def exec_path(self) -> str:
        """The name the run uses for the copy (valid in the run: it inherits ``fd``)."""
        return f"/proc/self/fd/{self.fd}"


def seal(programs: Iterable[OutsideProgram]) -> tuple[SealedProgram, ...]:
    """A sealed copy of each home program in ``programs`` that the approval covers.

    Raises :class:`SealError` (closing what was made) when one cannot be read.
    """
    made: list[SealedProgram] = []
    try:
        for program in programs:
            if program.in_home and program.path and program.digest:
                fd, digest = _copy(os.path.realpath(program.path), program.path)
                made.append(SealedProgram(program, fd, digest))
    except BaseException:
        close(made)
        raise
    return tuple(made)


def digests(sealed: Iterable[SealedProgram]) -> dict[str, str]:
    """What the fingerprint records for each copy (keyed as ``with_programs`` keys it)."""
    return {s.program.path: s.digest for s in sealed if s.program.path}


def close(sealed: Iterable[SealedProgram]) -> None:
    """Close the copies (a run that will not start, or copies its tool does not run)."""
    for item in sealed:
        with contextlib.suppress(OSError):
            os.close(item.fd)


def substitute(
    argv: Sequence[str], tool: str, sealed: Iterable[SealedProgram], home: Path | None = None
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """``argv`` with each word that names a sealed program of ``tool`` replaced by its
    copy, and the descriptors the run must inherit for it."""
    home_text = str(home if home is not None else Path.home())
    names: dict[str, SealedProgram] = {}
    for item in sealed:
        if item.program.tool != tool:
            continue
        word = item.program.word
        spelled = home_text + word[1:] if word.startswith("~/") else word
        for name in (word, spelled, item.program.path or ""):
            if name:
                names[name] = item
    out: list[str] = []
    used: list[int] = []
    for index, arg in enumerate(argv):
        found = names.get(arg)
        if found is None or (index > 0 and "/" not in arg):  # a bare name: only argv[0]
            out.append(arg)
            continue
        out.append(found.exec_path)
        if found.fd not in used:
            used.append(found.fd)
    return tuple(out), tuple(used)


def unused(sealed: Iterable[SealedProgram], used: Iterable[int]) -> list[SealedProgram]:
    """The copies whose descriptor the run does not inherit (another tool's programs)."""
    keep = set(used)
    return [s for s in sealed if s.fd not in keep]


def _copy(real: str, shown: str | None) -> tuple[int, str]:
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
    try:
        source = os.open(real, flags)
    except OSError as exc:
        raise SealError(
            f"{shown} cannot be read to run the approved version: {exc.strerror}"
        ) from None
    memfd = -1
    try:
        info = os.fstat(source)
        if not stat.S_ISREG(info.st_mode):
            raise SealError(f"{shown} is no longer a regular file")
        if info.st_size > MAX_PROGRAM:
            raise SealError(f"{shown} is too big to copy for its run")
        memfd = os.memfd_create(os.path.basename(real)[:200] or "program", os.MFD_ALLOW_SEALING)
        h = hashlib.sha256()
        total = 0
        while chunk := os.read(source, _CHUNK):
            total += len(chunk)
            if total > MAX_PROGRAM:
                raise SealError(f"{shown} is too big to copy for its run")
            h.update(chunk)
            view = memoryview(chunk)
            while view:
                view = view[os.write(memfd, view) :]
        os.fchmod(memfd, 0o500)
        fcntl.fcntl(memfd, fcntl.F_ADD_SEALS, _SEALS)
        readonly = os.open(f"/proc/self/fd/{memfd}", os.O_RDONLY)  # no write handle kept
        return readonly, h.hexdigest()
    except SealError:
        raise
    except OSError as exc:
        raise SealError(f"{shown} could not be copied for its run: {exc.strerror or exc}") from None
    finally:
        os.close(source)
        if memfd >= 0:
            os.close(memfd)
