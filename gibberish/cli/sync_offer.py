"""After ``install`` and ``uninstall``: keep the agents' copies in step.

``install`` offers to copy what it installed into the agents' skills folders (asked on a
terminal; ``--sync`` does it, ``--no-sync`` does not; otherwise the command to run is
printed). ``uninstall`` takes out the synced copies gibberish owns (never an edited one).
Both touch only the skills named: another skill's copy is never changed.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from pathlib import Path

import click

from gibberish.cli.common import CliState, printable, table
from gibberish.interop import agents
from gibberish.interop.sync_all import SyncPlan, apply_sync, counts, plan_sync
from gibberish.interop.unsync import plan_unsync
from gibberish.skills.library import SkillLibrary
from gibberish.skills.model import Trust


def home() -> Path:
    return Path(os.path.expanduser("~"))


def sync_targets(state: CliState) -> tuple[list[agents.AgentTarget], list[str]]:
    """The configured targets (``[sync] targets``), else the agents detected; and the
    configured names that are unknown."""
    configured = state.engine().settings.sync_targets
    if not configured:
        return agents.detect_installed(home()), []
    chosen, unknown = [], []
    for name in configured:
        try:
            chosen.append(agents.target(name))
        except KeyError:
            unknown.append(name)
    return chosen, unknown


def _show(plan: SyncPlan, *, done: str) -> list[str]:
    rows = plan.rows(home(), all_steps=True)
    if not rows:
        return []
    click.echo(table(["target", "action", "path", "reason"], rows, flex=2))
    errors = apply_sync(plan)
    for error in errors:
        click.secho(f"gibberish: {printable(error)}", err=True, fg="red")
    summary = ", ".join(f"{n} {a}" for a, n in sorted(counts(plan).items()))
    click.echo(f"{done} ({summary}).")
    return errors


def offer_sync(
    state: CliState,
    skills_dir: Path,
    names: Sequence[str],
    project: Path | None,
    answer: bool | None,
) -> None:
    """Copy ``names`` (just installed into ``skills_dir``) to the agents, as answered."""
    if not names or answer is False:
        return
    command = "gibberish sync " + " ".join(f"--skill {n}" for n in names)
    if project is not None:
        command += f" --project {project}"
    targets, unknown = sync_targets(state)
    for name in unknown:
        click.secho(f"note: [sync] targets: unknown agent {name!r}; skipped", err=True, fg="yellow")
    if not targets:
        click.echo(f"No agent found to copy them to; name one with `{command} TARGET`.")
        return
    where = ", ".join(t.name for t in targets)
    if answer is None:
        if not sys.stdin.isatty():
            click.echo(f"To copy them to your agents ({where}): {command}")
            return
        if not click.confirm(f"Copy them to your agents now ({where})?", default=False):
            return
    checker = SkillLibrary([])
    skills = [checker.load_folder(skills_dir / n, trust=Trust.UNTRUSTED) for n in names]
    servers = state.engine().settings.mcp_servers
    plan = plan_sync(
        skills, targets, home=home(), project=project, settings_servers=servers, scope=set(names)
    )
    for note in plan.notes:
        click.secho(f"note: {printable(note)}", err=True, fg="yellow")
    _show(plan, done="Synced")


def remove_synced(names: Sequence[str], project: Path | None) -> list[str]:
    """Take out every synced copy of ``names`` gibberish owns; errors are returned."""
    plan = plan_unsync(names, home=home(), project=project)
    return _show(plan, done="Synced copies removed")
