"""``gibberish project trust|untrust|list``: which project folders count as the person's own.

A folder with a ``gibberish.toml`` is untrusted until trusted here (or in the tray's
question): its skills load as untrusted and never hide a bundled or user skill
(gibberish/trust/projects.py).
"""

from __future__ import annotations

from pathlib import Path

import click

from gibberish.cli.common import FullHelpGroup, fail, printable, table
from gibberish.skills.projectdir import find_project, project_skills_dir
from gibberish.trust import projects


def _project(folder: Path | None) -> Path:
    start = folder or Path.cwd()
    found = find_project(start)
    if found is None:
        fail(f"{printable(str(start))} is not inside a project (no gibberish.toml above it).", 1)
    return found


@click.group("project", cls=FullHelpGroup)
def project_group() -> None:
    """Trust a project folder's skills (.gibberish/skills), or stop trusting them."""


@project_group.command("trust")
@click.argument("folder", required=False, type=click.Path(path_type=Path, file_okay=False))
def project_trust(folder: Path | None) -> None:
    """Trust the project holding FOLDER (default: here): its skills load as your own."""
    project = _project(folder)
    skills = project_skills_dir(project)
    names = sorted(p.name for p in skills.iterdir() if p.is_dir()) if skills.is_dir() else []
    try:
        real = projects.trust(project)
    except (projects.StoreError, OSError) as exc:
        fail(f"{printable(str(project))} could not be trusted: {printable(str(exc))}", 1)
    click.echo(f"Trusted {printable(str(real))}.")
    if names:
        click.echo(
            f"Its skills ({printable(', '.join(names))}) now load as yours: they come before "
            "your own skills of the same name, and each still asks before its first run."
        )


@project_group.command("untrust")
@click.argument("folder", required=False, type=click.Path(path_type=Path, file_okay=False))
def project_untrust(folder: Path | None) -> None:
    """Stop trusting the project holding FOLDER (default: here)."""
    project = _project(folder)
    try:
        removed = projects.untrust(project)
    except (projects.StoreError, OSError) as exc:
        fail(f"{printable(str(project))} could not be untrusted: {printable(str(exc))}", 1)
    if removed:
        click.echo(f"{printable(str(project))} is no longer trusted; its skills load as untrusted.")
    else:
        click.echo(f"{printable(str(project))} was not trusted.")


@project_group.command("list")
def project_list() -> None:
    """The project folders you trust."""
    trusted = projects.trusted_projects()
    for notice in projects.notices():
        click.echo(printable(notice), err=True)
    if not trusted:
        click.echo("No project folder is trusted.")
        return
    click.echo(table(["FOLDER", "TRUSTED AT"], [[printable(k), v] for k, v in trusted.items()]))


COMMANDS = [project_group]
