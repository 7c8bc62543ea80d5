"""After ``install`` and ``uninstall``: keep the agents' copies in step.

``install`` offers to copy what it installed into the agents' skills folders (asked on a
terminal; ``--sync`` does it, ``--no-sync`` does not; otherwise the command to run is
printed). ``uninstall`` takes out the synced copies gibberish owns (never an edited one).
Both touch only the skills named: another skill's copy is never changed. An MCP server a
skill asks for is a command the agents will start, so the offer follows sync's consent
rule: shown and asked at a terminal, agreed to ahead with ``--allow-mcp NAME``, and
otherwise left out (``skip-unapproved``).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Collection, Sequence
from pathlib import Path

import click

from gibberish.cli.common import CliState, printable, table
from gibberish.export import agents
from gibberish.export.mcp_config import Consent, McpServer
from gibberish.export.sync_all import SyncPlan, apply_sync, counts
from gibberish.export.sync_offer import SyncOffer
from gibberish.export.sync_offer import sync_targets as offer_targets
from gibberish.export.unsync import plan_unsync
from gibberish.words import plural


def home() -> Path:
    return Path(os.path.expanduser("~"))


def interactive() -> bool:
    return sys.stdin.isatty()


def mcp_consent(allowed: set[str], *, ask: bool) -> Consent:
    """Yes for servers named with --allow-mcp; otherwise the person is shown the full
    command and asked (only at a terminal: without one the server is skipped)."""

    def consent(server: McpServer) -> bool:
        if server.name in allowed:
            return True
        if not ask:
            return False
        click.secho(f"MCP server {server.name!r} (from {printable(server.origin)}):", bold=True)
        click.echo(f"  the agent would {printable(server.describe())}")
        click.echo("  outside gibberish's sandbox, whenever the agent starts.")
        return click.confirm(f"Write {server.name!r} into the agents' configuration?", False)

    return consent


def report_unapproved(plan: SyncPlan, command: str) -> None:
    """Name each MCP server left out for want of consent, and the command that writes it."""
    skipped = sorted(
        {s.name for m in plan.mcp for s in m.steps if s.action.value == "skip-unapproved"}
    )
    if skipped:
        names = " ".join(f"--allow-mcp {n}" for n in skipped)
        click.secho(
            f"note: {plural(len(skipped), 'MCP server')} not written ({', '.join(skipped)}): "
            "nobody agreed to their "
            f"command (shown above); to write them run `{command} {names}`.",
            err=True,
            fg="yellow",
        )


def sync_targets(state: CliState) -> tuple[list[agents.AgentTarget], list[str]]:
    """The configured targets (``[sync] targets``), else the agents detected; and the
    configured names that are unknown."""
    return offer_targets(state.engine().settings.sync_targets, home())


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
    allow_mcp: Sequence[str] = (),
) -> None:
    """Copy ``names`` (just installed into ``skills_dir``) to the agents, as answered;
    an MCP server they ask for is written only with consent (``allow_mcp``, or asked)."""
    if not names or answer is False:
        return
    targets, unknown = sync_targets(state)
    for name in unknown:
        click.secho(f"note: [sync] targets: unknown agent {name!r}; skipped", err=True, fg="yellow")
    offer = SyncOffer(
        skills_dir,
        list(names),
        targets,
        home(),
        project,
        state.engine().settings.mcp_servers,
    )
    command = offer.command
    if not targets:
        click.echo(f"No agent found to copy them to; name one with `{command} TARGET`.")
        return
    where = ", ".join(t.name for t in targets)
    if answer is None:
        if not interactive():
            click.echo(f"To copy them to your agents ({where}): {command}")
            return
        if not click.confirm(f"Copy them to your agents now ({where})?", default=False):
            return
    plan = offer.plan(mcp_consent(set(allow_mcp), ask=interactive()))
    for note in plan.notes:
        click.secho(f"note: {printable(note)}", err=True, fg="yellow")
    _show(plan, done="Synced")
    report_unapproved(plan, command)


def remove_synced(
    names: Sequence[str], project: Path | None, servers: Collection[str] = ()
) -> list[str]:
    """Take out every synced copy of ``names``, and the MCP entries ``servers``, that
    gibberish owns; errors are returned."""
    plan = plan_unsync(names, home=home(), project=project, servers=servers)
    return _show(plan, done="Synced copies removed")
