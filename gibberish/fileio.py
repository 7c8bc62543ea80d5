"""Atomic file writes, shared by the approval store, the key file, the secret index,
the settings file and the autostart entry.

Everything here exists for one reason: a file gibberish relies on must never be seen
half-written, even if the process is killed in the middle of saving it. So a write goes
to a temporary file in the same folder (same filesystem, so the rename is atomic), is
fsynced, and then replaces the target with ``os.replace``; the folder is fsynced too so
the rename itself survives a power cut.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

TEMP_SUFFIX = ".tmp"


def temp_prefix(path: Path) -> str:
    """Prefix of the temporary files used while writing ``path`` (hidden, recognisable)."""
    return f".{path.name}."


def atomic_write_bytes(path: Path, data: bytes, *, mode: int = 0o600) -> None:
    """Replace ``path`` with ``data`` so that readers see the old or the new file, never a mix."""
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    fd, tmp_name = tempfile.mkstemp(dir=path.parent, prefix=temp_prefix(path), suffix=TEMP_SUFFIX)
    try:
        with os.fdopen(fd, "wb") as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp_name)
        raise
    fsync_dir(path.parent)


def fsync_dir(folder: Path) -> None:
    """Make a rename in ``folder`` durable (best effort: not every filesystem allows it)."""
    try:
        fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def remove_stale_temps(path: Path) -> None:
    """Delete temporary files left by a writer that was killed before its rename.

    Only call this while holding the lock that guards ``path``: then no live writer can
    own one of these files.
    """
    try:
        entries = list(path.parent.iterdir())
    except OSError:
        return
    prefix = temp_prefix(path)
    for entry in entries:
        if entry.name.startswith(prefix) and entry.name.endswith(TEMP_SUFFIX):
            with contextlib.suppress(OSError):
                entry.unlink()
