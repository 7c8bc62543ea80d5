"""``gibberish tray`` (and ``gibberish`` with no command): start the desktop application.

Qt is imported only here, lazily, so every other command starts without loading it. The
command lines that only start the tray do not reach click at all: ``gibberish.cli``
hands them to ``gibberish.cli.tray_start`` first.
"""

from __future__ import annotations

import click

from gibberish.cli import logfile, tray_start
from gibberish.cli.common import CliState, pass_state


def start_tray(state: CliState, *, no_tray: bool) -> None:
    """The click group's way in; ``gibberish.cli.tray_start`` is the usual, faster one."""
    logfile.detach()  # the tray keeps its own log
    tray_start.start_tray(state.build_engine, no_tray=no_tray)


@click.command("tray")
@click.option("--no-tray", is_flag=True, help="Open the launcher window instead of a tray icon.")
@pass_state
def tray_command(state: CliState, no_tray: bool) -> None:
    """Start the tray (the default when no command is given)."""
    start_tray(state, no_tray=no_tray)


COMMANDS = [tray_command]
