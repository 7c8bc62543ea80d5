"""*Turn off* and *Turn on* in the tray: the rule of ``gibberish disable/enable``.

Both go through :mod:`gibberish.export.switch`, as the CLI does: the same list of skills
turned off (in the person's skills folder), the same lock, the same removal of the
copies sync made. Turning a skill on copies nothing back by itself: the CLI asks first,
and the tray offers it as after an install (the controller opens that offer when there
are agents to copy to). Qt-free: the controller reloads and shows the notice.
"""

from __future__ import annotations

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


def turned_off() -> list[str]:
    """The skills turned off in the person's skills folder, by name."""
    return sorted(disabled_names(InstallTarget.user().skills_dir))


def switch_skill(engine: Engine, name: str, on: bool) -> Notice:
    """Turn ``name`` on or off in the person's skills folder; what to tell the person."""
    title = f"“{human_title(name)}”"
    try:
        installer = installer_for(engine)
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
    if skill is not None and skill.directory.parent != InstallTarget.user().skills_dir:
        return (
            "Only skills in your own skills folder can be turned off here; this one comes "
            f"from {skill.directory.parent}."
        )
    return str(exc)
