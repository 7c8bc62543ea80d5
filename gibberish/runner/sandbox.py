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
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gibberish.runner import sandbox_advice
from gibberish.runner.sandbox_mounts import file_system, hide_desktop, hide_paths

PACKAGE = sandbox_advice.PACKAGE
SWITCH_VAR = "GIBBERISH_SANDBOX"
#: Every run: its own PID namespace and session (no TIOCSTI into the person's terminal),
#: no capabilities (a run started as root cannot remount the read-only root), and it
#: ends when gibberish does.
_ALWAYS = ("--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL")
_PROBE_TIMEOUT = 10.0


@dataclass(frozen=True)
class Sandbox:
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


@dataclass(frozen=True)
class SandboxStatus:
    """Whether runs are wrapped, with what, and a sentence saying so (or why not)."""

    active: bool
    bwrap: str | None
    version: str
    detail: str
    advice: str = ""
    """When not active: what that means for the person's skills and what to do."""


_lock = threading.Lock()
_status: SandboxStatus | None = None
_notice_given = False


def status() -> SandboxStatus:
    """Probe bwrap once per process (a real run of ``true`` with every flag used)."""
    global _status
    with _lock:
        if _status is None:
            _status = _probe()
        return _status


def reset() -> None:
    """Forget the probe and the notice (tests, or after installing bubblewrap)."""
    global _status, _notice_given
    with _lock:
        _status = None
        _notice_given = False


def take_notice() -> str | None:
    """The one-time message for a process that runs tools unsandboxed; None otherwise.

    Cheap: it never starts bwrap itself. Before the first run has probed, only what can
    be seen without starting anything counts (no bwrap, not Linux, turned off); a probe
    that fails later makes the next call return the notice.
    """
    global _notice_given
    with _lock:
        current = _status if _status is not None else _static_status()
        if current is None or current.active or _notice_given:
            return None
        _notice_given = True
    return f"Tools run without a sandbox: {current.detail} {current.advice}".strip()


def _static_status() -> SandboxStatus | None:
    """Why there can be no sandbox, seen without starting anything; None if there may be."""
    if os.environ.get(SWITCH_VAR, "").lower() in {"off", "0", "no", "false"}:
        return SandboxStatus(
            False,
            None,
            "",
            f"the sandbox is turned off ({SWITCH_VAR}=off).",
            f"Unset {SWITCH_VAR} to use bubblewrap again. {sandbox_advice.CONSEQUENCE}",
        )
    if not sys.platform.startswith("linux"):
        return SandboxStatus(
            False,
            None,
            "",
            f"bubblewrap needs Linux (this is {sys.platform}).",
            sandbox_advice.CONSEQUENCE,
        )
    if shutil.which("bwrap") is None:
        return SandboxStatus(
            False, None, "", "bwrap was not found on PATH.", sandbox_advice.not_installed()
        )
    return None


def _probe() -> SandboxStatus:
    unavailable = _static_status()
    if unavailable is not None:
        return unavailable
    bwrap = shutil.which("bwrap") or "bwrap"
    probe = [bwrap, *_ALWAYS, "--unshare-net"]
    probe += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(
            probe, capture_output=True, timeout=_PROBE_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxStatus(False, bwrap, "", f"{bwrap} could not be started ({exc}).")
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        found = sandbox_advice.diagnose(bwrap, stderr, done.returncode)
        return SandboxStatus(False, bwrap, "", found.detail, found.advice)
    version = _version(bwrap)
    return SandboxStatus(
        True,
        bwrap,
        version,
        f"every run gets its own PID namespace and session, and no capabilities, through "
        f"{bwrap}"
        + (f" ({version})" if version else "")
        + "; read_only mounts the file system read-only, network: false unshares the network"
        " and hides the host's sockets.",
    )


def _version(bwrap: str) -> str:
    try:
        done = subprocess.run(
            [bwrap, "--version"], capture_output=True, timeout=_PROBE_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.decode("utf-8", "replace").strip()


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
    args = [bwrap, *_ALWAYS]
    if sandbox.offline:
        args.append("--unshare-net")
    args += file_system(sandbox, cwd=cwd, env=env, arguments=argv[1:], program=executable)
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
