"""The installer for the user's skills folder or a project's, set up from the Engine.

A function of the install feature rather than a method of the Engine, which
sits below it: the Engine says which skills exist, this decides where they go.
"""

from __future__ import annotations

from pathlib import Path

from gibberish import paths
from gibberish.engine.core import Engine
from gibberish.install.transaction import Installer, InstallTarget


def installer_for(engine: Engine, project: Path | None = None) -> Installer:
    """The installer for the user's skills folder, or for ``project``'s."""
    target = InstallTarget.for_project(project) if project else InstallTarget.user()
    bundled_dir = paths.bundled_skills_dir()
    bundled = {p.name for p in bundled_dir.iterdir()} if bundled_dir.is_dir() else set()
    available = {s.name for s in engine.library.skills()}
    return Installer(target, available=available, bundled=bundled, base=Path.cwd())
