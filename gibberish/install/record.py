"""The provenance file an installed skill carries: ``.gibberish-source.json``.

Its presence makes the skill ``untrusted`` (see docs/trust.md). Besides the four fields
the trust layer reads (source, kind, imported_at, fingerprint), the installer records
``resolved`` (the commit, or ``sha256:`` of the archive or file), ``installed_at``,
``installed_by`` (``user``, ``lock`` or the skill that needed it), ``version`` and
``pinned`` (a source string that fetches exactly this content again), and ``mcp``: the
MCP servers of the plugin the skill came in, which sync offers as the skill's own.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gibberish.fileio import atomic_write_bytes
from gibberish.redaction import without_credentials
from gibberish.trust.fingerprint import PROVENANCE_FILE, fingerprint


def write_record(
    skill_dir: Path,
    *,
    source: str,
    kind: str,
    resolved: str,
    pinned: str,
    version: str,
    installed_at: str,
    installed_by: str,
    durable: bool = True,
    mcp: dict[str, Any] | None = None,
) -> dict[str, Any]:
    record: dict[str, Any] = {
        "source": without_credentials(source),
        "kind": kind,
        "imported_at": installed_at,
        "fingerprint": fingerprint(skill_dir).digest,
        "resolved": resolved,
        "pinned": without_credentials(pinned),
        "version": version,
        "installed_at": installed_at,
        "installed_by": installed_by,
    }
    if mcp:  # a plugin's MCP servers: sync offers them with this skill, with consent
        record["mcp"] = mcp
    text = json.dumps(record, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    if durable:
        atomic_write_bytes(skill_dir / PROVENANCE_FILE, text.encode("utf-8"), mode=0o644)
    else:  # a staged folder nobody sees yet: the installer syncs once before moving it in
        target = skill_dir / PROVENANCE_FILE
        with open(target, "x", encoding="utf-8") as handle:
            handle.write(text)
        target.chmod(0o644)
    return record


def read_record(skill_dir: Path) -> dict[str, Any] | None:
    """The whole provenance record, or None when absent or unreadable."""
    try:
        data = json.loads((skill_dir / PROVENANCE_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
