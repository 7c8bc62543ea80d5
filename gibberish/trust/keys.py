"""The key that signs the approvals file, kept by ``keyring`` (or a 0600 file when it cannot).

The approvals file says which skills may run without a first-run prompt, so anything that
can write to the data folder could otherwise approve itself. Signing it with an HMAC
whose key lives somewhere else — the desktop's secret store — means an edited file is
detected and ignored. The key is 32 random bytes, stored as hex under keyring service
``gibberish``, user ``approvals-hmac``, and created on first use.

Where only an insecure keyring exists (``keyring.backends.fail``/``null``, keyrings.alt's
plaintext or password-prompting file backends — anything with ``priority < 1``), the key
is kept in ``approvals.key`` (mode 0600) in the data folder instead, and the user is told
once. That file is no more secret than the approvals file next to it, but it still catches
accidental edits and copies from another machine, and it is honest about it. The
password-prompting backends are avoided on purpose: a tray app cannot answer a prompt
on stdin.

A *secure* keyring that fails (locked, D-Bus down) is not replaced by the file: the key
in it signed the existing approvals, so a new key would discard them. ``key()`` raises
``KeyUnavailableError`` instead, and the store treats every skill as not approved until
the keyring answers again.

A secure keyring that has no key yet never takes one from ``approvals.key``: anything that
can write the data folder could have planted that file, with approvals signed by it. A
fresh key is made in the keyring, the file is kept aside as
``approvals.key.unused-<UTC time>``, and the user is told their approvals were reset.

Next to the key lives the approvals *generation*: a counter the store raises on every
write and signs into the file, so an older signed copy put back (which would bring back a
revoked approval) is recognised. It is kept under keyring user ``approvals-generation``,
or in ``approvals.generation`` next to the key file in fallback mode. The store reads and
writes it only while holding its file lock.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from filelock import FileLock

from gibberish import paths
from gibberish.fileio import atomic_write_bytes, fsync_dir
from gibberish.trust._notices import Notices

if TYPE_CHECKING:  # keyring (some 70 modules) is imported when the key is first needed
    import keyring.backend

SERVICE = "gibberish"
USERNAME = "approvals-hmac"
GENERATION_USERNAME = "approvals-generation"
KEY_FILE_NAME = "approvals.key"
GENERATION_FILE_NAME = "approvals.generation"
KEY_BYTES = 32
_MAX_GENERATION_CHARS = 32

_INSECURE_BACKENDS = (
    "keyring.backends.fail.Keyring",
    "keyring.backends.null.Keyring",
    "keyrings.alt.file.PlaintextKeyring",
    "keyrings.alt.file.EncryptedKeyring",
)


def _default_keyring() -> keyring.backend.KeyringBackend:
    import keyring

    return keyring.get_keyring()


class KeyUnavailableError(Exception):
    """The signing key cannot be read or created right now (the message says why)."""


def keyring_is_secure(backend: keyring.backend.KeyringBackend) -> bool:
    """True when ``backend`` keeps secrets somewhere better than a plain file we could use."""
    for cls in type(backend).__mro__:
        if f"{cls.__module__}.{cls.__qualname__}" in _INSECURE_BACKENDS:
            return False
    inner = getattr(backend, "backends", None)
    if isinstance(inner, list | tuple):  # the chainer: judged by what it writes to first
        return bool(inner) and keyring_is_secure(inner[0])
    try:
        return float(backend.priority) >= 1
    except Exception:  # priority may raise for a backend that is not viable
        return False


class KeyProvider:
    """Gives the approvals store its HMAC key; see the module docstring for where it lives.

    ``backend`` defaults to ``keyring.get_keyring()`` and ``key_file`` to
    ``paths.data_dir()/"approvals.key"``; both are injectable for tests and for callers
    that keep their data elsewhere.
    """

    def __init__(
        self,
        *,
        key_file: Path | None = None,
        backend: keyring.backend.KeyringBackend | None = None,
    ) -> None:
        self._key_file = key_file
        self._backend = backend
        self._key: bytes | None = None
        self._storage: str | None = None
        self._active: keyring.backend.KeyringBackend | None = None
        self._lock = threading.Lock()
        self._notices = Notices()

    @property
    def key_file(self) -> Path:
        return self._key_file or paths.data_dir() / KEY_FILE_NAME

    @property
    def generation_file(self) -> Path:
        """Where the generation counter is kept when the key is in the fallback file."""
        return self.key_file.with_name(GENERATION_FILE_NAME)

    @property
    def storage(self) -> str | None:
        """``"keyring"`` or ``"file"`` once the key was loaded, else None."""
        return self._storage

    def notices(self) -> list[str]:
        return self._notices.drain()

    def key(self) -> bytes:
        """The 32-byte key, created on first use; cached for the life of this provider."""
        with self._lock:
            if self._key is None:
                backend = self._backend if self._backend is not None else _default_keyring()
                if keyring_is_secure(backend):
                    self._key = self._from_keyring(backend)
                    self._storage = "keyring"
                    self._active = backend
                else:
                    self._key = self._from_file()
                    self._storage = "file"
            return self._key

    # -- generation counter -----------------------------------------------------------

    def generation(self) -> int | None:
        """The generation of the last approvals file written, or None if none was recorded.

        Kept beside the key (same keyring, or a file next to the key file). Read fresh on
        every call, because other processes raise it; call it with the store's lock held.
        Raises ``KeyUnavailableError`` when it cannot be read.
        """
        self.key()
        if self._active is not None:
            try:
                stored = self._active.get_password(SERVICE, GENERATION_USERNAME)
            except Exception as exc:
                raise KeyUnavailableError(
                    f"the system keyring did not answer ({type(exc).__name__}: {exc})"
                ) from None
            return _parse_generation(stored)
        path = self.generation_file
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise KeyUnavailableError(
                f"the file {path} could not be read ({exc.strerror or exc})"
            ) from None
        with os.fdopen(fd, "rb") as handle:
            data = handle.read(_MAX_GENERATION_CHARS + 1)
        return _parse_generation(data.decode("ascii", "replace"))

    def set_generation(self, value: int) -> None:
        """Record ``value`` as the generation of the approvals file just written.

        Call it with the store's lock held. Raises ``KeyUnavailableError`` on failure.
        """
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise ValueError(f"not a generation: {value!r}")
        self.key()
        if self._active is not None:
            try:
                self._active.set_password(SERVICE, GENERATION_USERNAME, str(value))
            except Exception as exc:
                raise KeyUnavailableError(
                    f"the system keyring did not answer ({type(exc).__name__}: {exc})"
                ) from None
            return
        try:
            atomic_write_bytes(self.generation_file, f"{value}\n".encode("ascii"))
        except OSError as exc:
            raise KeyUnavailableError(
                f"the file {self.generation_file} could not be written ({exc.strerror or exc})"
            ) from None

    # -- keyring ---------------------------------------------------------------------

    def _from_keyring(self, backend: keyring.backend.KeyringBackend) -> bytes:
        lock_path = self.key_file.with_name(self.key_file.name + ".lock")
        lock_path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        try:
            with FileLock(str(lock_path), timeout=10):
                stored = backend.get_password(SERVICE, USERNAME)
                key = _decode(stored)
                if key is not None:
                    return key
                if stored is not None:
                    self._notices.add(
                        "The key that signs your approvals was unreadable in the keyring, so a "
                        "new one was made; skills you approved before will ask again."
                    )
                # Never take the key from approvals.key here: whoever can write the data
                # folder could have planted it, together with approvals signed by it.
                key = secrets.token_bytes(KEY_BYTES)
                backend.set_password(SERVICE, USERNAME, key.hex())
                if _decode(backend.get_password(SERVICE, USERNAME)) != key:
                    raise KeyUnavailableError("the keyring did not keep the approvals key")
                self._set_aside_key_file()
                return key
        except KeyUnavailableError:
            raise
        except Exception as exc:
            raise KeyUnavailableError(
                f"the system keyring did not answer ({type(exc).__name__}: {exc})"
            ) from None

    def _set_aside_key_file(self) -> None:
        """Move an old ``approvals.key`` out of the way (unread), and say what that means."""
        path = self.key_file
        if not os.path.lexists(path):
            return
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%SZ")
        target = path.with_name(f"{path.name}.unused-{stamp}")
        n = 1
        while os.path.lexists(target):
            n += 1
            target = path.with_name(f"{path.name}.unused-{stamp}-{n}")
        try:
            os.replace(path, target)
            kept = f"The old key file was kept, unused, as {target}"
        except OSError as exc:
            kept = f"The old key file {path} is no longer used ({exc.strerror or exc})"
        self._notices.add(
            "Your approvals were reset because the key that signs them moved to the system "
            f"keyring; approve your skills again. ({kept}.)"
        )

    # -- file fallback ------------------------------------------------------------------

    def _from_file(self) -> bytes:
        path = self.key_file
        self._notices.add(
            "No secure keyring is available, so the key that signs your approvals is kept "
            f"in {path} (mode 0600, readable only by you)."
        )
        try:
            path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            key = self._read_key_file(path)
            if key is not None:
                return key
            key = secrets.token_bytes(KEY_BYTES)
            if _publish(path, key.hex().encode("ascii")):
                return key
            # Another process published its key first: use that one.
            key = self._read_key_file(path)
            if key is None:
                raise KeyUnavailableError(f"the key file {path} is not a valid key")
            return key
        except OSError as exc:
            raise KeyUnavailableError(
                f"the key file {path} could not be used ({exc.strerror or exc})"
            ) from None

    def _read_key_file(self, path: Path) -> bytes | None:
        try:
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
        except FileNotFoundError:
            return None
        with os.fdopen(fd, "rb") as handle:
            st = os.fstat(handle.fileno())
            if st.st_mode & (stat.S_IRWXG | stat.S_IRWXO):
                os.fchmod(handle.fileno(), 0o600)
                self._notices.add(
                    f"The approvals key file {path} was readable by others; "
                    "it is now readable only by you."
                )
            data = handle.read(4 * KEY_BYTES)
        key = _decode(data.decode("ascii", "replace"))
        if key is None:
            # Only a file made by hand can be malformed (ours appear complete or not at
            # all), so replacing it loses nothing that was valid.
            self._notices.add(
                f"The approvals key file {path} was damaged, so a new key was made; "
                "skills you approved before will ask again."
            )
            key = secrets.token_bytes(KEY_BYTES)
            atomic_write_bytes(path, key.hex().encode("ascii"))
        return key


def _publish(path: Path, data: bytes) -> bool:
    """Create ``path`` with ``data`` atomically, only if it does not exist yet.

    Written to a temporary file and hard-linked into place, so a reader never sees a
    half-written key even if this process is killed. False when another file won.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        except OSError:
            # A filesystem without hard links: exclusive create is the next best thing.
            try:
                out = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                return False
            with os.fdopen(out, "wb") as handle:
                handle.write(data)
                handle.flush()
                os.fsync(handle.fileno())
        fsync_dir(path.parent)
        return True
    finally:
        with contextlib.suppress(OSError):
            os.unlink(tmp)


def _parse_generation(value: str | None) -> int | None:
    """A stored counter, or None when there is none (or it is not a plain number)."""
    if value is None:
        return None
    text = value.strip()
    if not text.isascii() or not text.isdigit() or len(text) > _MAX_GENERATION_CHARS:
        return None
    return int(text)


def _decode(value: str | None) -> bytes | None:
    if not value:
        return None
    try:
        key = bytes.fromhex(value.strip())
    except ValueError:
        return None
    return key if len(key) == KEY_BYTES else None
