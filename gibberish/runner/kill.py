"""Ending a run's processes: the process group first, then a sweep by run id.

Signalling the process group reaches everything that stayed in it, in one system call.
What left it — a double fork with ``setsid``, a daemon — is found by the run's cookie:
every process started by the run inherits ``GIBBERISH_RUN_ID`` in its environment, and
:func:`find_run_processes` reads the environments (``psutil.Process.environ``) to find
them. Signals to stray processes go through psutil, which refuses a pid that has since
been reused by an unrelated process.

A full sweep reads every process's environment (a few milliseconds on a desktop), so
the normal path of a run that simply ended uses :func:`recent_pids`: only processes
created after the run's first process can belong to it, and Linux hands out pids in
increasing (cyclic) order, so those are the pids between the child's and the last one
allocated.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterable

import psutil

from gibberish.runner.spec import RUN_ID_VAR

_NS_LAST_PID = "/proc/sys/kernel/ns_last_pid"


def signal_group(pgid: int, signum: int) -> bool:
    """Send ``signum`` to the group; False when the group no longer exists.

    Only call this while the group leader is unreaped: its zombie keeps the id ours.
    """
    try:
        os.killpg(pgid, signum)
    except ProcessLookupError:
        return False
    except PermissionError:  # a member changed its uid (setuid program); nothing to do
        return True
    return True


def _is_alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def group_members(pgid: int, *, exclude: Iterable[int] = ()) -> list[psutil.Process]:
    """Live (non-zombie) processes whose process group is ``pgid``."""
    skip = {os.getpid(), *exclude}
    members = []
    for pid in psutil.pids():
        if pid in skip:
            continue
        try:
            # Pin the process's identity (psutil records its start time) before asking
            # its group, so a pid reused in between is never signalled by mistake.
            proc = psutil.Process(pid)
            if os.getpgid(pid) != pgid:
                continue
        except (OSError, psutil.Error):
            continue
        if _is_alive(proc):
            members.append(proc)
    return members


def recent_pids(since_pid: int) -> list[int] | None:
    """Pids allocated after ``since_pid``, or None if that cannot be known (sweep all)."""
    try:
        fd = os.open(_NS_LAST_PID, os.O_RDONLY | os.O_CLOEXEC)
        try:
            last = int(os.read(fd, 32))
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return None
    if last == since_pid:  # nothing was created since: the usual case, and the cheap one
        return []
    pids = psutil.pids()
    if since_pid < last:
        return [pid for pid in pids if since_pid < pid <= last]
    return [pid for pid in pids if pid > since_pid or pid <= last]  # the counter wrapped


def find_run_processes(run_id: str, *, pids: Iterable[int] | None = None) -> list[psutil.Process]:
    """Live processes carrying ``GIBBERISH_RUN_ID=run_id`` (all of them, or among ``pids``)."""
    me = os.getpid()
    found = []
    for pid in psutil.pids() if pids is None else pids:
        if pid == me:
            continue
        try:
            proc = psutil.Process(pid)
            if proc.environ().get(RUN_ID_VAR) == run_id:
                found.append(proc)
        except psutil.Error:  # gone, zombie, or not ours to read
            continue
    return found


def signal_processes(procs: Iterable[psutil.Process], signum: int) -> None:
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.send_signal(signum)


def wait_gone(procs: Iterable[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Wait until each process has exited (a zombie counts as gone); return the rest."""
    pending = list(procs)
    deadline = time.monotonic() + timeout
    delay = 0.0005
    while pending:
        pending = [proc for proc in pending if _is_alive(proc)]
        if not pending or time.monotonic() >= deadline:
            break
        time.sleep(delay)
        delay = min(delay * 2, 0.01)
    return pending


def unique(procs: Iterable[psutil.Process]) -> list[psutil.Process]:
    return list({proc.pid: proc for proc in procs}.values())


def kill_everything(
    pgid: int,
    run_id: str,
    *,
    known: Iterable[psutil.Process] = (),
    budget: float = 1.0,
) -> list[psutil.Process]:
    """SIGKILL the group and every process carrying the run id until a sweep finds none.

    Repeats because a process that was forking while we swept may leave a child the
    previous pass did not see. Returns what still lives when ``budget`` runs out.
    """
    deadline = time.monotonic() + budget
    pending = list(known)
    while True:
        signal_group(pgid, signal.SIGKILL)
        pending = [proc for proc in pending if _is_alive(proc)]
        pending += find_run_processes(run_id)
        pending += group_members(pgid, exclude=(pgid,))
        pending = unique(pending)
        if not pending:
            return []
        signal_processes(pending, signal.SIGKILL)
        pending = wait_gone(pending, min(max(0.0, deadline - time.monotonic()), 0.2))
        if time.monotonic() >= deadline:
            return pending


def outside_group(procs: Iterable[psutil.Process], pgid: int) -> list[psutil.Process]:
    """The processes of ``procs`` that are not (or no longer) in process group ``pgid``."""
    outside = []
    for proc in procs:
        try:
            if os.getpgid(proc.pid) != pgid:
                outside.append(proc)
        except OSError:
            continue
    return outside


def alive(procs: Iterable[psutil.Process]) -> list[psutil.Process]:
    """The processes of ``procs`` that have not exited (zombies have)."""
    return [proc for proc in procs if _is_alive(proc)]


def namespace_processes(
    bwrap_pid: int,
) -> tuple[psutil.Process | None, list[psutil.Process]]:
    """The init of a bwrap sandbox (its child) and every process below that init.

    Inside a PID namespace an orphan is adopted by the namespace's init, so the tree
    under it holds every process of the run, ``setsid`` escapees included.
    """
    try:
        children = psutil.Process(bwrap_pid).children()
    except psutil.Error:
        return None, []
    if not children:
        return None, []
    init = children[0]
    try:
        inside = init.children(recursive=True)
    except psutil.Error:
        inside = []
    return init, inside
