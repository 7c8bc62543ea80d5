"""Messages a person needs once, not at every start (no portal here, no tray host here)."""

from __future__ import annotations

import json

from gibberish import paths
from gibberish.fileio import atomic_write_bytes


def first_time(key: str) -> bool:
    """True the first time ``key`` is asked about (and remembered from then on)."""
    path = paths.state_dir() / "told.json"
    try:
        told = set(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        told = set()
    if key in told:
        return False
    told.add(key)
    atomic_write_bytes(path, json.dumps(sorted(told)).encode("utf-8"))
    return True
