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

    Only a skill whose folder is there can be turned off (one of your own or one
    gibberish installed); a bundled skill is hidden by a skill of the same name instead.
    """
    folder = installer.target.skills_dir
    if not is_path_component(name) or name.startswith("."):
        raise InstallError(f"“{name}” is not a skill name.")
    with installer.exclusive():
        off = set(disabled_names(folder))
        if enabled:
            if name not in off:
                if not (folder / name / "SKILL.md").is_file():
                    raise InstallError(f"There is no skill “{name}” in {folder}.")
                return False
            off.discard(name)
        else:
            if name in off:
                return False
            if not (folder / name / "SKILL.md").is_file():
                where = "bundled with gibberish" if name in installer.bundled else "not there"
                raise InstallError(
                    f"“{name}” is {where}, not in {folder}, so it cannot be turned off here; "
                    "`gibberish skills list` shows where each skill comes from."
                )
            off.add(name)
        write_disabled(folder, off)
    return True
