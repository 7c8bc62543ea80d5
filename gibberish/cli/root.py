"""The ``gibberish`` click group: global options, and commands imported when used.

Each command's module is imported only when that command runs (or when a help page
lists it), so ``gibberish run`` never pays for the model feed, the web server or Qt.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Mapping, MutableMapping
from pathlib import Path
from typing import Any

import click

from gibberish import __version__
from gibberish.cli import COMMAND_HINTS, COMMAND_MODULES, logfile, quick_exit
from gibberish.cli.common import CliState, FullHelpGroup, fail


class LazyGroup(FullHelpGroup):
    """A group whose commands come from ``COMMAND_MODULES``, each imported on first use.

    ``commands`` (what code that walks the tree reads) imports them all; the group's own
    lookups import only the module ``COMMAND_HINTS`` names for the command, falling back
    to every module not imported yet when the name is not there.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._loaded: dict[str, click.Command] = {}
        self._pending = list(COMMAND_MODULES)
        super().__init__(*args, **kwargs)

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        self._load_all()
        return self._loaded

    @commands.setter
    def commands(self, value: Mapping[str, click.Command]) -> None:
        self._loaded.update(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        self._loaded[name or cmd.name or ""] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in self._loaded:
            hinted = COMMAND_HINTS.get(cmd_name)
            if hinted in self._pending:
                self._import(hinted)
            while cmd_name not in self._loaded and self._pending:
                self._import(self._pending[0])
        return self._loaded.get(cmd_name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.commands)

    def _load_all(self) -> None:
        while self._pending:
            self._import(self._pending[0])

    def _import(self, module_name: str) -> None:
        self._pending.remove(module_name)
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:  # a front end not built yet
            if exc.name != module_name:
                raise
            return
        for command in module.COMMANDS:
            self.add_command(command)


@click.group(
    cls=LazyGroup,
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


def run_main() -> None:
    """Run the group; the last guard: a bug is logged, and named in one line."""
    logfile.configure()
    quick_exit.enable()
    try:
        cli.main(standalone_mode=True)
    except KeyboardInterrupt:
        click.echo("Interrupted.", err=True)
        sys.exit(130)
    except Exception as exc:
        fail(logfile.record_internal_error(exc))
