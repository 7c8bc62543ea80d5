"""Where the single-instance socket lives, and who is on the other end of it (no Qt).

With ``$XDG_RUNTIME_DIR`` the socket is ``gibberish.sock`` in it: a per-user, 0700
folder made by the login manager. Without one, a name in the shared temp folder could be
taken first by another user, who would then receive every request of ours (and make our
tray exit, "already running"). So the socket goes into a private folder,
``$TMPDIR/gibberish-<uid>``, created 0700 and checked before every use: a real folder
(not a link), owned by us, closed to everyone else. If someone else made that folder
first, the socket goes to ``<cache folder>/run`` under the home folder instead.

Both ends also check the other's uid (``SO_PEERCRED``, Linux): a server that is not us
gets no request, a client that is not us gets no answer.

``send_request`` is the client end, in plain Python: a second ``gibberish`` start (the
global hotkey) hands its request over with it before importing Qt, click or the Engine,
so the hand-off costs little more than starting Python. This module therefore imports
only the standard library's cheapest modules at the top.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import struct
import time
from pathlib import Path

SOCKET_NAME = "gibberish.sock"
APPROVAL_PREFIX = "mcp-approve "
"""Starts a request line that asks the tray to approve an MCP call (``mcp.approval``)."""
CONNECT_TIMEOUT = 0.5
"""Seconds to wait for the running instance to accept (as the Qt client waits)."""
REPLY_TIMEOUT = 2.0
"""Seconds to wait for its ``ok`` (its event loop may be busy for a moment)."""


class UnsafeFolderError(OSError):
    """A folder meant to be private is not (wrong owner, open to others, a link)."""


def private_folder(path: Path) -> Path:
    """Create ``path`` with mode 0700 if missing; raise ``UnsafeFolderError`` if unsafe."""
    with contextlib.suppress(FileExistsError):
        os.mkdir(path, 0o700)
    info = os.lstat(path)
    if not stat.S_ISDIR(info.st_mode):
        raise UnsafeFolderError(f"{path} is not a folder (a link or a file)")
    if info.st_uid != os.getuid():
        raise UnsafeFolderError(f"{path} belongs to uid {info.st_uid}, not to us")
    if info.st_mode & 0o077:
        os.chmod(path, 0o700)  # ours, but open to others: close it
    return path


def socket_path() -> str:
    """The single-instance socket of this user (POSIX)."""
    runtime = os.environ.get("XDG_RUNTIME_DIR")
    if runtime and os.path.isdir(runtime):
        return os.path.join(runtime, SOCKET_NAME)
    import tempfile  # only here: rarely needed, and slow to import

    shared = Path(tempfile.gettempdir()) / f"gibberish-{os.getuid()}"
    with contextlib.suppress(OSError):
        return os.fspath(private_folder(shared) / SOCKET_NAME)
    from gibberish import paths  # only for this last resort

    fallback = paths.cache_dir() / "run"
    fallback.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    return os.fspath(private_folder(fallback) / SOCKET_NAME)


def peer_uid(fd: int) -> int | None:
    """The uid of the process at the other end of the Unix socket ``fd``; None if unknown."""
    option = getattr(socket, "SO_PEERCRED", None)
    if option is None or fd < 0:
        return None
    try:
        with socket.socket(fileno=os.dup(fd)) as sock:
            creds = sock.getsockopt(socket.SOL_SOCKET, option, struct.calcsize("3i"))
    except OSError:
        return None
    _pid, uid, _gid = struct.unpack("3i", creds)
    return uid


def is_same_user(fd: int) -> bool:
    """True when the peer is this user, or when the platform cannot tell (no SO_PEERCRED)."""
    uid = peer_uid(fd)
    return uid is None or uid == os.getuid()


def send_request(message: str, path: str | None = None) -> bool:
    """Hand ``message`` (one line) to the running instance (at ``path``, by default this
    user's socket); False when none took it.

    The protocol of ``gibberish.ui.single_instance``: one UTF-8 line, answered by ``ok``.
    Any failure (no socket, a stale one, a refusal, a timeout) is False: the caller then
    starts normally.
    """
    line = (message.replace("\n", " ") + "\n").encode("utf-8")
    return exchange(line, wait=REPLY_TIMEOUT, limit=64, path=path) == b"ok"


def exchange(line: bytes, *, wait: float, limit: int, path: str | None = None) -> bytes | None:
    """Send ``line`` to the running instance and return the first line it answers
    (stripped), or None: no instance, another user's server on our name (told nothing),
    no answer within ``wait`` seconds, an answer over ``limit`` bytes, or any socket error.
    """
    if os.name == "nt" or not hasattr(socket, "AF_UNIX"):
        return None  # a named pipe there: the Qt client does it
    try:
        path = path or socket_path()
        if not os.path.exists(path):
            return None
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(CONNECT_TIMEOUT)
            sock.connect(path)
            if not is_same_user(sock.fileno()):
                return None
            sock.sendall(line)
            return _read_line(sock, wait=wait, limit=limit)
    except OSError:
        return None


def _read_line(sock: socket.socket, *, wait: float, limit: int) -> bytes | None:
    """The first line the peer sends within ``wait`` seconds (stripped), or None if it
    closes, says too much or takes too long."""
    deadline = time.monotonic() + wait
    reply = b""
    while b"\n" not in reply:
        left = deadline - time.monotonic()
        if left <= 0 or len(reply) > limit:
            return None
        sock.settimeout(left)
        chunk = sock.recv(4096)
        if not chunk:
            return None
        reply += chunk
    return reply.split(b"\n", 1)[0].strip()
