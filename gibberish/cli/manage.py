"""``gibberish disable``, ``enable`` and ``audit``: managing skills without removing them.

``disable`` turns a skill off (gone from the menu, the model feed, MCP and the agents'
folders; its files, install record and approvals stay); ``enable`` turns it on again and
offers to copy it back to the agents, as ``install`` does. ``audit`` reports what a skill
can do and what looks wrong, before it is installed or after.
"""

from __future__ import annotations

from pathlib import Path

import click

from gibberish.cli.common import CliState, fail, pass_state
from gibberish.cli.sync_offer import offer_sync, remove_synced
from gibberish.install.discover import InstallError
from gibberish.install.enabled import set_enabled
from gibberish.install.installer import installer_for
from gibberish.install.transaction import Installer


def _project_option(func):  # type: ignore[no-untyped-def]
    return click.option(
        "--project",
        type=click.Path(path_type=Path, file_okay=False),
        help="Work on DIR/.gibberish/skills instead of your own skills.",
    )(func)


def _switch(state: CliState, name: str, project: Path | None, on: bool) -> Installer:
    try:
        installer = installer_for(state.engine(), project)
        changed = set_enabled(installer, name, on)
        if installer.target.project and name in installer.state.skills:
            from gibberish.install.project import write_lock

            write_lock(installer.target.project, installer.state, installer.target.skills_dir)
    except (InstallError, OSError) as exc:
        fail(str(exc), 1)
    word = "on" if on else "off"
    click.echo(f"{name} is {word}." if changed else f"{name} was already {word}.")
    return installer


@click.command("disable")
@click.argument("name")
@_project_option
@pass_state
def disable_command(state: CliState, name: str, project: Path | None) -> None:
    """Turn a skill off without deleting it: gone from the menu, the model, MCP and your
    agents (the copies gibberish made there are removed); `gibberish enable` brings it back."""
    installer = _switch(state, name, project, False)
    if remove_synced([name], installer.target.project):
        raise SystemExit(1)


@click.command("enable")
@click.argument("name")
@_project_option
@click.option(
    "--sync/--no-sync",
    "sync",
    default=None,
    help="Copy it to your agents again (default: ask on a terminal, else print the command).",
)
@pass_state
def enable_command(state: CliState, name: str, project: Path | None, sync: bool | None) -> None:
    """Turn a skill turned off with `gibberish disable` on again."""
    installer = _switch(state, name, project, True)
    target = installer.target
    offer_sync(state, target.skills_dir, [name], target.project, sync)


COMMANDS = [disable_command, enable_command]
