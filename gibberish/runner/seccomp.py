"""The seccomp filter an offline run gets: no Unix-domain sockets, no io_uring.

``network: false`` gives a run its own network namespace, which covers every IP socket
and the *abstract* Unix sockets, but not Unix sockets that are files: those are reached
through the file system, and a file-system path does not care which network namespace
asks. Hiding the folders where sockets usually live (``/run``, ``/tmp``, ``/var/tmp``,
the session's runtime folder) covers most of them; this filter covers the rest (a
``ControlPath`` in ``~/.ssh``, a database's socket under ``/var/lib``) by refusing
``socket(AF_UNIX, …)`` with ``EACCES``: whatever cannot make a Unix socket cannot
connect one.

seccomp cannot look inside the address given to ``connect()`` (it sees only a pointer),
so the family is checked where it is a plain number, at ``socket()``. ``socketpair()``
stays allowed: it makes two connected ends inside the run and reaches nothing outside.
``io_uring_setup`` is refused too, because an io_uring ring can connect sockets without
the ``socket``/``connect`` system calls the filter sees. The family is compared on its
low 32 bits only, as the kernel reads it (an ``int``). Only the machine's own
architecture is allowed; a 32-bit program (which could use ``socketcall``, whose
arguments seccomp cannot read) is killed rather than let through.

The filter is compiled by libseccomp (the library Flatpak, systemd and container
runtimes use) through its Python bindings — the official ``seccomp`` module where the
distribution ships it, else ``pyseccomp`` from PyPI — and handed to bwrap as a compiled
BPF program on a file descriptor (``bwrap --seccomp FD``). Where neither is available
:func:`unix_socket_filter` returns None and the run relies on the hidden folders alone;
``gibberish doctor`` says so.
"""

from __future__ import annotations

import errno
import os
import socket
import tempfile
import threading
from types import ModuleType

_lock = threading.Lock()
_compiled: bytes | None = None
_problem: str | None = None


def _bindings() -> ModuleType:
    try:
        import seccomp  # the distribution's official bindings (python3-seccomp)
    except ImportError:
        import pyseccomp as seccomp  # the same API over ctypes, from PyPI
    return seccomp


def _compile() -> bytes:
    lib = _bindings()
    refuse = lib.ERRNO(errno.EACCES)
    rules = lib.SyscallFilter(defaction=lib.ALLOW)
    # The kernel reads the family as a 32-bit int; compare only those bits, or a caller
    # could set the upper 32 and slip an AF_UNIX socket past a 64-bit comparison.
    family = lib.Arg(0, lib.MASKED_EQ, 0xFFFFFFFF, socket.AF_UNIX)
    rules.add_rule(refuse, "socket", family)
    rules.add_rule(lib.ERRNO(errno.ENOSYS), "io_uring_setup")
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def unix_socket_filter() -> bytes | None:
    """The compiled BPF program (cached per process), or None where it cannot be built."""
    global _compiled, _problem
    with _lock:
        if _compiled is None and _problem is None:
            try:
                _compiled = _compile()
            except (ImportError, OSError, RuntimeError, ValueError) as exc:
                _problem = f"{type(exc).__name__}: {exc}"
        return _compiled


def why_unavailable() -> str | None:
    """Why there is no filter here (a sentence), or None when there is one."""
    if unix_socket_filter() is not None:
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
