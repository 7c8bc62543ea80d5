"""Running a tool inside bubblewrap, so what a skill declares is true by construction.

A :class:`Sandbox` on a :class:`~gibberish.runner.spec.RunSpec` asks for it; when
``bwrap`` is installed and works (:func:`status`), every such run gets:

* **its own PID namespace and /proc** (``--unshare-pid --proc /proc``): the tool sees
  only its own processes, so it cannot read another process's environment (the tray's
  included), and when its main process ends, the namespace's init ends and the kernel
  kills everything left inside — ``setsid``, double forks, ``env -i`` and re-fork loops
  included. ``--die-with-parent`` ends the namespace if gibberish itself dies.
* ``read_only`` → **the whole file system read-only** (``--ro-bind / /``) with a private,
  empty tmpfs at ``/tmp``; the folders the run is pointed at (its working folder, home,
  XDG folders, absolute paths among its arguments) stay visible, read-only, when they
  live under ``/tmp``. A write anywhere fails with EROFS.
* ``network: false`` → **a network namespace of its own** (``--unshare-net``): only a
  loopback interface, nothing outside reachable.
* the skill folder replaced by **a private snapshot** (bind-mounted read-only over it):
  the Engine copies the folder, checks the copy against the approved fingerprint, and
  the tool runs from the copy, so a file swapped in the original after the check is
  never what runs. The runner deletes the snapshot when the run ends.
* **the desktop** (the session bus and other sockets in ``$XDG_RUNTIME_DIR``, the X11
  socket folder) only for skills that may use the network *and* write: a skill that
  hands a URL to the browser (``systemd-run --user``, ``xdg-open``) keeps working, while
  a read-only or offline skill cannot ask the session to run something for it.

Without a working bwrap (macOS, Windows, no package, user namespaces disabled or refused
by AppArmor) runs go unwrapped as before; :func:`take_notice` hands out, once per
process, a message saying what blocks it and what to do (:mod:`sandbox_advice`). ``GIBBERISH_SANDBOX=off`` turns the sandbox off (for debugging).
Whether there is a sandbox (the probe, the notice) lives in :mod:`sandbox_status`, which
a command that runs no tool (``gibberish install``) imports alone.
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

from msgspec import Struct

from gibberish.runner import sandbox_advice
from gibberish.runner.sandbox_mounts import file_system, hide_desktop, hide_paths
from gibberish.runner.sandbox_status import (
    ALWAYS,
    SWITCH_VAR,
    SandboxStatus,
    reset,
    status,
    take_notice,
)

__all__ = ["SWITCH_VAR", "Sandbox", "SandboxStatus", "reset", "status", "take_notice", "wrap"]

PACKAGE = sandbox_advice.PACKAGE


class Sandbox(Struct, frozen=True):
    """What one run is allowed: the skill's declared ``read_only`` and ``network``.

    ``skill_dir`` is where the skill lives; ``snapshot``, when set, is a private copy of
    it that is mounted read-only at ``skill_dir`` for the run and deleted afterwards.
    """

    read_only: bool = False
    network: bool = True
    skill_dir: Path | None = None
    snapshot: Path | None = None
    gui: bool = False
    """The skill declared ``gui: true``: the display's sockets (Wayland, X11) stay
    reachable even when the run is offline or read-only; the session bus does not."""
    hidden: tuple[str, ...] = ()
    """Paths the run must not see (credential folders and files): each becomes an empty
    tmpfs (a folder) or an empty file (a file) inside the run."""

    @property
    def desktop(self) -> bool:
        """The session bus and display sockets are reachable only for network+write skills."""
        return self.network and not self.read_only

    @property
    def offline(self) -> bool:
        """No socket of the host may be reached: no network, and no Unix socket either."""
        return not self.network

    @property
    def blocks_unix_sockets(self) -> bool:
        """Offline runs may not make Unix sockets, unless they were granted the display
        (every offline run gets the socket-family filter; this says whether it lets
        ``AF_UNIX`` through)."""
        return self.offline and not self.gui


def wrap(
    bwrap: str,
    sandbox: Sandbox,
    *,
    argv: Sequence[str],
    executable: str,
    cwd: Path,
    env: Mapping[str, str],
    seccomp_fd: int | None = None,
) -> list[str]:
    """The bwrap command line that runs ``executable`` with ``argv[1:]`` as ``sandbox`` says.

    The program is the path the runner already resolved, so nothing inside the sandbox
    can change which file runs; it sees that path as its ``argv[0]``. ``seccomp_fd`` is a
    descriptor holding the compiled filter of :mod:`gibberish.runner.seccomp`, inherited
    by bwrap, for every :attr:`Sandbox.offline` run.
    """
    args = [bwrap, *ALWAYS]
    if sandbox.offline:
        args.append("--unshare-net")
    args += file_system(
        read_only=sandbox.read_only,
        offline=sandbox.offline,
        gui=sandbox.gui,
        cwd=cwd,
        env=env,
        arguments=argv[1:],
        program=executable,
    )
    if not sandbox.desktop:
        args += hide_desktop(env, private_tmp=sandbox.read_only, gui=sandbox.gui)
    args += hide_paths(sandbox.hidden)
    if sandbox.snapshot is not None and sandbox.skill_dir is not None:
        args += ["--ro-bind", str(sandbox.snapshot), os.path.realpath(sandbox.skill_dir)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--chdir", str(cwd), "--", executable, *argv[1:]]
    return args


def remove_snapshot(sandbox: Sandbox | None) -> None:
    """Delete a run's private snapshot, if it has one (its folders stay owner-writable)."""
    if sandbox is not None and sandbox.snapshot is not None:
        shutil.rmtree(sandbox.snapshot, ignore_errors=True)


#: A snapshot older than this belongs to a run that cannot still be going (the longest
#: timeout is minutes): a process that crashed mid-run left it behind.
STALE_SNAPSHOT_AGE = 24 * 3600.0


def prune_snapshots(parent: Path, *, max_age: float = STALE_SNAPSHOT_AGE) -> int:
    """Delete run snapshots (``run-*`` folders) in ``parent`` older than ``max_age`` seconds."""
    removed = 0
    now = time.time()
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return 0
    for entry in entries:
        try:
            old = now - entry.stat(follow_symlinks=False).st_mtime > max_age
        except OSError:
            continue
        if entry.name.startswith("run-") and entry.is_dir(follow_symlinks=False) and old:
            shutil.rmtree(entry.path, ignore_errors=True)
            removed += 1
    return removed
