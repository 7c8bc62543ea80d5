"""One installer at a time per target: an exclusive ``flock`` on ``<state file>.lock``.

The same lock the ``filelock`` package takes on Linux (``flock`` on a file that stays in
place), written out here because importing that package costs an install's process as
much as copying a skill's files does. Locks on the same file from any process exclude
each other; the kernel drops a lock when its process dies, so a killed install never
leaves a target locked.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import time
from collections.abc import Iterator
from pathlib import Path

POLL = 0.05


@contextlib.contextmanager
def exclusive(path: Path, timeout: float) -> Iterator[None]:
    """Hold the lock on ``path`` (created if missing) for the block; after ``timeout``
    seconds of waiting, ``TimeoutError`` says which lock is held."""
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise TimeoutError(
                        f"another install into the same folder holds {path} "
                        f"(waited {timeout:g} s); try again when it is done"
                    ) from None
                time.sleep(POLL)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
