"""Finding the program before anything starts, and saying clearly why it cannot start.

The lookup uses the *child's* sanitized PATH, not ours: what runs must be what the
environment the skill sees would run. Failures become :class:`LaunchError` with the
shell's exit code (127 not found, 126 found but not executable) and a message that names
the file and, where there is one, the fix.
"""

from __future__ import annotations

import errno
import os
import shutil
import stat
from pathlib import Path

from gibberish.runner.env import sanitize_path
from gibberish.runner.envelope import EXIT_CANNOT_EXECUTE, EXIT_NOT_FOUND


class LaunchError(Exception):
    """A run that cannot start; becomes an envelope, never a traceback."""

    def __init__(self, message: str, exit_code: int | None) -> None:
        super().__init__(message)
        self.message = message
        self.exit_code = exit_code


def check_working_directory(cwd: Path) -> None:
    try:
        info = os.stat(cwd)
    except FileNotFoundError:
        raise LaunchError(f"working directory does not exist: {cwd}", None) from None
    except OSError as exc:
        raise LaunchError(f"working directory {cwd} is unusable: {exc.strerror}", None) from None
    if not stat.S_ISDIR(info.st_mode):
        raise LaunchError(f"working directory is not a directory: {cwd}", None)


def _check_file(path: str, shown: str) -> None:
    """Raise unless ``path`` is an executable regular file (or a symlink to one)."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise LaunchError(f"command not found: {shown} (no such file)", EXIT_NOT_FOUND) from None
    except OSError as exc:
        raise LaunchError(f"cannot execute {shown}: {exc.strerror}", EXIT_CANNOT_EXECUTE) from None
    if stat.S_ISDIR(info.st_mode):
        raise LaunchError(f"cannot execute {shown}: is a directory", EXIT_CANNOT_EXECUTE)
    if not stat.S_ISREG(info.st_mode):
        raise LaunchError(f"cannot execute {shown}: not a regular file", EXIT_CANNOT_EXECUTE)
    if not os.access(path, os.X_OK):
        raise LaunchError(
            f"permission denied: {shown} is not executable (fix: chmod +x {path})",
            EXIT_CANNOT_EXECUTE,
        )


def resolve_program(program: str, *, path: str | None, cwd: Path) -> str:
    """The absolute file to execute for ``program``.

    A name with a ``/`` is used as it is (relative to ``cwd``, as exec would); a bare name
    is looked up in ``path`` (only its absolute entries). A bare name found only as a
    non-executable file reports 126 for that file, as a shell does.
    """
    if not program:
        raise LaunchError("empty command: no program to run", None)
    if "\0" in program:
        raise LaunchError("invalid command: the program name contains a NUL character", None)
    if "/" in program:
        resolved = os.path.join(cwd, program)
        _check_file(resolved, program)
        return os.path.abspath(resolved)
    search = sanitize_path(path)
    found = shutil.which(program, path=search)
    if found is not None:
        return found
    for folder in search.split(os.pathsep):
        candidate = os.path.join(folder, program)
        if os.path.isfile(candidate):  # exists but was skipped: not executable
            _check_file(candidate, candidate)
    raise LaunchError(f"command not found: {program} (looked in PATH={search})", EXIT_NOT_FOUND)


def describe_exec_error(exc: OSError, program: str, cwd: Path) -> LaunchError:
    """Turn an ``OSError`` from ``Popen`` into the same kind of message as the checks."""
    if exc.filename is not None and os.fspath(exc.filename) == os.fspath(cwd):
        return LaunchError(f"working directory is unusable: {cwd} ({exc.strerror})", None)
    code = exc.errno
    if code == errno.ENOENT:
        return LaunchError(
            f"cannot execute {program}: no such file (is the interpreter on its #! line"
            " installed?)",
            EXIT_NOT_FOUND,
        )
    if code == errno.ENOEXEC:
        return LaunchError(
            f"cannot execute {program}: exec format error (a script needs a #! line)",
            EXIT_CANNOT_EXECUTE,
        )
    if code in (errno.EACCES, errno.EPERM, errno.ETXTBSY, errno.EISDIR):
        return LaunchError(f"cannot execute {program}: {exc.strerror}", EXIT_CANNOT_EXECUTE)
    return LaunchError(f"could not start {program}: {exc.strerror or exc}", None)
