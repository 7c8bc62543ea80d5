"""What the library keeps per skill folder, and where it reads skills from.

Shared by the library and its parse cache (``cache.py``), which stores these entries
between runs; kept apart so that neither module has to import the other.
"""

from __future__ import annotations

import os
from pathlib import Path

from msgspec import Struct
from msgspec.structs import force_setattr

from gibberish.skills.model import SkillDefinition, Trust

Sig = tuple[int, int, int, int] | None


class SkillSource(Struct, frozen=True, dict=True):
    """A folder of skill folders and the trust its skills get.

    The folder is made absolute (``~`` expanded) here, where every source enters, so a
    relative ``--skills-dir`` means the same folder for the loader, the fingerprints and the
    runner, whatever the working folder of each.
    """

    path: Path
    trust: Trust

    def __post_init__(self) -> None:
        force_setattr(self, "path", Path(os.path.abspath(Path(self.path).expanduser())))


class Tree(Struct, frozen=True):
    """What a walk of one skill folder found."""

    subdirs: tuple[str, ...]
    """Absolute paths of every real sub-folder (their stat is part of the signature)."""
    escapes: tuple[tuple[str, str], ...]
    provenance: bool
    too_many: bool


class CachedEntry(Struct):
    """A parsed winning skill folder and the stat signature it was parsed at."""

    folder: str
    trust: Trust
    signature: tuple[Sig, Sig]
    tree: Tree
    subdir_sigs: tuple[Sig, ...]
    digest: bytes | None
    """Hash of the SKILL.md bytes that were parsed (None when unreadable)."""
    skill: SkillDefinition
    racy: bool


def is_racy(
    now: int, signature: tuple[Sig, Sig], subdir_sigs: tuple[Sig, ...], window: int
) -> bool:
    """Whether any file of the entry changed within ``window`` nanoseconds of ``now``."""
    newest = max((max(s[2], s[3]) for s in (*signature, *subdir_sigs) if s is not None), default=0)
    return now - newest < window
