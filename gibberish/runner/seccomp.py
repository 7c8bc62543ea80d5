"""The seccomp filter an offline run gets: socket families by list, no io_uring.

``network: false`` gives a run its own network namespace. That covers the IP families
and the *abstract* Unix sockets, but not every address family: a Unix socket that is a
file is reached through the file system, and families such as ``AF_VSOCK`` (the
hypervisor's host on WSL2, Firecracker and cloud VMs), ``AF_BLUETOOTH`` or ``AF_CAN``
are not isolated by a network namespace at all. So an offline run may create only the
families on a short list, and every other number is refused with ``EACCES`` — including
numbers a future kernel adds (everything at or above :data:`FAMILY_CEILING`):

* ``socket()``: ``AF_INET`` and ``AF_INET6`` — inside the run's empty namespace they
  reach only its own loopback (a tool that talks to itself over 127.0.0.1 keeps
  working); ``AF_UNIX`` only for a run granted the display (``gui: true``), whose
  Wayland/X11 socket is a Unix socket.
* ``socketpair()``: ``AF_UNIX`` — two connected ends made inside the run, reaching
  nothing outside (``subprocess`` and ``multiprocessing`` use them).

Everything else — ``AF_NETLINK`` included (glibc falls back when it is refused) — is
refused; ADR 0062 gives the reasons. seccomp cannot look inside the address given to
``connect()`` (it sees only a pointer), so the family is checked where it is a plain
number, at ``socket()``. ``io_uring_setup`` is refused too, because an io_uring ring can
make and connect sockets without the system calls the filter sees. The family is
compared on its low 32 bits, as the kernel reads it (an ``int``); a value with upper
bits set is refused outright. Only the machine's own architecture is allowed; a 32-bit
program (which could use ``socketcall``, whose arguments seccomp cannot read) is killed
rather than let through.

The filter is compiled by libseccomp (the library Flatpak, systemd and container
runtimes use) through its Python bindings — the official ``seccomp`` module where the
distribution ships it, else ``pyseccomp`` from PyPI — and handed to bwrap as a compiled
BPF program on a file descriptor (``bwrap --seccomp FD``). Where neither is available
:func:`offline_filter` returns None and the run relies on its namespace and the hidden
folders alone; ``gibberish doctor`` says so.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
import threading
from types import ModuleType
from typing import Any

FAMILY_CEILING = 46
"""One past the highest address family Linux knows today (``AF_MCTP`` is 45): every
family number at or above it is refused, so a family a later kernel adds is refused
without a change here."""

SOCKET_FAMILIES = frozenset({socket.AF_INET, socket.AF_INET6})
"""What ``socket()`` may make in an offline run (plus ``AF_UNIX`` with the display)."""

SOCKETPAIR_FAMILIES = frozenset({socket.AF_UNIX})
"""What ``socketpair()`` may make in an offline run."""

_LOW_32 = 0xFFFFFFFF

_lock = threading.Lock()
_compiled: dict[bool, bytes] = {}
_problem: str | None = None


def _bindings() -> ModuleType:
    try:
        import seccomp  # the distribution's official bindings (python3-seccomp)
    except ImportError:
        import pyseccomp as seccomp  # the same API over ctypes, from PyPI
    return seccomp


def _refuse_all_but(lib: ModuleType, rules: Any, call: str, allowed: frozenset[int]) -> None:
    """Refuse ``call`` for every family number not in ``allowed``: each known one by its
    low 32 bits, and every 64-bit value at or above the ceiling (which also catches a
    permitted family with upper bits set)."""
    refuse = lib.ERRNO(errno.EACCES)
    for family in range(FAMILY_CEILING):
        if family not in allowed:
            rules.add_rule(refuse, call, lib.Arg(0, lib.MASKED_EQ, _LOW_32, family))
    rules.add_rule(refuse, call, lib.Arg(0, lib.GE, FAMILY_CEILING))


def _compile(display: bool) -> bytes:
    lib = _bindings()
    rules = lib.SyscallFilter(defaction=lib.ALLOW)
    families = SOCKET_FAMILIES | ({socket.AF_UNIX} if display else set())
    _refuse_all_but(lib, rules, "socket", frozenset(families))
    _refuse_all_but(lib, rules, "socketpair", SOCKETPAIR_FAMILIES)
    rules.add_rule(lib.ERRNO(errno.ENOSYS), "io_uring_setup")
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def offline_filter(display: bool = False) -> bytes | None:
    """The compiled BPF program for an offline run (cached per process), or None where it
    cannot be built. ``display``: the run was granted the display's Unix sockets."""
    global _problem
    with _lock:
        if display not in _compiled and _problem is None:
            try:
                _compiled[display] = _compile(display)
            except (ImportError, OSError, RuntimeError, ValueError) as exc:
                _problem = f"{type(exc).__name__}: {exc}"
        return _compiled.get(display)


def why_unavailable() -> str | None:
    """Why there is no filter here (a sentence), or None when there is one."""
    if offline_filter() is not None:
        return None
    return (
        f"the seccomp filter cannot be built ({_problem}); install libseccomp2 and "
        "python3-seccomp, or pip install pyseccomp"
    )


def filter_fd(program: bytes) -> int:
    """A readable file descriptor holding ``program`` from its start, for ``--seccomp``.

    The caller passes it to bwrap (``pass_fds``) and closes it once bwrap has started.
    """
    fd = os.memfd_create("gibberish-seccomp", os.MFD_CLOEXEC)  # pass_fds hands it to bwrap
    view = memoryview(program)
    while view:
        view = view[os.write(fd, view) :]
    os.lseek(fd, 0, os.SEEK_SET)
    return fd
