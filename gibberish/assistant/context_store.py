"""Pinned context blocks, remembered across sessions in ``<data folder>/context.json``.

The file is ``{"pinned": ["name", ...]}``, written atomically (a reader sees the old or
the new list, never half of one). A file that cannot be read counts as no pins and
``problem`` says why; the next ``pin``/``unpin`` replaces it.
"""

from __future__ import annotations

import json
from pathlib import Path

from gibberish import paths
from gibberish.fileio import atomic_write_bytes

FILE_NAME = "context.json"


class PinStore:
    def __init__(self, path: Path | None = None) -> None:
        self.path = path or paths.data_dir() / FILE_NAME
        self.problem: str | None = None

    def names(self) -> list[str]:
        """The pinned block names, in the order they were pinned."""
        self.problem = None
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return []
        except (OSError, ValueError) as exc:
            self.problem = f"{self.path} cannot be read ({exc}); no context is pinned."
            return []
        pinned = data.get("pinned") if isinstance(data, dict) else None
        if not isinstance(pinned, list) or not all(isinstance(n, str) for n in pinned):
            self.problem = f"{self.path}: 'pinned' is not a list of names; no context is pinned."
            return []
        return list(dict.fromkeys(pinned))

    def _save(self, names: list[str]) -> None:
        text = json.dumps({"pinned": names}, indent=2, ensure_ascii=False) + "\n"
        atomic_write_bytes(self.path, text.encode("utf-8"))

    def pin(self, name: str) -> bool:
        """Pin ``name``; False when it already was."""
        names = self.names()
        if name in names:
            return False
        self._save([*names, name])
        return True

    def unpin(self, name: str) -> bool:
        """Unpin ``name``; False when it was not pinned."""
        names = self.names()
        if name not in names:
            return False
        self._save([n for n in names if n != name])
        return True
