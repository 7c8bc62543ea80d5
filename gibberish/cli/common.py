"""What every CLI command shares: the global options and one way to fail."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click
import msgspec.json
from msgspec import Struct

from gibberish.lazy import lazy_pattern

if TYPE_CHECKING:  # the Engine is imported when a command first needs it
    from gibberish.engine.core import Engine


class CliState(Struct):
    extra_skills_dirs: tuple[Path, ...] = ()
    include_user: bool = True
    include_bundled: bool = True
    _engine: Engine | None = None

    def build_engine(self) -> Engine:
        """A new Engine with its one-time notices still queued (the tray shows them)."""
        from gibberish.engine.core import Engine, EngineOptions

        return Engine(
            EngineOptions(
                extra_skills_dirs=self.extra_skills_dirs,
                include_user=self.include_user,
                include_bundled=self.include_bundled,
            )
        )

    def engine(self) -> Engine:
        """The command's Engine; its one-time notices are printed to stderr."""
        if self._engine is None:
            self._engine = self.build_engine()
            self._engine.library.follow_project(Path.cwd())  # a project's own skills
            for notice in self._engine.notices():
                click.secho(f"note: {printable(notice)}", err=True, fg="yellow")
            waiting = self._engine.library.untrusted_project()
            if waiting is not None:
                folder, names = waiting
                click.secho(
                    f"note: the project {printable(str(folder))} is not trusted: its skills "
                    f"({printable(', '.join(names))}) load as untrusted; "
                    "`gibberish project trust` makes them yours.",
                    err=True,
                    fg="yellow",
                )
        return self._engine


pass_state = click.make_pass_decorator(CliState, ensure=True)


class FullHelpGroup(click.Group):
    """A command group whose ``--help`` lists each command with its whole first sentence,
    wrapped to the terminal, instead of Click's default of cutting it to ``...``."""

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=10_000)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


_INVISIBLE = {
    **{c: f"\\x{c:02x}" for c in range(0x20) if c != 0x09},
    0x7F: "\\x7f",
    **{c: f"\\x{c:02x}" for c in range(0x80, 0xA0)},
    **{
        c: f"\\u{c:04x}"
        for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))
    },
}


def printable(text: str) -> str:
    """``text`` with terminal controls and bidi overrides shown as escapes.

    A skill's own text must never be able to restyle, hide or reorder what an approval
    prompt shows (``\x1b[8m`` conceals the rest of a line in most terminals).
    """
    return text.translate(_INVISIBLE)


_JSON_INVISIBLE = {c: f"\\u{c:04x}" for c in _INVISIBLE if c >= 0x7F}
_JSON_NEEDS_ESCAPE = lazy_pattern("[" + "".join(map(chr, _JSON_INVISIBLE)) + "]")


def json_text(data: Any, *, compact: bool = False) -> str:
    """``data`` as JSON that is safe to print: readable UTF-8, except that every
    terminal control and bidi override (C1 controls such as U+009B CSI, U+0085, U+202E …)
    is written as a ``\\uXXXX`` escape. ``json.dumps`` escapes only C0 controls; the
    escapes decode to the very same strings, so the JSON means what it meant.

    msgspec writes it (the library gibberish's records come from): about three times
    faster than ``json``'s C encoder on ``skills list --json`` at 1,000 skills, the same
    text except that a float's exponent has no ``+`` and a NaN is ``null``, which is
    what JSON allows. The escape pass runs only over text that holds such a character
    (a regular-expression scan is in C)."""
    encoded = msgspec.json.encode(data)
    text = (encoded if compact else msgspec.json.format(encoded, indent=2)).decode()
    if _JSON_NEEDS_ESCAPE.search(text) is None:
        return text
    return text.translate(_JSON_INVISIBLE)


def fail(message: str, code: int = 2) -> NoReturn:
    lines = "\n".join(printable(line) for line in message.split("\n"))  # real line breaks
    click.secho(f"gibberish: {lines}", err=True, fg="red")
    sys.exit(code)


def stdout_is_terminal() -> bool:
    """Whether a person (a terminal) reads standard output, rather than a program."""
    try:
        return sys.stdout.isatty()
    except (AttributeError, ValueError):  # replaced or closed stdout
        return False


def print_json(data: Any, *, compact: bool | None = None) -> None:
    """Print ``data`` as JSON: indented for a terminal, one compact line for a program
    (a pipe or a file), unless ``compact`` says which. The same data always prints the
    same bytes for the same choice."""
    if compact is None:
        compact = not stdout_is_terminal()
    click.echo(json_text(data, compact=compact))


def terminal_width() -> int:
    return shutil.get_terminal_size((100, 24)).columns


MIN_FLEX = 30
"""The narrowest a shortened column gets on a narrow terminal (the line wraps instead)."""


def table(headers: list[str], rows: list[list[str]], *, flex: int | None = None) -> str:
    """A plain aligned table; column ``flex`` is shortened with … to fit the terminal."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    if flex is not None and stdout_is_terminal():  # piped: every cell whole, for programs
        fixed = sum(w for i, w in enumerate(widths) if i != flex) + 2 * (len(widths) - 1)
        room = max(MIN_FLEX, terminal_width() - fixed - 1)  # never cut to nothing
        widths[flex] = max(len(headers[flex]), min(widths[flex], room))

    def cell(text: str, width: int) -> str:
        return text if len(text) <= width else text[: max(width - 1, 0)] + "…"

    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    for r in rows:
        lines.append(
            "  ".join(cell(c, w).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        )
    return "\n".join(lines)
