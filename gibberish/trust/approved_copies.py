"""A copy of each skill as it was when the person trusted it, to show what changed since.

The approval store keeps fingerprints (hashes), which say *that* a file changed but not
*how*. Whenever a skill is approved — "Trust this version" in the tray, ``gibberish
approvals approve`` or ``run --yes --always`` on the command line: every path goes through
the Engine's trust facade — the text files the fingerprint covers are copied into
``$XDG_DATA_HOME/gibberish/approved-copies/`` (one JSON file per skill folder, replaced
at every new approval); revoking or resetting approvals deletes them. When the skill
later asks again, the approval dialog diffs the files on disk against that copy.

Bounded: text files (UTF-8) of at most ``MAX_FILE`` bytes each and ``MAX_TOTAL`` bytes in
all are kept; a bigger or binary file is listed by name only. An unreadable or broken
copy counts as none: the dialog then lists the changed files without their diffs.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
from collections.abc import Iterable, Mapping
from pathlib import Path

from gibberish import paths
from gibberish.fileio import atomic_write_bytes

MAX_FILE = 128 * 1024
MAX_TOTAL = 1024 * 1024
MAX_DIFF_LINES = 400


def _folder() -> Path:
    return paths.data_dir() / "approved-copies"


def _store(directory: Path) -> Path:
    key = hashlib.sha256(str(directory.resolve()).encode("utf-8")).hexdigest()[:24]
    return _folder() / f"{key}.json"


def forget(directory: Path) -> bool:
    """Delete the kept copy of ``directory`` (its approval was revoked); False if none."""
    try:
        _store(directory).unlink()
    except OSError:
        return False
    return True


def forget_all() -> None:
    """Delete every kept copy (the approvals were reset); only the files this module wrote."""
    with contextlib.suppress(OSError):
        for path in _folder().glob("*.json"):
            with contextlib.suppress(OSError):
                path.unlink()


def read_text(path: Path, limit: int = MAX_FILE) -> str | None:
    """The file's text, or None when it is not a regular UTF-8 file under ``limit``."""
    try:
        if not path.is_file() or path.is_symlink() or path.stat().st_size > limit:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def keep(directory: Path, files: Iterable[str]) -> None:
    """Copy the text files ``files`` (relative paths) of ``directory`` as the approved version."""
    kept: dict[str, str] = {}
    total = 0
    for rel in sorted(files):
        text = read_text(directory / rel)
        if text is None or total + len(text) > MAX_TOTAL:
            continue
        kept[rel] = text
        total += len(text)
    data = json.dumps({"directory": str(directory), "files": kept}, ensure_ascii=False)
    with contextlib.suppress(OSError):  # without a copy the dialog shows names only
        atomic_write_bytes(_store(directory), data.encode("utf-8"))


def approved(directory: Path) -> Mapping[str, str] | None:
    """The kept copy of ``directory``'s files, or None when there is none."""
    try:
        data = json.loads(_store(directory).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    files = data.get("files") if isinstance(data, dict) else None
    return {str(k): str(v) for k, v in files.items()} if isinstance(files, dict) else None


def diff(directory: Path, changed: Iterable[str], copy: Mapping[str, str]) -> str:
    """A unified diff of ``changed`` files between the approved copy and the disk."""
    out: list[str] = []
    for rel in changed:
        before = copy.get(rel)
        after = read_text(directory / rel)
        if before is None and after is None:
            out.append(f"{rel}: not shown (binary, too big, or gone)")
            continue
        out.extend(
            difflib.unified_diff(
                (before or "").splitlines(),
                (after or "").splitlines(),
                fromfile=f"approved/{rel}" if before is not None else "/dev/null",
                tofile=f"now/{rel}" if after is not None else "/dev/null",
                lineterm="",
            )
        )
    if len(out) > MAX_DIFF_LINES:
        out = [*out[:MAX_DIFF_LINES], f"… {len(out) - MAX_DIFF_LINES} more lines"]
    return "\n".join(out)
