"""The ``gibberish`` command line: thin — it parses flags, calls the Engine, prints.

Every error a person can cause ends as one clear message on stderr and a non-zero exit
status, never a traceback (``main`` is the only place that catches broadly).
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gibberish import __version__
from gibberish.cli import logfile
from gibberish.cli.common import CliState, FullHelpGroup, fail
from gibberish.cli.run import run_command
from gibberish.cli.skills import skills_group


@click.group(
    cls=FullHelpGroup,
    invoke_without_command=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)
@click.option(
    "--skills-dir",
    "skills_dirs",
    multiple=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="Also load skills from this folder (repeatable).",
)
@click.option("--no-user-skills", is_flag=True, help="Leave out ~/.config/gibberish/skills.")
@click.option("--no-bundled", is_flag=True, help="Leave out the skills shipped with gibberish.")
@click.option(
    "--debug",
    is_flag=True,
    help="Log everything on stderr, with the traceback of an internal error.",
)
@click.version_option(__version__, prog_name="gibberish")
@click.pass_context
def cli(
    ctx: click.Context,
    skills_dirs: tuple[Path, ...],
    no_user_skills: bool,
    no_bundled: bool,
    debug: bool,
) -> None:
    """Turn folders of SKILL.md files into tools. With no command, starts the tray."""
    if debug:
        logfile.enable_debug()
    ctx.obj = CliState(
        extra_skills_dirs=tuple(skills_dirs),
        include_user=not no_user_skills,
        include_bundled=not no_bundled,
    )
    if ctx.invoked_subcommand is None:
        from gibberish.cli.tray import start_tray

        start_tray(ctx.obj, no_tray=False)


cli.add_command(skills_group)
cli.add_command(run_command)

for _module in (
    "gibberish.cli.trust",
    "gibberish.cli.assistant",
    "gibberish.cli.tray",
    "gibberish.cli.install",
    "gibberish.cli.export",
    "gibberish.cli.doctor",
    "gibberish.cli.voice",
    "gibberish.cli.disclosure",
    "gibberish.cli.mcp",
    "gibberish.cli.context",
):
    try:
        _mod = __import__(_module, fromlist=["COMMANDS"])
    except ModuleNotFoundError as _exc:  # a front end not built yet
        if _exc.name != _module:
            raise
        continue
    for _command in _mod.COMMANDS:
        cli.add_command(_command)


def main() -> None:
    logfile.configure()
    try:
        cli.main(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:  # the last guard: a bug is logged, and named in one line
        fail(logfile.record_internal_error(exc))
