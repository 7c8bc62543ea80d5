"""One started process, from spawn to reaped: read, wait, time out, cancel, clean up.

Everything here runs on the run's own thread. The rules it implements (docs/adr/0009-what-a-run-leaves-behind.md):

* Output is read as it arrives, in large non-blocking reads, and handed to a sink.
* Timeout or cancel: SIGTERM to the process group *and*, in the same instant, to every
  process found carrying the run id (a ``setsid`` escapee gets its TERM too); after
  ``grace`` seconds, SIGKILL to all of them, repeated until a sweep finds none. If
  everything is gone before the grace ends, the run ends then.
* The main process exits on its own: whatever it left behind is SIGKILLed at once —
  the rest of its group, and any process carrying the run id. A background child never
  outlives the run; a tool that means to leave something running must hand it to
  something else (``systemd-run --user``, the desktop's launcher).
* Reading never waits on a pipe held open by a process we could not find: after the
  main process is gone, the pipe is drained for at most :data:`DRAIN_TIMEOUT`.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import threading
import time
from collections.abc import Callable

import psutil
from msgspec import Struct

from gibberish.logger import logger
from gibberish.runner import kill
from gibberish.runner.envelope import RunStatus
from gibberish.runner.process import ExitWatcher, Waker, widen_pipe

#: Reads start at FIRST_READ_SIZE and grow to READ_SIZE once a read fills the buffer, so a
#: quiet tool does not cost a megabyte of zeroed memory.
FIRST_READ_SIZE = 64 * 1024
READ_SIZE = 1024 * 1024
#: How long the pipe may stay open once every process we know of is gone.
DRAIN_TIMEOUT = 0.25
#: How often to look at the remaining processes during the grace, once the main one exited.
GRACE_POLL = 0.02
#: Exit polling interval where the kernel has no pidfd.
FALLBACK_POLL = 0.01
#: A run shorter than this is checked for leftovers only among pids created after it.
RECENT_SWEEP_WINDOW = 10.0
_MAX_WAIT = 3600.0

_log = logger(__name__)

#: Receives each chunk as a view into a reused buffer: copy it to keep it.
Sink = Callable[[memoryview], None]


class Outcome(Struct, frozen=True):
    """How the process ended: its return code, and whether we ended it (and why)."""

    returncode: int | None
    ending: RunStatus | None  # TIMED_OUT or CANCELLED when the runner ended it
    survivors: int = 0  # processes still alive after every attempt to kill them


def abandon(popen: subprocess.Popen[bytes], run_id: str) -> None:
    """Kill and reap a process whose supervision could not even begin."""
    kill.kill_everything(popen.pid, run_id)
    with contextlib.suppress(OSError, subprocess.TimeoutExpired):
        popen.wait(timeout=1.0)
    if popen.stdout is not None:
        popen.stdout.close()


def _new_selector() -> selectors.BaseSelector:
    # poll(2) needs no descriptor of its own, unlike epoll: cheaper for three fds.
    poll_selector = getattr(selectors, "PollSelector", None)
    return poll_selector() if poll_selector is not None else selectors.DefaultSelector()


class Supervisor:
    """Drives one ``Popen`` to its end. Not thread-safe: only the run's thread uses it."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        *,
        run_id: str,
        timeout: float,
        grace: float,
        started: float,
        sink: Sink,
        cancel: threading.Event,
        waker: Waker,
        sandboxed: bool = False,
    ) -> None:
        self._popen = popen
        self._sandboxed = sandboxed
        self._pid = popen.pid
        self._run_id = run_id
        self._timeout = timeout
        self._grace = grace
        self._started = started
        self._sink = sink
        self._cancel = cancel
        self._waker = waker
        assert popen.stdout is not None
        self._fd = popen.stdout.fileno()
        self._pipe_open = True
        self._buffer = bytearray(FIRST_READ_SIZE)
        self._view = memoryview(self._buffer)
        self._exited = False
        self._survivors = 0
        self._watcher = ExitWatcher(self._pid)
        self._selector = _new_selector()

    # -- the whole life --------------------------------------------------------------

    def run(self) -> Outcome:
        try:
            os.set_blocking(self._fd, False)
            self._selector.register(self._fd, selectors.EVENT_READ, "out")
            exit_fd = self._watcher.fileno()
            if exit_fd is not None:
                self._selector.register(exit_fd, selectors.EVENT_READ, "exit")
            self._selector.register(self._waker.fileno(), selectors.EVENT_READ, "wake")
            ending = self._watch()
            self._selector.unregister(self._waker.fileno())
            if ending is None:
                self._clean_up_after_exit()
            else:
                self._terminate()
            self._drain()
            return Outcome(self._reap(), ending, self._survivors)
        except BaseException:
            # A bug (or a KeyboardInterrupt) must not leave the run's processes behind.
            kill.kill_everything(self._pid, self._run_id)
            with contextlib.suppress(Exception):
                self._reap()
            raise
        finally:
            self._selector.close()
            self._watcher.close()
            assert self._popen.stdout is not None
            self._popen.stdout.close()

    # -- phases ----------------------------------------------------------------------

    def _watch(self) -> RunStatus | None:
        """Until the main process exits (None), the timeout passes, or cancel is asked."""
        deadline = self._started + self._timeout
        self._pump(deadline, lambda: self._exited or self._cancel.is_set())
        if self._exited:
            return None
        return RunStatus.CANCELLED if self._cancel.is_set() else RunStatus.TIMED_OUT

    def _clean_up_after_exit(self) -> None:
        """The main process ended by itself: leftovers die now, without a grace.

        In a sandbox there are none: bwrap exits only after its PID namespace's init has,
        and the kernel has killed everything in the namespace by then.
        """
        if self._sandboxed:
            return
        kill.signal_group(self._pid, signal.SIGKILL)
        candidates = None
        if time.monotonic() - self._started < RECENT_SWEEP_WINDOW:
            candidates = kill.recent_pids(self._pid)
        strays = kill.find_run_processes(self._run_id, pids=candidates)
        if strays:
            _log.debug("run %s left %d processes behind; killing them", self._run_id, len(strays))
            self._survivors = len(kill.kill_everything(self._pid, self._run_id, known=strays))
        self._warn_about_survivors()

    def _terminate(self) -> None:
        """TERM the group and the run's strays together; KILL whatever is left after grace."""
        if self._sandboxed:
            self._terminate_namespace()
            return
        try:
            tree = psutil.Process(self._pid).children(recursive=True)
        except psutil.Error:
            tree = []
        kill.signal_group(self._pid, signal.SIGTERM)
        tracked = kill.unique(tree + kill.find_run_processes(self._run_id))
        # Only processes outside the group get a TERM of their own: a second TERM can turn
        # a graceful shutdown into a forced one ("press again to quit").
        kill.signal_processes(kill.outside_group(tracked, self._pid), signal.SIGTERM)

        def all_gone() -> bool:
            return (
                self._exited
                and not kill.alive(tracked)
                and not kill.group_members(self._pid, exclude=(self._pid,))
            )

        self._pump(time.monotonic() + self._grace, all_gone, interval=GRACE_POLL)
        # Always a last SIGKILL sweep: it also finds anything forked after the first one.
        self._survivors = len(kill.kill_everything(self._pid, self._run_id, known=tracked))
        self._warn_about_survivors()

    def _terminate_namespace(self) -> None:
        """TERM every process in the run's PID namespace; after grace, KILL its init.

        bwrap itself and the namespace's init are left out of the TERM: either dying would
        end the namespace at once, taking the tool's chance to shut down cleanly with it.
        Killing the init makes the kernel kill everything in the namespace.
        """
        init, inside = kill.namespace_processes(self._pid)
        kill.signal_processes(inside, signal.SIGTERM)
        self._pump(time.monotonic() + self._grace, lambda: self._exited, interval=GRACE_POLL)
        if not self._exited:
            kill.signal_processes([p for p in (init,) if p is not None], signal.SIGKILL)
            kill.signal_group(self._pid, signal.SIGKILL)

    def _warn_about_survivors(self) -> None:
        if self._survivors:
            _log.warning(
                "run %s: %d processes survived SIGKILL (stuck in the kernel?)",
                self._run_id,
                self._survivors,
            )

    def _drain(self) -> None:
        """Read what is left in the pipe; stop at EOF or after DRAIN_TIMEOUT."""
        finished = self._pump(
            time.monotonic() + DRAIN_TIMEOUT, lambda: self._exited and not self._pipe_open
        )
        if finished:
            return
        if not self._exited:  # the main process survived SIGKILL so far (stuck in the kernel?)
            kill.kill_everything(self._pid, self._run_id)
            self._pump(time.monotonic() + 1.0, lambda: self._exited)
        if self._pipe_open:
            _log.warning(
                "run %s: output pipe still held open by a process outside the run; stopped reading",
                self._run_id,
            )

    def _reap(self) -> int | None:
        try:
            return self._popen.wait(timeout=0 if not self._exited else None)
        except subprocess.TimeoutExpired:
            # Still alive after SIGKILL: Popen's own bookkeeping reaps it later.
            _log.error("run %s: process %d did not die", self._run_id, self._pid)
            return None

    # -- the event loop --------------------------------------------------------------

    def _pump(
        self, deadline: float, done: Callable[[], bool], *, interval: float | None = None
    ) -> bool:
        """Read output and watch for exit until ``done()`` or ``deadline``; True if done."""
        polling = self._watcher.fileno() is None
        while True:
            if done():
                return True
            now = time.monotonic()
            if now >= deadline:
                return False
            wait = min(deadline - now, _MAX_WAIT)
            if interval is not None:
                wait = min(wait, interval)
            if polling and not self._exited:
                wait = min(wait, FALLBACK_POLL)
            for key, _ in self._selector.select(wait):
                if key.data == "out":
                    self._read()
                elif key.data == "exit":
                    self._exited = True
                    self._selector.unregister(key.fd)
                else:
                    self._waker.clear()
            if polling and not self._exited:
                self._exited = self._watcher.exited()

    def _read(self) -> None:
        # readv into one reused buffer: a fresh 1 MiB bytes object per read would cost
        # page faults that halve the throughput on a chatty tool.
        try:
            count = os.readv(self._fd, [self._buffer])
        except BlockingIOError:
            return
        except OSError as exc:  # EIO and friends: treat as end of output
            _log.warning("run %s: reading output failed: %s", self._run_id, exc)
            count = 0
        if count:
            self._sink(self._view[:count])
            if count == len(self._buffer) < READ_SIZE:  # a chatty tool: read more at once
                widen_pipe(self._fd)
                self._buffer = bytearray(READ_SIZE)
                self._view = memoryview(self._buffer)
        else:
            self._pipe_open = False
            with contextlib.suppress(KeyError, ValueError):
                self._selector.unregister(self._fd)
            # EOF usually means the process is exiting: a cheap look now often saves a
            # second trip through poll.
            if not self._exited:
                self._exited = self._watcher.exited()
