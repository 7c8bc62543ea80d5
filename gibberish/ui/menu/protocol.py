"""What the menu reads of a skill, a library and the mode: one typed protocol for both
sources of a menu.

The tray menu and the launcher window are built twice at a start: first from the menu
cache (``cache.CachedSkill`` and friends) while the Engine loads, then from the Engine's
library (``SkillDefinition``). Whatever the builders (``model``, ``source``, ``cache``)
read of a skill must exist on both, so they read these protocols and nothing else, and
mypy checks each source against them (docs/adr/0066-menu-protocol.md). Read-only
properties: a frozen record field and a plain attribute both satisfy one. Qt-free and
without the skills model at run time: the cached menu is drawn before either is loaded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from pathlib import Path

    from gibberish.skills.model import Diagnostic

GLOBAL = "Global"
"""The mode whose skills are offered in every mode (``Mode.GLOBAL``'s value)."""


class MenuTool(Protocol):
    """A tool's entry: its name and what it does."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...


class MenuSkill(Protocol):
    """A skill's submenu: its tools, trust badge, modes, and the folder an untrusted
    skill's tooltip reads its origin from."""

    @property
    def name(self) -> str: ...

    @property
    def description(self) -> str: ...

    @property
    def trust(self) -> str: ...

    @property
    def modes(self) -> Sequence[str]: ...

    @property
    def tools(self) -> Sequence[MenuTool]: ...

    @property
    def directory(self) -> Path: ...

    @property
    def ok(self) -> bool: ...

    @property
    def errors(self) -> Sequence[Diagnostic]: ...


class MenuLibrary(Protocol):
    """The skills, the broken ones, and those hiding another of the same name."""

    def skills(self) -> Sequence[MenuSkill]: ...

    def problems(self) -> Sequence[MenuSkill]: ...

    def overrides(self) -> Mapping[str, Diagnostic]: ...


class MenuContext(Protocol):
    """The mode the menu is built for, whether it was guessed, and why."""

    @property
    def mode(self) -> str: ...

    @property
    def automatic(self) -> bool: ...

    @property
    def reason(self) -> str: ...


def offered_in(skill: MenuSkill, mode: str) -> bool:
    """Whether the menu offers ``skill`` in ``mode``: it works and has tools, and its modes
    hold Global or ``mode``."""
    return skill.ok and bool(skill.tools) and (GLOBAL in skill.modes or mode in skill.modes)
