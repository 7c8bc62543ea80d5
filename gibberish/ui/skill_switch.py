"""*Turn off* and *Turn on* in the tray: the rule of ``gibberish disable/enable``.

Both go through :mod:`gibberish.export.switch`, as the CLI does: the same list of skills
turned off (in the skills folder that holds the skill: the person's own, or the
project's followed now, as ``--project`` would), the same lock, the same removal of the
copies sync made. Turning a skill on copies nothing back by itself: the CLI asks first,
and the tray offers it as after an install (the controller opens that offer when there
are agents to copy to). Qt-free: the controller reloads and shows the notice.

A skill bundled with gibberish is turned off in the person's own list (the bundled
folder is not theirs to write; the library leaves out a bundled skill that list names).
A skill from a folder named in the settings is not turned off here: that folder is the
person's own business, and its list belongs to it (``gibberish disable`` there).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from gibberish.engine.run_flow import Notice
from gibberish.export.switch import turn, turn_off
from gibberish.export.sync import Action
from gibberish.install.discover import InstallError
from gibberish.install.installer import installer_for
from gibberish.install.transaction import InstallTarget
from gibberish.skills.disabled import disabled_names
from gibberish.ui.formatting import human_title

if TYPE_CHECKING:
    from gibberish.engine.core import Engine


def _folders(engine: Engine) -> list[tuple[Path, Path | None]]:
    """``(skills folder, project)`` where the tray turns skills off and on: the person's
    own (no project), then the skills folder of the project followed now."""
    folders: list[tuple[Path, Path | None]] = [(InstallTarget.user().skills_dir, None)]
    followed = engine.library.project_skills
    if followed is not None:  # DIR/.gibberish/skills (skills.projectdir)
        folders.append((followed, followed.parent.parent))
    return folders


def turned_off(engine: Engine) -> list[str]:
    """The skills turned off in the person's skills folder and the project's, by name."""
    found: set[str] = set()
    for folder, _ in _folders(engine):
        found |= disabled_names(folder)
    return sorted(found)


def _project_of(engine: Engine, name: str, on: bool) -> Path | None:
    """The project whose skills folder holds ``name`` (turned off, when turning it on);
    None for the person's own folder, which answers first, as the library reads it."""
    if on:
        return next((p for f, p in _folders(engine) if name in disabled_names(f)), None)
    skill = engine.library.get(name)
    folder = skill.directory.parent if skill is not None else None
    return next((p for f, p in _folders(engine) if f == folder), None)


def switch_skill(engine: Engine, name: str, on: bool) -> Notice:
    """Turn ``name`` on or off where it lives; what to tell the person."""
    title = f"“{human_title(name)}”"
    try:
        installer = installer_for(engine, _project_of(engine, name, on))
        if on:
            changed = turn(installer, name, True)
            if not changed:
                return Notice(f"{title} was already on", "Nothing changed.")
            return Notice(f"{title} is on again", "It is back in the menu.")
        changed, plan, errors = turn_off(installer, name)
    except (InstallError, OSError) as exc:
        return Notice(
            f"Could not turn {title} {'on' if on else 'off'}", _why(engine, name, exc), True
        )
    if not changed:
        return Notice(f"{title} was already off", "Nothing changed.")
    removed = sum(1 for f in plan.folders for s in f.steps if s.action is Action.REMOVE)
    body = "It is gone from the menu and from what the model sees; its files are kept."
    if removed:
        body += f" Removed the copies made for your agents ({removed})."
    if errors:
        return Notice(f"{title} is off", body + " Could not remove: " + "; ".join(errors), True)
    return Notice(f"{title} is off", body + " Turn it on again under Skills turned off.")


def _why(engine: Engine, name: str, exc: Exception) -> str:
    """Why it failed, in the tray's words: a skill from elsewhere is named by its folder."""
    skill = engine.library.get(name)
    if skill is not None and skill.directory.parent not in {f for f, _ in _folders(engine)}:
        return (
            "Only skills in your own skills folder, in the project you work in, or bundled "
            f"with gibberish can be turned off here; this one comes from {skill.directory.parent}."
        )
    return str(exc)
