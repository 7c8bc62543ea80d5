"""Starting the process and watching it: spawn, exit watcher, wake-up channel.

The run's thread sleeps in one ``poll`` on three things — the output pipe, the child's
exit, and a wake-up from :meth:`RunHandle.cancel` — so it reacts at once to each and
never blocks on any single one. The child's exit is watched with a pidfd where the
kernel has them and with ``waitid(WNOWAIT)`` otherwise; either way the child is *not*
reaped until the run is over, so its pid — which is also its process group id — stays
ours and cannot be recycled while we still signal the group.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from collections.abc import Mapping
from pathlib import Path

from gibberish.runner.program import LaunchError, describe_exec_error

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]

#: Ask for a 1 MiB pipe (Linux): fewer, larger reads of a chatty tool's output.
PIPE_SIZE = 1024 * 1024


def spawn(
    argv: tuple[str, ...],
    *,
    executable: str,
    cwd: Path,
    env: Mapping[str, str],
    pass_fds: tuple[int, ...] = (),
) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a new session (its own process group), stdout+stderr merged.

    Never a shell: ``executable`` is the resolved program file and ``argv[0]`` stays what
    the template said, as the program would see it from a shell. ``pass_fds`` are the
    only descriptors it inherits besides its standard streams (bwrap's seccomp filter).
    """
    try:
        return subprocess.Popen(
            list(argv),
            executable=executable,
            start_new_session=True,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            close_fds=True,
            pass_fds=pass_fds,
            env=dict(env),
            cwd=cwd,
        )
    except OSError as exc:
        raise describe_exec_error(exc, executable, cwd) from None
    except ValueError as exc:  # e.g. a NUL byte in an argument or a variable
        raise LaunchError(f"could not start {argv[0]}: {exc}", None) from None


def widen_pipe(fd: int) -> None:
    """Ask for a bigger pipe buffer (Linux, best effort): fewer, larger reads."""
    if fcntl is not None and hasattr(fcntl, "F_SETPIPE_SZ"):
        with contextlib.suppress(OSError):
            fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_SIZE)


class ExitWatcher:
    """Knows whether the child has exited without reaping it.

    ``fileno()`` is a pidfd (readable once the child exits) or None when the platform has
    none, in which case the caller polls :meth:`exited` at a short interval.
    """

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._exited = False
        self._fd: int | None = None
        opener = getattr(os, "pidfd_open", None)
        if opener is not None:
            with contextlib.suppress(OSError):
                self._fd = opener(pid)

    def fileno(self) -> int | None:
        return self._fd

    def exited(self) -> bool:
        if self._exited:
            return True
        waitid = getattr(os, "waitid", None)
        if waitid is None:  # pragma: no cover - platforms without waitid
            self._exited = False
            return False
        try:
            self._exited = (
                waitid(os.P_PID, self.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
            )
        except ChildProcessError:  # somebody else reaped it: it is certainly gone
            self._exited = True
        return self._exited

    def close(self) -> None:
        if self._fd is not None:
            fd, self._fd = self._fd, None
            os.close(fd)


class Waker:
    """A file descriptor another thread can make readable to interrupt ``poll``.

    An eventfd where there is one (a single descriptor), else a pipe.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._closed = False
        if hasattr(os, "eventfd"):
            self._read = self._write = os.eventfd(0, os.EFD_NONBLOCK | os.EFD_CLOEXEC)
        else:  # pragma: no cover - platforms without eventfd
            self._read, self._write = os.pipe()
            os.set_blocking(self._read, False)
            os.set_blocking(self._write, False)

    def fileno(self) -> int:
        return self._read

    def wake(self) -> None:
        with self._lock:
            if not self._closed:
                with contextlib.suppress(BlockingIOError):
                    os.write(self._write, (1).to_bytes(8, "little"))

    def clear(self) -> None:
        with contextlib.suppress(OSError):
            os.read(self._read, 4096 if self._read != self._write else 8)

    def close(self) -> None:
        with self._lock:
            if not self._closed:
                self._closed = True
                os.close(self._read)
                if self._write != self._read:
                    os.close(self._write)
