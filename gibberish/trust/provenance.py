"""Where an imported skill came from: ``.gibberish-source.json`` in its folder.

Importers (git, zip, URL, folder) write this file when they copy a skill in; its mere
presence makes the skill ``untrusted`` (docs/adr/0010-trust-table.md), so every run asks with a warning
banner. The file is excluded from the fingerprint (it records the fingerprint at import
time, so it cannot be part of it). Format::

    {"source": "<url or path>", "kind": "git|zip|url|folder",
     "imported_at": "<ISO 8601>", "fingerprint": "<digest at import>"}

A file that exists but cannot be parsed still marks the skill untrusted: deleting or
breaking it must not be a way to gain trust. ``kind`` values other than the four are
kept as written (a newer importer may add one).
"""

from __future__ import annotations

import json
from pathlib import Path

from msgspec import Struct
from msgspec.structs import asdict

from gibberish.fileio import atomic_write_bytes
from gibberish.redaction import without_credentials

PROVENANCE_FILE = ".gibberish-source.json"
"""Written by importers into a skill folder; its presence marks the skill untrusted.

Defined here, not in ``fingerprint`` (which skips it), so that reading a provenance (the
tray's menu does, at start-up) does not import the fingerprinting code."""

KINDS = ("git", "zip", "url", "folder")


class Provenance(Struct, frozen=True):
    source: str
    kind: str
    imported_at: str
    fingerprint: str


def is_imported(skill_dir: Path) -> bool:
    """True when the folder carries a provenance file (then the skill is untrusted)."""
    return (Path(skill_dir) / PROVENANCE_FILE).exists()


def read_provenance(skill_dir: Path) -> Provenance | None:
    """The recorded provenance; None when there is no file *or* it cannot be parsed."""
    try:
        data = json.loads((Path(skill_dir) / PROVENANCE_FILE).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    fields = ("source", "kind", "imported_at", "fingerprint")
    if not all(isinstance(data.get(f), str) for f in fields):
        return None
    values = {f: data[f] for f in fields}
    values["source"] = without_credentials(values["source"])  # a record from before 0030
    return Provenance(**values)


def write_provenance(skill_dir: Path, source: str, kind: str, digest: str) -> Provenance:
    """Record where the skill in ``skill_dir`` came from (call after copying it in).

    ``digest`` is the folder's fingerprint (``trust.fingerprint.fingerprint(skill_dir)``),
    computed by the caller: the fingerprint skips this file, so this module stays below it.
    """
    from datetime import UTC, datetime

    if kind not in KINDS:
        raise ValueError(f"Unknown import kind {kind!r}; use one of {', '.join(KINDS)}.")
    record = Provenance(
        source=without_credentials(source),
        kind=kind,
        imported_at=datetime.now(UTC).isoformat(timespec="seconds"),
        fingerprint=digest,
    )
    text = json.dumps(asdict(record), indent=2, ensure_ascii=False) + "\n"
    atomic_write_bytes(Path(skill_dir) / PROVENANCE_FILE, text.encode("utf-8"), mode=0o644)
    return record
