"""Finding the processes a test left behind, so a suite can insist on leaving none.

Two nets, because each misses what the other catches:

* by parent — every live descendant of the test process (and every unreaped zombie
  child, which means someone forgot to ``wait``);
* by run id — every process whose environment carries one of the ``GIBBERISH_RUN_ID``
  values the test started; this finds a ``setsid`` escapee that init has adopted.

Only run ids the test itself started are considered, so runs from other test sessions
on the same machine never count against this one. :class:`RunIdRecorder` collects them
by wrapping the creation of every run handle.

Typical use in a ``conftest.py``::

    @pytest.fixture(autouse=True)
    def no_leftover_processes(monkeypatch):
        recorder = RunIdRecorder.install(monkeypatch)
        yield recorder
        assert_no_leftovers(recorder.run_ids)
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable

import psutil

RUN_ID_VAR = "GIBBERISH_RUN_ID"


def _alive(proc: psutil.Process) -> bool:
    try:
        return proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
    except psutil.AccessDenied:
        return True


def descendants(pid: int | None = None) -> list[psutil.Process]:
    """Live (non-zombie) descendants of ``pid`` (default: this process)."""
    try:
        children = psutil.Process(pid or os.getpid()).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    return [proc for proc in children if _alive(proc)]


def zombie_children(pid: int | None = None) -> list[psutil.Process]:
    """Direct children of ``pid`` that exited and were never reaped."""
    zombies = []
    with contextlib.suppress(psutil.NoSuchProcess):
        for proc in psutil.Process(pid or os.getpid()).children():
            try:
                if proc.status() == psutil.STATUS_ZOMBIE:
                    zombies.append(proc)
            except psutil.NoSuchProcess:
                continue
    return zombies


def processes_with_run_id(run_ids: Iterable[str]) -> list[psutil.Process]:
    """Live processes whose environment has ``GIBBERISH_RUN_ID`` set to one of ``run_ids``."""
    wanted = set(run_ids)
    if not wanted:
        return []
    me = os.getpid()
    found = []
    for proc in psutil.process_iter():
        if proc.pid == me:
            continue
        try:
            if proc.environ().get(RUN_ID_VAR) in wanted and _alive(proc):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def leftovers(run_ids: Iterable[str] = (), *, parent: int | None = None) -> list[psutil.Process]:
    """Descendants of ``parent`` plus processes carrying one of ``run_ids``, once each."""
    procs = {proc.pid: proc for proc in descendants(parent)}
    for proc in processes_with_run_id(run_ids):
        procs.setdefault(proc.pid, proc)
    return list(procs.values())


def wait_for_no_leftovers(
    run_ids: Iterable[str] = (), *, timeout: float = 2.0, parent: int | None = None
) -> list[psutil.Process]:
    """Poll until :func:`leftovers` is empty or ``timeout`` passes; return what remains."""
    run_ids = list(run_ids)
    deadline = time.monotonic() + timeout
    while True:
        remaining = leftovers(run_ids, parent=parent)
        if not remaining or time.monotonic() >= deadline:
            return remaining
        time.sleep(0.05)


def kill_all(procs: Iterable[psutil.Process], timeout: float = 2.0) -> None:
    """SIGKILL ``procs`` and wait for them (best effort: for cleaning up after a failure)."""
    procs = list(procs)
    for proc in procs:
        with contextlib.suppress(psutil.Error):
            proc.kill()
    deadline = time.monotonic() + timeout
    while any(_alive(proc) for proc in procs) and time.monotonic() < deadline:
        time.sleep(0.01)


def reap_zombies(procs: Iterable[psutil.Process]) -> None:
    """Reap zombie children of this process (cleanup after a failure)."""
    for proc in procs:
        with contextlib.suppress(ChildProcessError, OSError):
            os.waitpid(proc.pid, os.WNOHANG)


def describe(procs: Iterable[psutil.Process]) -> str:
    """One line per process for a failure message."""
    lines = []
    for proc in procs:
        try:
            info = proc.as_dict(["pid", "ppid", "status", "cmdline"])
        except psutil.Error:
            info = {"pid": proc.pid}
        lines.append(
            f"  pid {info.get('pid')} ppid {info.get('ppid')} {info.get('status')}: "
            f"{' '.join(info.get('cmdline') or [])}"
        )
    return "\n".join(lines)


def open_fds() -> int:
    """Number of file descriptors this process has open."""
    return psutil.Process().num_fds()


def fd_targets() -> dict[int, str]:
    """This process's open descriptors and what they point to (Linux ``/proc/self/fd``)."""
    targets = {}
    with contextlib.suppress(OSError):
        for name in os.listdir("/proc/self/fd"):
            with contextlib.suppress(OSError):
                targets[int(name)] = os.readlink(f"/proc/self/fd/{name}")
    return targets


def assert_fds_settle(before: int, *, snapshot: dict[int, str] | None = None, timeout: float = 2.0):
    """Fail unless the descriptor count comes back to ``before`` within ``timeout``.

    Waits a little because other threads of the test process (a finishing run, a
    library's worker) may briefly hold a descriptor; a real leak does not go away.
    """
    deadline = time.monotonic() + timeout
    while open_fds() > before:
        if time.monotonic() >= deadline:
            now = fd_targets()
            new = {fd: target for fd, target in now.items() if (snapshot or {}).get(fd) != target}
            raise AssertionError(f"{open_fds() - before} descriptors leaked: {new}")
        time.sleep(0.02)


def assert_no_leftovers(run_ids: Iterable[str] = (), *, timeout: float = 2.0) -> None:
    """Fail (after cleaning up) if a process or an unreaped child outlived the test."""
    remaining = wait_for_no_leftovers(run_ids, timeout=timeout)
    zombies = zombie_children()
    if remaining:
        kill_all(remaining)
    if zombies:
        reap_zombies(zombies)
    problems = []
    if remaining:
        problems.append("processes left running:\n" + describe(remaining))
    if zombies:
        problems.append("zombie children never reaped:\n" + describe(zombies))
    assert not problems, "\n".join(problems)


class RunIdRecorder:
    """Records the run id of every run created while installed (``start`` and ``run``)."""

    def __init__(self) -> None:
        self.run_ids: list[str] = []

    @classmethod
    def install(cls, monkeypatch) -> RunIdRecorder:
        """Wrap ``RunHandle.__init__`` for the duration of a test (``monkeypatch`` undoes it)."""
        from gibberish.runner.handle import RunHandle

        recorder = cls()
        original = RunHandle.__init__

        def init(handle: RunHandle, *args, **kwargs) -> None:
            original(handle, *args, **kwargs)
            recorder.run_ids.append(handle.run_id)

        monkeypatch.setattr(RunHandle, "__init__", init)
        return recorder


def _namespace_pid(pid: int) -> int | None:
    """The pid a process has in its innermost PID namespace (``NSpid``), if it is nested."""
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("NSpid:"):
                    fields = line.split()[1:]
                    return int(fields[-1]) if len(fields) > 1 else None
    except (OSError, ValueError):
        return None
    return None


def host_pids(pids: Iterable[int]) -> list[int]:
    """The pids a tool reported (``$$``, ``$!``) as this process sees them.

    Inside the sandbox a tool sees pids of its own PID namespace; among this process's
    descendants, the newest one with that namespace pid is the tool's. Pids that are
    not namespace pids of any descendant are returned as they are.
    """
    newest: dict[int, psutil.Process] = {}
    for proc in descendants():
        inner = _namespace_pid(proc.pid)
        if inner is None:
            continue
        try:
            if inner not in newest or proc.create_time() >= newest[inner].create_time():
                newest[inner] = proc
        except psutil.Error:
            continue
    return [newest[pid].pid if pid in newest else pid for pid in pids]
