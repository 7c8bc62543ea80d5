"""One gibberish per user: a second start hands its request to the running one and exits.

This is how a global hotkey works everywhere, Wayland included: the person binds a
desktop shortcut to ``gibberish``; when the tray already runs, the new process connects
to its local socket, sends ``open-command-bar`` and exits within milliseconds, and the
running instance opens the command bar.

The socket is ``$XDG_RUNTIME_DIR/gibberish.sock`` (a per-user, mode-0700 folder cleaned
at logout) with owner-only permissions; without ``XDG_RUNTIME_DIR`` it goes into a
private, checked 0700 folder (:mod:`gibberish.instance_socket`), never straight into
the shared temp folder where another user could bind the name first (Windows: a named
pipe). Each end checks the other's uid: a request is neither sent to nor taken from
another user.
A crashed instance leaves its socket file behind: when ``listen`` finds the address in
use but nobody answers on it, the file is stale and is removed. The check-then-listen
step runs under a lock (:func:`start_lock`) so two instances started at the same moment
cannot both decide they are first.

A tray start does not pay for Qt's network module before its menu shows: ``claim``
takes the lock and asks in plain Python (``gibberish.instance_socket``) whether an
instance runs; the first instance keeps holding the lock until ``listen_held`` — one
event-loop turn after the menu is shown — has put the server up. A second start in
that moment waits on the lock and then finds the server.

Protocol: one UTF-8 line per request (``open-command-bar``, ``show``, ``listen``,
``ask <text>``), answered by ``ok``. ``gibberish listen`` sends ``listen``, so a desktop
shortcut bound to it is push-to-talk. An ``mcp-approve {json}`` line (from ``gibberish
mcp``, see ``gibberish.mcp.approval``) is not answered at once:
``approval_requested`` carries it with a ``Reply`` that sends the person's answer when the
dialog closes.
"""

from __future__ import annotations

import contextlib
import getpass
import os
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from PySide6.QtCore import QLockFile, QObject, Signal

from gibberish.instance_socket import APPROVAL_PREFIX, is_same_user, send_request, socket_path
from gibberish.logger import logger

if TYPE_CHECKING:
    from PySide6.QtNetwork import QLocalServer, QLocalSocket

log = logger("gibberish.ui")

OPEN_COMMAND_BAR = "open-command-bar"
SHOW = "show"
LISTEN = "listen"
ASK_PREFIX = "ask "
CONNECT_TIMEOUT_MS = 500
MAX_MESSAGE = 64 * 1024
LOCK_WAIT = 3.0
"""Seconds to wait for another starting instance to finish its check (then go on)."""


def server_name() -> str:
    """The socket path in a private folder (Windows: a per-user pipe name)."""
    if os.name == "nt":
        return f"gibberish-{getpass.getuser()}"
    return socket_path()


def send_message(name: str, message: str, timeout_ms: int = CONNECT_TIMEOUT_MS) -> bool:
    """Deliver ``message`` to a running instance; False when none answers."""
    from PySide6.QtNetwork import QLocalSocket

    socket = QLocalSocket()
    socket.connectToServer(name)
    if not socket.waitForConnected(timeout_ms):
        return False
    if not is_same_user(int(socket.socketDescriptor())):
        socket.abort()  # somebody else's server on our name: tell it nothing
        return False
    try:
        socket.write((message.replace("\n", " ") + "\n").encode("utf-8"))
        if not socket.waitForBytesWritten(timeout_ms):
            return False
        reply = b""
        while b"\n" not in reply:
            if not socket.waitForReadyRead(timeout_ms * 4):
                return False
            reply += bytes(socket.readAll().data())
        return reply.strip() == b"ok"
    finally:
        socket.disconnectFromServer()


@contextlib.contextmanager
def start_lock(path: str, wait: float = LOCK_WAIT) -> Iterator[bool]:
    """Held while a starting instance decides whether it is first; yields True when taken.

    An advisory ``flock`` on ``path``: the kernel releases it when its process ends, so a
    crash leaves no stale lock, and taking it writes nothing. (``QLockFile``, used where
    ``flock`` does not exist, syncs its file to disk: tens of milliseconds of every start
    on a busy disk.) A holder that keeps it longer than ``wait`` is not waited for: the
    socket check that follows still finds a running instance.
    """
    if os.name == "nt":
        lock = QLockFile(path)
        lock.setStaleLockTime(10_000)
        locked = lock.tryLock(int(wait * 1000))
        try:
            yield locked
        finally:
            if locked:
                lock.unlock()
        return
    import fcntl

    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    try:
        deadline = time.monotonic() + wait
        locked = False
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if time.monotonic() < deadline:
                    time.sleep(0.01)  # the other start holds it for milliseconds
                    continue
            else:
                locked = True
            break
        yield locked
    finally:
        os.close(fd)  # releases the lock


class Reply:
    """Sends one answer line on the socket a request came from, if it is still open."""

    def __init__(self, socket: QLocalSocket) -> None:
        self._socket: QLocalSocket | None = socket

    def __call__(self, data: bytes) -> bool:
        if self._socket is None:
            return False
        self._socket.write(data)
        self._socket.flush()
        self._socket = None
        return True

    def close(self) -> None:
        self._socket = None


class SingleInstance(QObject):
    """The running instance's side: listens and emits ``message_received`` per request."""

    message_received = Signal(str)
    approval_requested = Signal(str, object)
    """An ``mcp-approve`` line and the ``Reply`` that answers it."""

    def __init__(self, name: str | None = None, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.name = name or server_name()
        self.server: QLocalServer | None = None
        self.removed_stale = False
        self._buffers: dict[QLocalSocket, bytes] = {}
        self._replies: dict[QLocalSocket, list[Reply]] = {}
        self._held_lock: contextlib.ExitStack | None = None

    def forward(self, message: str = OPEN_COMMAND_BAR) -> bool:
        """True when another instance is running and took ``message`` (then exit).

        In plain Python where the socket is a Unix socket (no Qt network module to load
        before the menu shows); through ``QLocalSocket`` elsewhere (a named pipe).
        """
        if os.name != "nt":
            return send_request(message, self.name)
        return send_message(self.name, message)

    def claim(self, message: str = OPEN_COMMAND_BAR) -> bool:
        """Like ``acquire``, but the server is put up later by ``listen_held``.

        True: this process is the instance and holds the start lock until
        ``listen_held`` (or ``close``) — a second start waits for the server instead of
        missing it. False: ``message`` was handed to the running instance.
        """
        stack = contextlib.ExitStack()
        stack.enter_context(start_lock(self.name + ".lock"))
        if self.forward(message):
            stack.close()
            return False
        self._held_lock = stack
        return True

    def listen_held(self) -> bool:
        """Listen (after ``claim``), then let a waiting second start ask."""
        try:
            return self.listen()
        finally:
            self._release_lock()

    def _release_lock(self) -> None:
        if self._held_lock is not None:
            self._held_lock.close()
            self._held_lock = None

    def acquire(self, message: str = OPEN_COMMAND_BAR) -> bool:
        """Become the running instance, or forward ``message`` to it.

        Returns True when this process is now the instance, False when the message was
        handed to an instance that was already running.
        """
        with start_lock(self.name + ".lock"):
            if self.forward(message):
                return False
            self.listen()
            return True

    def listen(self) -> bool:
        """Listen on the socket, replacing a stale one (call only after ``forward`` failed)."""
        from PySide6.QtNetwork import QAbstractSocket, QLocalServer

        self.removed_stale = os.path.exists(self.name)
        server = QLocalServer(self)
        server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)
        if not server.listen(self.name):
            if server.serverError() == QAbstractSocket.SocketError.AddressInUseError or (
                os.path.exists(self.name)
            ):
                # Nobody answered on it (forward() failed): a crashed instance's leftover.
                QLocalServer.removeServer(self.name)
            if not server.listen(self.name):
                server.deleteLater()
                return False
        server.newConnection.connect(self._accept)
        self.server = server
        return True

    def _accept(self) -> None:
        assert self.server is not None
        while self.server.hasPendingConnections():
            socket = self.server.nextPendingConnection()
            if not is_same_user(int(socket.socketDescriptor())):
                socket.abort()  # another user's process: no answer, no request
                socket.deleteLater()
                continue
            self._buffers[socket] = b""
            socket.readyRead.connect(self._ready_read)
            socket.disconnected.connect(self._disconnected)

    # Slots find their socket with ``sender()``: a lambda capturing the socket and
    # connected to its own signal would be released while the socket is destroyed.
    def _ready_read(self) -> None:
        from PySide6.QtNetwork import QLocalSocket

        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._read(socket)

    def _disconnected(self) -> None:
        from PySide6.QtNetwork import QLocalSocket

        socket = self.sender()
        if isinstance(socket, QLocalSocket):
            self._forget(socket)

    def _read(self, socket: QLocalSocket) -> None:
        data = self._buffers.get(socket, b"") + bytes(socket.readAll().data())
        while b"\n" in data:
            line, data = data.split(b"\n", 1)
            text = line.decode("utf-8", errors="replace").strip()
            if text.startswith(APPROVAL_PREFIX):
                reply = Reply(socket)
                self._replies.setdefault(socket, []).append(reply)
                self.approval_requested.emit(text, reply)
                continue
            socket.write(b"ok\n")
            socket.flush()
            if text:
                self.message_received.emit(text)
        if len(data) > MAX_MESSAGE:
            data = b""
            socket.abort()
        self._buffers[socket] = data

    def _forget(self, socket: QLocalSocket) -> None:
        self._buffers.pop(socket, None)
        for reply in self._replies.pop(socket, []):
            reply.close()
        socket.deleteLater()

    def close(self) -> None:
        self._release_lock()
        if self.server is not None:
            self.server.close()
            self.server.deleteLater()
            self.server = None


def dispatch(
    message: str,
    *,
    raise_launcher: Callable[[], bool],
    open_command_bar: Callable[[], None],
    listen: Callable[[], None],
    ask: Callable[[str], None],
) -> None:
    """What a request line from a second ``gibberish`` process does in the tray: raise the
    launcher (or open the command bar where there is none), listen, or ask in words."""
    logger("gibberish.ui").info("request from another gibberish process: %s", message[:200])
    if message == OPEN_COMMAND_BAR or (message == SHOW and not raise_launcher()):
        open_command_bar()
    elif message == LISTEN:
        listen()
    elif message.startswith(ASK_PREFIX):
        ask(message[len(ASK_PREFIX) :])


def hand_over(message: str) -> bool:
    """From a command-line process: give ``message`` to a running tray; False when none runs."""
    from PySide6.QtCore import QCoreApplication

    _app = QCoreApplication.instance() or QCoreApplication([])  # sockets need one
    return send_message(server_name(), message)
