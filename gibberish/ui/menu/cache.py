"""What the menu looked like last time, so the tray can show it before the Engine has loaded.

After every menu built from the real Engine, a small snapshot (skill names, descriptions,
trust, folders, tool names and descriptions, the problem count, the mode) is written to
``paths.cache_dir()/menu.cache`` — only when it changed. It is ``marshal`` data (plain
lists, strings and numbers; rebuilt whenever it cannot be read) because loading it is on
the start-up path and ``marshal`` needs no import. At the next start the menu is
drawn from it at once, and rebuilt from the Engine as soon as that has loaded (a few
hundred milliseconds later). A stale entry is harmless: clicking it goes through the
Engine like any click, which says so when the skill is gone. Qt-free.

The stand-ins hold every field the menu reads (``protocol.MenuSkill`` and the rest), so
mypy checks them against the same protocol as the Engine's skills.
"""

from __future__ import annotations

import marshal
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gibberish import paths
from gibberish.fileio import atomic_write_bytes

if TYPE_CHECKING:
    from collections.abc import Sequence

    from gibberish.app import Engine
    from gibberish.skills.model import Diagnostic
    from gibberish.ui.menu.protocol import MenuContext, MenuSkill

FORMAT = 2
"""Raised whenever a snapshot's fields change: an older file is then read as none."""
FILE_NAME = "menu.cache"


def cache_path() -> Path:
    return paths.cache_dir() / FILE_NAME


class CachedContext:
    """Stands in for ``ModeContext`` (``protocol.MenuContext``; the mode as its value)."""

    __slots__ = ("automatic", "focus", "mode", "reason")

    def __init__(self, mode: str = "Global", automatic: bool = True) -> None:
        self.mode = mode
        self.automatic = automatic
        self.reason = "Loading…"
        self.focus = None


class CachedTool:
    __slots__ = ("description", "name")

    def __init__(self, name: str, description: str = "") -> None:
        self.name = name
        self.description = description


class CachedSkill:
    """A ``SkillDefinition`` as the menu reads it (``protocol.MenuSkill``), kept light: no
    skills model import. Only working skills with tools are cached."""

    __slots__ = ("description", "directory", "modes", "name", "tools", "trust")
    ok = True
    errors: tuple[Diagnostic, ...] = ()

    def __init__(
        self,
        name: str,
        directory: Path,
        description: str = "",
        trust: str = "user",
        modes: tuple[str, ...] = ("Global",),
        tools: tuple[CachedTool, ...] = (),
    ) -> None:
        self.name = name
        self.directory = directory
        self.description = description
        self.trust = trust
        self.modes = modes
        self.tools = tools


class CachedLibrary:
    """Stands in for the Engine's library (``protocol.MenuLibrary``): skills, no problems."""

    def __init__(self, skills: list[CachedSkill] | None = None) -> None:
        self.skill_list = skills or []

    def skills(self) -> list[CachedSkill]:
        return self.skill_list

    def problems(self) -> list[CachedSkill]:
        return []  # shown from the Engine once it has loaded (the details are not cached)

    def overrides(self) -> dict[str, Diagnostic]:
        return {}  # like the problems: from the Engine once it has loaded


def snapshot(engine: Engine, context: MenuContext) -> dict[str, Any]:
    skills = []
    shown: Sequence[MenuSkill] = engine.library.skills()
    for skill in shown:
        if not skill.ok or not skill.tools:
            continue
        skills.append(
            {
                "name": skill.name,
                "directory": str(skill.directory),
                "description": skill.description,
                "trust": str(skill.trust),
                "modes": [str(m) for m in skill.modes],
                "tools": [[t.name, t.description] for t in skill.tools],
            }
        )
    return {
        "format": FORMAT,
        "mode": str(context.mode),
        "automatic": bool(context.automatic),
        "problems": len(engine.library.problems()),
        "skills": skills,
    }


_last_written: dict[Path, tuple[int, int]] = {}
"""What this process last wrote to (or read from) each cache file, as its length and
``hash`` (not the snapshot itself: at 1,000 skills that is 0.6 MiB the tray would keep
for one comparison). Only compared within this process, so the salted built-in hash of
64 bits serves, and it needs no hashing library on the way to the first menu."""


def _digest(blob: bytes) -> tuple[int, int]:
    return (len(blob), hash(blob))


def _encode(data: dict[str, Any]) -> bytes:
    return marshal.dumps((FORMAT, sys.version_info[:2], data))


def save(engine: Engine, context: MenuContext, path: Path | None = None) -> bool:
    """Write the snapshot when it differs from the last one; True when written."""
    path = path or cache_path()
    blob = _encode(snapshot(engine, context))
    if _last_written.get(path) == _digest(blob) and path.is_file():
        return False
    try:
        atomic_write_bytes(path, blob)
    except OSError:
        return False
    _last_written[path] = _digest(blob)
    return True


def load(path: Path | None = None) -> tuple[CachedLibrary, CachedContext] | None:
    """The last snapshot as a stand-in library and context; None when missing or unreadable."""
    path = path or cache_path()
    try:
        blob = path.read_bytes()
        version, python, data = marshal.loads(blob)
        if version != FORMAT or tuple(python) != sys.version_info[:2]:
            return None
        skills = [_skill(entry) for entry in data["skills"]]
        context = CachedContext(str(data["mode"]), bool(data["automatic"]))
    except (OSError, EOFError, ValueError, KeyError, TypeError):
        return None
    _last_written[path] = _digest(blob)
    return CachedLibrary(skills), context


def _skill(entry: dict[str, Any]) -> CachedSkill:
    return CachedSkill(
        name=str(entry["name"]),
        directory=Path(str(entry["directory"])),
        description=str(entry.get("description", "")),
        trust=str(entry.get("trust", "user")),
        modes=tuple(str(m) for m in entry.get("modes", ["Global"])),
        tools=tuple(CachedTool(str(n), str(d)) for n, d in entry["tools"]),
    )
