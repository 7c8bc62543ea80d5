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
from gibberish.export.switch import turn
from gibberish.install.discover import InstallError
from gibberish.install.installer import installer_for
from gibberish.install.transaction import Installer
from gibberish.words import plural


def _project_option(func):  # type: ignore[no-untyped-def]
    return click.option(
        "--project",
        type=click.Path(path_type=Path, file_okay=False),
        help="Work on DIR/.gibberish/skills instead of your own skills.",
    )(func)


def _switch(state: CliState, name: str, project: Path | None, on: bool) -> Installer:
    try:
        installer = installer_for(state.engine(), project)
        changed = turn(installer, name, on)
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


AUDIT_HIGH = 4
"""The exit code of ``gibberish audit`` when a finding is high-risk."""


@click.command("audit")
@click.argument("target", metavar="SOURCE|NAME")
@_project_option
@click.option("--json", "as_json", is_flag=True, help="Print the report as JSON.")
@pass_state
def audit_command(state: CliState, target: str, project: Path | None, as_json: bool) -> None:
    """What a skill can do and what looks wrong in it, read without running anything.

    SOURCE is anything `gibberish install` takes (fetched into a private folder, never
    installed); NAME is a skill you have. Exit codes: 0 nothing high-risk, 4 a high-risk
    finding, 1 an error.
    """
    from gibberish.cli.audit_view import show_audit
    from gibberish.cli.common import print_json

    try:
        reports = _audits(state, target, project)
    except (InstallError, OSError) as exc:
        fail(str(exc), 1)
    if as_json:
        print_json([r.to_dict() for r in reports])
    else:
        for report in reports:
            high = len(report.high)
            warnings = len(report.findings) - high
            summary = (
                f"{high} high, {plural(warnings, 'warning')}" if report.findings else "no findings"
            )
            click.secho(f"{report.skill}: {summary}", bold=True)
            show_audit(report)
    if any(r.high for r in reports):
        raise SystemExit(AUDIT_HIGH)


def _audits(state: CliState, target: str, project: Path | None) -> list:
    """The audits of an installed skill called ``target``, else of the skills in the
    source ``target`` (fetched to a private folder and removed again)."""
    from gibberish.install.audit import audit_folder
    from gibberish.install.discover import discover
    from gibberish.install.fetch import FetchError, fetch
    from gibberish.install.sources import SourceError, parse_source

    looks_like_source = "/" in target or ":" in target or Path(target).exists()
    if not looks_like_source:
        skill = state.engine().library.get(target)
        folder = installer_for(state.engine(), project).target.skills_dir / target
        if skill is not None:
            return [audit_folder(skill.directory, skill, target)]
        if (folder / "SKILL.md").is_file():  # turned off: still audited
            return [audit_folder(folder, name=target)]
    try:
        with fetch(parse_source(target)) as staged:
            return [
                audit_folder(found.folder, found.skill, found.name)
                for found in discover(staged.root, staged.source.text)
            ]
    except (FetchError, SourceError) as exc:
        raise InstallError(
            f"{exc} (`gibberish audit` takes a source, as `install` does, or the name of a "
            "skill you have)"
        ) from None


COMMANDS = [disable_command, enable_command, audit_command]
