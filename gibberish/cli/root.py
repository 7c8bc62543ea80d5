"""The ``gibberish`` click group: global options, and commands imported when used.

Each command's module is imported only when that command runs (or when a help page
lists it), so ``gibberish run`` never pays for the model feed, the web server or Qt.
"""

from __future__ import annotations

import copy
import sys
from collections.abc import Iterable, Mapping, MutableMapping
from pathlib import Path
from typing import Any

import click

from gibberish import __version__
from gibberish.cli import COMMAND_HINTS, COMMAND_MODULES, logfile, quick_exit
from gibberish.cli.common import CliState, FullHelpGroup, fail
from gibberish.cli.shelves import (
    ROOT_EXAMPLES,
    SECTIONS,
    SHELVES,
    ShelfGroup,
    module_commands,
    placed,
)


class LazyGroup(FullHelpGroup):
    """The top of the command tree: the commands of ``COMMAND_MODULES``, each module
    imported on first use, and the shelves of :mod:`gibberish.cli.shelves`.

    ``commands`` (what code that walks the tree reads) imports them all; the group's own
    lookups import only the module ``COMMAND_HINTS`` names for the command, falling back
    to every module not imported yet when the name is not there. A command that has a
    place on a shelf answers here too, under its old name, hidden from ``--help``.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._loaded: dict[str, click.Command] = {}
        self._module_of: dict[str, str] = {}
        self._aliases: dict[str, click.Command] = {}
        self._shelves: dict[str, ShelfGroup] = {}
        self._pending = list(COMMAND_MODULES)
        super().__init__(*args, **kwargs)

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        self._load_all()
        found = {name: self._top(name) for name in self._loaded if name not in SHELVES}
        found.update({name: self._shelf(name) for name in SHELVES})
        return found

    @commands.setter
    def commands(self, value: Mapping[str, click.Command]) -> None:
        self._loaded.update(value)

    def add_command(self, cmd: click.Command, name: str | None = None) -> None:
        self._loaded[name or cmd.name or ""] = cmd

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in SHELVES:
            return self._shelf(cmd_name)
        if self.find(cmd_name) is None:
            return None
        return self._top(cmd_name)

    def find(self, name: str) -> click.Command | None:
        """The command a module defines under the top-level ``name``, as it is defined."""
        if name not in self._loaded:
            hinted = COMMAND_HINTS.get(name)
            if hinted in self._pending:
                self._import(hinted)
            while name not in self._loaded and self._pending:
                self._import(self._pending[0])
        return self._loaded.get(name)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(self.commands)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands by what a person does (``SECTIONS``), then any not placed yet;
        every section's sentences start in one column."""
        placed_names = {name for _, names in SECTIONS for name in names}
        rest = [n for n in self.list_commands(ctx) if n not in placed_names]
        sections = [(title, self._rows(ctx, names)) for title, names in SECTIONS]
        sections.append(("Other commands", self._rows(ctx, rest)))
        width = max((len(name) for _, rows in sections for name, _ in rows), default=0)
        for title, rows in sections:
            if rows:
                with formatter.section(title):
                    formatter.write_dl([(name.ljust(width), text) for name, text in rows])

    def _rows(self, ctx: click.Context, names: Iterable[str]) -> list[tuple[str, str]]:
        """``(name, first sentence)`` of each command of ``names`` that --help shows."""
        rows = []
        for name in names:
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=10_000)))
        return rows

    def _top(self, name: str) -> click.Command:
        """``name`` as the top answers to it: hidden when the command has a shelf."""
        command = self._loaded[name]
        if not placed(name, self._module_of.get(name, "")):
            return command
        if name not in self._aliases:
            alias = copy.copy(command)
            alias.hidden = True
            self._aliases[name] = alias
        return self._aliases[name]

    def _shelf(self, name: str) -> ShelfGroup:
        if name not in self._shelves:
            self._shelves[name] = ShelfGroup(name, SHELVES[name], self.find)
        return self._shelves[name]

    def _load_all(self) -> None:
        while self._pending:
            self._import(self._pending[0])

    def _import(self, module_name: str) -> None:
        self._pending.remove(module_name)
        for command in module_commands(module_name):
            self.add_command(command)
            self._module_of[command.name or ""] = module_name


@click.group(
    cls=LazyGroup,
    epilog=ROOT_EXAMPLES,
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
