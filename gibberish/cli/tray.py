"""``gibberish tray`` (and ``gibberish`` with no command): start the desktop application.

Qt is imported only here, lazily, so every other command starts without loading it.
"""

from __future__ import annotations

import sys

import click

from gibberish.cli import logfile
from gibberish.cli.common import CliState, fail, pass_state
from gibberish.cli.display import display_problem


def start_tray(state: CliState, *, no_tray: bool) -> None:
    problem = display_problem()
    if problem:
        fail(problem, 1)
    from gibberish.ui.application import run_application

    logfile.detach()

    sys.exit(run_application(state.build_engine, no_tray=no_tray))


@click.command("tray")
@click.option("--no-tray", is_flag=True, help="Open the launcher window instead of a tray icon.")
@pass_state
def tray_command(state: CliState, no_tray: bool) -> None:
    """Start the tray (the default when no command is given)."""
    start_tray(state, no_tray=no_tray)


COMMANDS = [tray_command]
