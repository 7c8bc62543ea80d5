"""Turning a skill in a skills folder off and on again (``gibberish disable/enable``).

The list lives in the skills folder (:mod:`gibberish.skills.disabled`), so the library,
and everything that reads skills through it (menu, model feed, MCP, sync), agrees. An
installed skill stays in the install state and in a project's lock (``enabled = false``
there), so a restore from the lock restores it turned off.
"""

from __future__ import annotations

from gibberish.install.discover import InstallError
from gibberish.install.transaction import Installer
from gibberish.pathsafety import is_path_component
from gibberish.skills.disabled import disabled_names, write_disabled

__all__ = ["disabled_names", "set_enabled"]


def set_enabled(installer: Installer, name: str, enabled: bool) -> bool:
    """Turn ``name`` on or off in the installer's skills folder; False when it already was.

    A skill whose folder is there can be turned off (one of your own or one gibberish
    installed), and in the person's own folder also a skill bundled with gibberish: the
    bundled folder is not theirs to write, so their list names it (the library leaves a
    bundled skill out when the person's list names it).
    """
    folder = installer.target.skills_dir
    if not is_path_component(name) or name.startswith("."):
        raise InstallError(f"“{name}” is not a skill name.")
    bundled = name in installer.bundled and installer.target.project is None
    with installer.exclusive():
        off = set(disabled_names(folder))
        there = (folder / name / "SKILL.md").is_file()
        if enabled:
            if name not in off:
                if not there and not bundled:
                    raise InstallError(f"There is no skill “{name}” in {folder}.")
                return False
            off.discard(name)
        else:
            if name in off:
                return False
            if not there and not bundled:
                raise InstallError(_not_here(installer, name))
            off.add(name)
        write_disabled(folder, off)
    return True


def _not_here(installer: Installer, name: str) -> str:
    folder = installer.target.skills_dir
    if name in installer.bundled:
        return (
            f"“{name}” is bundled with gibberish, not in {folder}: turn it off among your "
            "own skills (without --project); it is then off in every project too."
        )
    return (
        f"“{name}” is not in {folder}, so it cannot be turned off here; "
        "`gibberish skills list` shows where each skill comes from."
    )
