"""What every CLI command shares: the global options and one way to fail."""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

import click

from gibberish.app import Engine, EngineOptions


@dataclass
class CliState:
    extra_skills_dirs: tuple[Path, ...] = ()
    include_user: bool = True
    include_bundled: bool = True
    _engine: Engine | None = field(default=None, repr=False)

    def build_engine(self) -> Engine:
        """A new Engine with its one-time notices still queued (the tray shows them)."""
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
            for notice in self._engine.notices():
                click.secho(f"note: {notice}", err=True, fg="yellow")
        return self._engine


pass_state = click.make_pass_decorator(CliState, ensure=True)


def fail(message: str, code: int = 2) -> NoReturn:
    click.secho(f"gibberish: {message}", err=True, fg="red")
    sys.exit(code)


def print_json(data: Any, *, compact: bool = False) -> None:
    if compact:
        click.echo(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
    else:
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))


def terminal_width() -> int:
    return shutil.get_terminal_size((100, 24)).columns


def table(headers: list[str], rows: list[list[str]], *, flex: int | None = None) -> str:
    """A plain aligned table; column ``flex`` is shortened with … to fit the terminal."""
    widths = [max([len(h)] + [len(r[i]) for r in rows]) for i, h in enumerate(headers)]
    if flex is not None:
        fixed = sum(w for i, w in enumerate(widths) if i != flex) + 2 * (len(widths) - 1)
        widths[flex] = max(len(headers[flex]), min(widths[flex], terminal_width() - fixed - 1))

    def cell(text: str, width: int) -> str:
        return text if len(text) <= width else text[: max(width - 1, 0)] + "…"

    lines = ["  ".join(h.ljust(w) for h, w in zip(headers, widths, strict=True)).rstrip()]
    for r in rows:
        lines.append(
            "  ".join(cell(c, w).ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
        )
    return "\n".join(lines)
