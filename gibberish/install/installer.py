"""The installer for the user's skills folder or a project's, set up from the Engine.

A function of the install feature rather than a method of the Engine, which
sits below it: the Engine says which skills exist, this decides where they go.
:func:`user_installer` sets one up without the Engine, from the library's sources,
for a command that installs into the user's folder and needs no loaded library.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from gibberish import paths
from gibberish.install.available import NamesInSources
from gibberish.install.transaction import Installer, InstallTarget
from gibberish.skills.library import SkillSource

if TYPE_CHECKING:  # the Engine is built by the caller; importing it costs a tenth of a second
    from gibberish.engine.core import Engine


def installer_for(engine: Engine, project: Path | None = None) -> Installer:
    """The installer for the user's skills folder, or for ``project``'s."""
    target = InstallTarget.for_project(project) if project else InstallTarget.user()
    available = {s.name for s in engine.library.skills()}
    return Installer(target, available=available, bundled=_bundled(), base=Path.cwd())


def user_installer(sources: Sequence[SkillSource]) -> Installer:
    """The installer for the user's skills folder, given the sources the Engine's library
    would read (``SkillLibrary.default_sources`` with the same folders): each name the
    install brings is looked up in them, instead of every skill being read."""
    available = NamesInSources(sources)
    return Installer(InstallTarget.user(), available=available, bundled=_bundled(), base=Path.cwd())


def _bundled() -> set[str]:
    bundled_dir = paths.bundled_skills_dir()
    return {p.name for p in bundled_dir.iterdir()} if bundled_dir.is_dir() else set()
