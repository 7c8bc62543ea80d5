"""The lock and the agents: what each installed skill was synced to is written into the
lock (``synced = [{target = "claude-code", how = "copy"}]``), and a restore from the lock
syncs it there again, the same way (a copy or a link).

A project's lock is ``gibberish.lock`` in the project; the person's own is
``skills.lock`` in their config folder (see :func:`gibberish.install.project.user_lock_path`),
so copying the config folder to a new machine and running ``gibberish install`` restores
every skill, where it was synced, and how.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from gibberish.cli.common import CliState, printable
from gibberish.export import agents
from gibberish.export.switch import save_lock, synced_to
from gibberish.install.transaction import Installer

__all__ = ["save_lock", "sync_as_locked", "synced_to"]


def sync_as_locked(
    state: CliState,
    installer: Installer,
    lock: dict[str, dict[str, Any]],
    allow_mcp: Sequence[str] = (),
) -> int:
    """Sync each locked skill to the agents the lock names, as it names (copy or link);
    the number of writes that failed."""
    groups: dict[tuple[str, str], list[str]] = {}
    for name, entry in sorted(lock.items()):
        if entry.get("enabled") is False or not (installer.target.skills_dir / name).is_dir():
            continue  # a skill turned off is not synced (gibberish disable)
        for place in entry.get("synced") or ():
            if isinstance(place, dict) and place.get("target") in agents.TARGET_NAMES:
                key = (str(place["target"]), "link" if place.get("how") == "link" else "copy")
                groups.setdefault(key, []).append(name)
    from gibberish.cli.sync_offer import home, interactive, mcp_consent
    from gibberish.export.sync_all import apply_sync, plan_sync
    from gibberish.export.sync_offer import load_skills

    failed = 0
    project = installer.target.project
    for (target, how), names in sorted(groups.items()):
        plan = plan_sync(
            load_skills(installer.target.skills_dir, names),
            [agents.target(target)],
            home=home(),
            project=project,
            link=how == "link",
            settings_servers=state.engine().settings.mcp_servers,
            scope=set(names),
            consent=mcp_consent(set(allow_mcp), ask=interactive()),
        )
        for note in plan.notes:
            click.secho(f"note: {printable(note)}", err=True, fg="yellow")
        errors = apply_sync(plan)
        failed += len(errors)
        for error in errors:
            click.secho(f"gibberish: {printable(error)}", err=True, fg="red")
        click.echo(f"Synced {', '.join(names)} to {target} ({how}), as the lock says.")
    return failed


def lock_after_sync(state: CliState, project: Path | None) -> None:
    """After ``gibberish sync``: the lock of the skills gibberish installed there records
    where each is synced now (and how), so a restore puts them back the same way."""
    from gibberish.install.installer import installer_for

    installer = installer_for(state.engine(), project)
    if installer.state.skills:
        save_lock(installer)
