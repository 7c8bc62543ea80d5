"""What gibberish wrote into another agent's folder or configuration file.

The rule every exporter follows: gibberish changes or deletes only what this record says
it wrote, and only while the thing on disk still has the SHA-256 recorded here. A file a
person edited since, or one gibberish never wrote, is left alone and reported.

Records live in the state folder (``~/.local/state/gibberish/sync/``), one JSON file per
destination, named by a digest of the destination's absolute path, so a project folder
and the home folder never share one and the agent's own folder holds nothing of ours.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gibberish import paths
from gibberish.fileio import atomic_write_bytes

FORMAT_VERSION = 1


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_value(value: Any) -> str:
    """Digest of a JSON-like value, independent of key order and formatting."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return sha256_bytes(canonical.encode("utf-8"))


def record_path(kind: str, destination: Path) -> Path:
    digest = hashlib.sha256(str(destination).encode("utf-8")).hexdigest()[:20]
    return paths.state_dir() / "sync" / f"{kind}-{digest}.json"


class OwnershipRecord(Struct):
    """Files (relative path → SHA-256), folders created, links made, or config entries."""

    destination: Path
    kind: str
    files: dict[str, str] = field(default_factory=dict)
    dirs: set[str] = field(default_factory=set)
    links: dict[str, str] = field(default_factory=dict)
    backup: str | None = None
    problem: str | None = None
    """Set when the stored record could not be read (then it is treated as empty and
    nothing is removed, because nothing can be proven ours)."""

    @classmethod
    def load(cls, kind: str, destination: Path) -> OwnershipRecord:
        path = record_path(kind, destination)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return cls(destination, kind)
        except (OSError, ValueError) as exc:
            return cls(destination, kind, problem=f"{path}: {exc}")
        if not isinstance(data, dict) or data.get("destination") != str(destination):
            return cls(destination, kind, problem=f"{path}: not a record for {destination}")
        return cls(
            destination,
            kind,
            files={str(k): str(v) for k, v in (data.get("files") or {}).items()},
            dirs={str(d) for d in data.get("dirs") or ()},
            links={str(k): str(v) for k, v in (data.get("links") or {}).items()},
            backup=data.get("backup"),
        )

    def save(self) -> None:
        data = {
            "version": FORMAT_VERSION,
            "destination": str(self.destination),
            "files": dict(sorted(self.files.items())),
            "dirs": sorted(self.dirs),
            "links": dict(sorted(self.links.items())),
            "backup": self.backup,
        }
        text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
        atomic_write_bytes(record_path(self.kind, self.destination), text.encode("utf-8"))
