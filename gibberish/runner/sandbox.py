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
import stat
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from gibberish.runner import sandbox_advice

PACKAGE = sandbox_advice.PACKAGE
SWITCH_VAR = "GIBBERISH_SANDBOX"
#: Folders a read-only run may be pointed at through its environment.
_POINTED_AT_VARS = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
_PRIVATE_TMP = "/tmp"
_X11_SOCKETS = "/tmp/.X11-unix"
_RUN = "/run"
#: Where a host keeps Unix sockets (besides /tmp and the runtime folder): hidden from
#: offline runs. /var/run is normally a link to /run and then needs nothing of its own.
_SOCKET_PLACES = (_RUN, "/var/run", "/var/tmp", "/dev/shm")
#: Folders in /tmp that servers keep their sockets in (X11, ICE, tmux, ssh-agent, screen).
_SOCKET_FOLDERS = (".X11-unix", ".ICE-unix", ".XIM-unix", ".font-unix", "tmux-", "ssh-", "screen")
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
        """Offline runs get the seccomp filter, unless they were granted the display."""
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
        f"every run gets its own PID namespace through {bwrap}"
        + (f" ({version})" if version else "")
        + "; read_only mounts the file system read-only, network: false unshares the network.",
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
    by bwrap, for a run that :attr:`Sandbox.blocks_unix_sockets`.
    """
    args = [bwrap, *_ALWAYS]
    if sandbox.offline:
        args.append("--unshare-net")
    args += _file_system(sandbox, cwd=cwd, env=env, arguments=argv[1:], program=executable)
    if not sandbox.desktop:
        args += _hide_desktop(env, private_tmp=sandbox.read_only, gui=sandbox.gui)
    args += _hide_paths(sandbox.hidden)
    if sandbox.snapshot is not None and sandbox.skill_dir is not None:
        args += ["--ro-bind", str(sandbox.snapshot), os.path.realpath(sandbox.skill_dir)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    args += ["--chdir", str(cwd), "--", executable, *argv[1:]]
    return args


def _file_system(
    sandbox: Sandbox,
    *,
    cwd: Path,
    env: Mapping[str, str],
    arguments: Sequence[str],
    program: str,
) -> list[str]:
    """The root, /proc and /dev; for an offline run no folder where host sockets live.

    A read-only run gets a private ``/tmp``; the folders it is pointed at there (working
    folder, home, its program's prefix) are bound back, and so are its arguments unless
    it is offline: a literal ``/tmp/...`` argument could name a host socket (a tmux
    server's) or a folder holding one. A writable offline run keeps the host's ``/tmp``
    (where it may be asked to write its result) without the sockets in it.
    """
    if sandbox.read_only:
        args = ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    else:
        args = ["--bind", "/", "/", "--proc", "/proc", "--dev-bind", "/dev", "/dev"]
    if sandbox.offline:
        args += _hide_socket_places()
    if sandbox.read_only:
        args += ["--tmpfs", _PRIVATE_TMP]
        pointed = arguments if not sandbox.offline else ()
        for path in _pointed_at(cwd, env, pointed, program=program):
            args += ["--ro-bind-try", path, path]
    elif sandbox.offline:
        args += _hide_tmp_sockets(keep_display=sandbox.gui)
    return args


def _hide_tmp_sockets(*, keep_display: bool) -> list[str]:
    """The sockets in the host's ``/tmp`` (for a writable offline run, which keeps it):
    each socket file there, and the folders servers keep theirs in (X11, ICE, tmux,
    ssh-agent). A socket further down is refused by the seccomp filter."""
    args: list[str] = []
    try:
        entries = list(os.scandir(_PRIVATE_TMP))
    except OSError:
        return args
    for entry in entries:
        if keep_display and entry.path == _X11_SOCKETS:
            continue
        try:
            if entry.is_dir(follow_symlinks=False) and entry.name.startswith(_SOCKET_FOLDERS):
                args += ["--tmpfs", entry.path]
            elif stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                args += ["--ro-bind", os.devnull, entry.path]
        except OSError:
            continue
    return args


def _hide_socket_places() -> list[str]:
    """Empty tmpfs over the folders where a host keeps its sockets (offline runs).

    ``/run`` also holds links some systems run programs through (NixOS's
    ``/run/current-system``); those links are recreated inside the empty ``/run``.
    """
    args: list[str] = []
    for place in _SOCKET_PLACES:
        if os.path.isdir(place) and not os.path.islink(place):
            args += ["--tmpfs", place]
    try:
        entries = list(os.scandir(_RUN))
    except OSError:
        entries = []
    for entry in entries:
        if entry.is_symlink():
            target = os.readlink(entry.path)
            if os.path.isabs(target) and not target.startswith(_RUN + "/"):
                args += ["--symlink", target, entry.path]
    return args


def _hide_paths(paths: Sequence[str]) -> list[str]:
    """An empty tmpfs over each folder, an empty read-only file over each file."""
    args: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.isdir(real):
            args += ["--tmpfs", real]
        elif os.path.lexists(real):
            args += ["--ro-bind", os.devnull, real]
    return args


def _under_private_tmp(path: str) -> bool:
    return path.startswith(_PRIVATE_TMP + "/")


def _program_prefix(program: str) -> str:
    """The folder a program is installed in: for ``PREFIX/bin/tool`` the whole ``PREFIX``
    (a virtual environment's interpreter needs its ``pyvenv.cfg`` and libraries), else
    the program's own folder."""
    folder = os.path.dirname(os.path.abspath(program))
    return os.path.dirname(folder) if os.path.basename(folder) == "bin" else folder


def _pointed_at(
    cwd: Path, env: Mapping[str, str], arguments: Sequence[str], *, program: str = ""
) -> list[str]:
    """Existing folders and files under /tmp the run is pointed at or runs from (kept
    visible, read-only)."""
    candidates = [str(cwd)] + [env.get(name, "") for name in _POINTED_AT_VARS]
    if program:
        candidates.append(_program_prefix(program))
    candidates += [arg for arg in arguments if arg.startswith(_PRIVATE_TMP + "/")]
    found: list[str] = []
    for candidate in candidates:
        if not candidate or not os.path.isabs(candidate):
            continue
        real = os.path.realpath(candidate)
        if _under_private_tmp(real) and os.path.exists(real) and real not in found:
            found.append(real)
    return found


def _hide_desktop(env: Mapping[str, str], *, private_tmp: bool, gui: bool) -> list[str]:
    """Empty tmpfs over the session's socket folders (bus, Wayland, X11, audio).

    A ``gui`` run gets the display back: the Wayland socket (and an X authority file
    kept in the runtime folder) and the X11 socket folder; never the session bus.
    """
    hidden: list[str] = []
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime and os.path.isabs(runtime) and os.path.isdir(runtime):
        real_runtime = os.path.realpath(runtime)
        hidden += ["--tmpfs", real_runtime]
        if gui:
            for path in _display_files(env, real_runtime):
                hidden += ["--ro-bind-try", path, path]
    if gui and private_tmp and os.path.isdir(_X11_SOCKETS):  # X11 back into a private /tmp
        hidden += ["--ro-bind", _X11_SOCKETS, _X11_SOCKETS]
    return hidden


def _display_files(env: Mapping[str, str], runtime: str) -> list[str]:
    """The Wayland socket and X authority file a ``gui`` run needs from the runtime folder."""
    found = []
    wayland = env.get("WAYLAND_DISPLAY", "")
    if wayland:
        found.append(os.path.realpath(os.path.join(runtime, wayland)))
    xauthority = env.get("XAUTHORITY", "")
    if xauthority and os.path.isabs(xauthority):
        found.append(os.path.realpath(xauthority))
    return [path for path in found if path.startswith(runtime + "/") and os.path.exists(path)]


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
