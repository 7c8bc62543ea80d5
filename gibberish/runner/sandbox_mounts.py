"""The mounts of a sandboxed run: which parts of the host it sees, and which it does not.

:func:`gibberish.runner.sandbox.wrap` builds bwrap's command line from these pieces:
the root (read-only or not), the private ``/tmp`` and what is bound back into it, the
folders where a host keeps its Unix sockets (hidden from offline runs, ADR 0027), the
desktop's sockets (hidden from all but network+write runs, kept for ``gui`` runs) and
the credential places a model-started run must not see (ADR 0028).
"""

from __future__ import annotations

import atexit
import contextlib
import os
import stat
import tempfile
import threading
from collections.abc import Mapping, Sequence
from pathlib import Path

#: Folders a read-only run may be pointed at through its environment.
_POINTED_AT_VARS = ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME")
_PRIVATE_TMP = "/tmp"
_X11_SOCKETS = "/tmp/.X11-unix"
_RUN = "/run"
#: Where a host keeps Unix sockets (besides /tmp and the runtime folder): hidden from
#: offline runs. /var/run is normally a link to /run and then needs nothing of its own.
_SOCKET_PLACES = (_RUN, "/var/run", "/var/tmp", "/dev/shm")
#: The kernel's settings in /proc: a run started as root keeps uid 0, and uid 0 may
#: write them by file permission alone (``core_pattern`` runs a program as root on the
#: host, ``sysrq-trigger`` reboots it), so every run sees them read-only.
_KERNEL_KNOBS = ("/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus")
#: Folders in the home folder where sockets are commonly kept.
_HOME_SOCKET_FOLDERS = (".ssh", ".gnupg", ".tmux", ".screen")
#: Folders in /tmp that servers keep their sockets in (X11, ICE, tmux, ssh-agent, screen).
_SOCKET_FOLDERS = (".X11-unix", ".ICE-unix", ".XIM-unix", ".font-unix", "tmux-", "ssh-", "screen")


def file_system(
    *,
    read_only: bool,
    offline: bool,
    gui: bool,
    cwd: Path,
    env: Mapping[str, str],
    arguments: Sequence[str],
    program: str,
) -> list[str]:
    """The root, /proc and /dev; for an offline run no folder where host sockets live.

    A read-only run gets a private ``/tmp``; the folders it is pointed at there (working
    folder, home, its program's prefix) are bound back, and so are its arguments — for
    an offline run only those that are regular files: a literal ``/tmp/...`` argument
    could name a host socket (a tmux server's) or a folder holding one. A writable offline run keeps the host's ``/tmp``
    (where it may be asked to write its result) without the sockets in it.
    """
    if read_only:
        args = ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev"]
    else:
        args = ["--bind", "/", "/", "--proc", "/proc", "--dev-bind", "/dev", "/dev"]
    for knob in _KERNEL_KNOBS:  # writable by uid 0 even without capabilities
        args += ["--ro-bind-try", knob, knob]
    if offline:
        args += _hide_socket_places()
    if read_only:
        args += ["--tmpfs", _PRIVATE_TMP]
        pointed = _regular_files(arguments) if offline else arguments
        for path in _pointed_at(cwd, env, pointed, program=program):
            args += ["--ro-bind-try", path, path]
    elif offline:
        args += _hide_tmp_sockets(keep_display=gui)
    if offline:
        args += _hide_home_sockets(env)
    return args


def _hide_home_sockets(env: Mapping[str, str]) -> list[str]:
    """Socket files in the home folders that hold them (ssh ``ControlPath`` sockets,
    GnuPG's agent, tmux/screen configured there): an empty file over each. A socket
    elsewhere in the home is refused by the seccomp filter."""
    home = env.get("HOME", "")
    if not home or not os.path.isabs(home):
        return []
    args: list[str] = []
    for folder in _HOME_SOCKET_FOLDERS:
        try:
            entries = list(os.scandir(os.path.join(os.path.realpath(home), folder)))
        except OSError:
            continue
        for entry in entries:
            try:
                if stat.S_ISSOCK(entry.stat(follow_symlinks=False).st_mode):
                    args += ["--ro-bind", os.devnull, entry.path]
            except OSError:
                continue
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


def hide_paths(paths: Sequence[str]) -> list[str]:
    """An empty tmpfs over each folder, an empty read-only file over each file."""
    args: list[str] = []
    for path in paths:
        real = os.path.realpath(path)
        if os.path.isdir(real):
            args += ["--tmpfs", real]
        elif os.path.lexists(real):
            args += ["--ro-bind", _empty_file(), real]
    return args


_empty_lock = threading.Lock()
_empty: str | None = None


def _empty_file() -> str:
    """One empty, read-only regular file per process to mount over hidden files.

    ``/dev/null`` would do on a ``--dev-bind`` run, but bwrap mounts binds ``nodev``, so
    a device node there cannot even be opened; an empty file reads as empty everywhere.
    """
    global _empty
    with _empty_lock:
        if _empty is None or not os.path.isfile(_empty):
            fd, path = tempfile.mkstemp(prefix="gibberish-empty-")
            os.close(fd)
            os.chmod(path, 0o444)
            atexit.register(_remove, path)
            _empty = path
        return _empty


def leaves_files() -> bool:
    """Whether this process made a file it removes when it exits (its empty file)."""
    return _empty is not None


def _remove(path: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(path)


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


def _regular_files(arguments: Sequence[str]) -> list[str]:
    """The arguments that are regular files (through links): an offline run may read
    those from the host's ``/tmp``, since no file of that kind is a socket; a folder
    could hold one, or get one later."""
    found = []
    for arg in arguments:
        if os.path.isabs(arg):
            with contextlib.suppress(OSError):
                if stat.S_ISREG(os.stat(arg).st_mode):
                    found.append(arg)
    return found


def hide_desktop(env: Mapping[str, str], *, private_tmp: bool, gui: bool) -> list[str]:
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
