"""Skills turned off without being deleted: ``.gibberish-disabled.json`` in a skills folder.

A disabled skill keeps its folder, its install record and its approvals; the library
just does not list it, so it is gone from the menu, the model feed, MCP and every sync
(which then removes the copies it owns). The file sits in the skills folder itself (the
user's or a project's), so whatever reads that folder sees the same list; its name
starts with a dot, so it is never taken for a skill::

    {"format": 1, "disabled": ["pdf", "csv"]}

An unreadable or malformed file disables nothing: a damaged file must not hide skills
silently, and ``gibberish disable`` rewrites it whole.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from pathlib import Path

from gibberish.fileio import atomic_write_bytes

DISABLED_FILE = ".gibberish-disabled.json"
FORMAT = 1


def disabled_names(skills_dir: Path | str) -> frozenset[str]:
    """The names turned off in ``skills_dir`` (empty when there is no readable list)."""
    try:
        with open(os.path.join(skills_dir, DISABLED_FILE), "rb") as handle:
            data = json.loads(handle.read(1 << 20))
    except (OSError, ValueError):
        return frozenset()
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return frozenset()
    names = data.get("disabled")
    if not isinstance(names, list):
        return frozenset()
    return frozenset(n for n in names if isinstance(n, str))


def write_disabled(skills_dir: Path, names: Iterable[str]) -> None:
    """Replace the list of ``skills_dir`` with ``names`` (the file goes when it is empty)."""
    wanted = sorted(set(names))
    target = skills_dir / DISABLED_FILE
    if not wanted:
        target.unlink(missing_ok=True)
        return
    text = json.dumps({"format": FORMAT, "disabled": wanted}, indent=2) + "\n"
    atomic_write_bytes(target, text.encode("utf-8"), mode=0o644)
