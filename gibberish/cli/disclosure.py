"""``gibberish outline|show|open|sources|search`` and ``gibberish stub``.

The command-line fallback of the gateway a stub names: the same functions as the MCP
server's ``skills_*`` tools (gibberish/skills/disclosure.py). Errors print as
``error[EXXX]: message`` and exit with status 1, as skillc's RFC-0001 asks.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import click

from gibberish.app import Engine, EngineError
from gibberish.cli.common import CliState, fail, pass_state, print_json, printable, table
from gibberish.export.stub import StubWriteError
from gibberish.skills import disclosure
from gibberish.skills.disclosure import DisclosureError

T = TypeVar("T")


def skill_folder(engine: Engine, name_or_path: str) -> Path:
    """A skill by name, or a folder given as a path (anything with a ``/`` or ``.``)."""
    if "/" in name_or_path or name_or_path.startswith("."):
        folder = Path(name_or_path).expanduser()
        if not folder.is_dir():
            raise DisclosureError(disclosure.E_SKILL_NOT_FOUND, f"{folder} is not a folder.")
        return folder
    try:
        skill = engine.library.require(name_or_path)
    except EngineError as exc:
        raise DisclosureError(disclosure.E_SKILL_NOT_FOUND, str(exc)) from None
    disclosure.refuse_unloaded(skill.name, skill.errors)
    return skill.directory


def _guard(action: Callable[[], T]) -> T:
    try:
        return action()
    except DisclosureError as exc:
        fail(str(exc), 1)
    except StubWriteError:
        raise
    except OSError as exc:
        fail(f"error[{disclosure.E_FILE_NOT_FOUND}]: {disclosure.describe_error(exc)}", 1)


@click.command("outline")
@click.argument("skill")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@pass_state
def outline_command(state: CliState, skill: str, as_json: bool) -> None:
    """Every heading of a skill's Markdown files, with its level (SKILL.md first)."""
    headings = _guard(lambda: disclosure.outline(skill_folder(state.engine(), skill)))
    if as_json:
        print_json([h.to_dict() for h in headings])
        return
    current = None
    for h in headings:
        if h.file != current:
            current = h.file
            click.echo(f"{h.file}")
        click.echo(f"  {'  ' * (h.level - 1)}{'#' * h.level} {h.title}  (line {h.line})")


@click.command("show")
@click.argument("skill")
@click.option("--section", help="A heading's title (as the outline shows it).")
@click.option("--max-lines", type=click.IntRange(min=1), help="Cut the text after N lines.")
@pass_state
def show_command(state: CliState, skill: str, section: str | None, max_lines: int | None) -> None:
    """A skill's SKILL.md body, or one section of any of its Markdown files."""
    click.echo(
        _guard(lambda: disclosure.show(skill_folder(state.engine(), skill), section, max_lines))
    )


@click.command("open")
@click.argument("skill")
@click.argument("path")
@pass_state
def open_command(state: CliState, skill: str, path: str) -> None:
    """One file of a skill (refused when PATH leaves the skill folder)."""
    click.echo(_guard(lambda: disclosure.open_file(skill_folder(state.engine(), skill), path)))


@click.command("sources")
@click.argument("skill")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@pass_state
def sources_command(state: CliState, skill: str, as_json: bool) -> None:
    """The files of a skill with their sizes."""
    files = _guard(lambda: disclosure.sources(skill_folder(state.engine(), skill)))
    if as_json:
        print_json([f.to_dict() for f in files])
    else:
        click.echo(table(["SIZE", "PATH"], [[str(f.size), f.path] for f in files]))


@click.command("search")
@click.argument("query")
@click.option(
    "--limit",
    type=click.IntRange(min=1),
    default=10,
    show_default=True,
    help="At most this many sections.",
)
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@pass_state
def search_command(state: CliState, query: str, limit: int, as_json: bool) -> None:
    """Sections across every skill, most relevant to QUERY first."""
    engine = state.engine()
    served, problems = disclosure.servable_reporting(engine.library.skills())
    hits, unreadable = disclosure.search_reporting(served, query, limit)
    problems += unreadable
    for name, why in problems:  # one bad skill is reported; the others are searched
        click.secho(f"note: {printable(name)} skipped: {printable(why)}", err=True, fg="yellow")
    if as_json:
        print_json([h.to_dict() for h in hits])
        return
    if not hits:
        click.echo(f"No section matches {query!r}.")
        raise SystemExit(1)
    for hit in hits:
        h = hit.section.heading
        click.echo(f"{hit.score:>4g}  {hit.skill}  {h.file}:{h.line}  {'#' * h.level} {h.title}")


@click.command("stub")
@click.argument("skill")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write OUT/<name>/SKILL.md and OUT/<name>/.skillc/manifest.json here.",
)
@click.option(
    "--target",
    "targets",
    multiple=True,
    help="Deploy to these agents' skills folders (claude-code, agents, cursor, …; "
    "comma-separated or repeated): built into .skillc/runtime, then linked.",
)
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Deploy into this project's agent folders (and build in its .skillc/runtime).",
)
@click.option(
    "--global", "global_", is_flag=True, help="Build in ~/.skillc/runtime even for a project."
)
@click.option(
    "--copy", is_flag=True, help="Copy the stub into each agent folder instead of linking."
)
@click.option(
    "--force",
    is_flag=True,
    help="Rebuild even when the sources did not change, and replace a SKILL.md or manifest "
    "gibberish did not write (each one replaced is named).",
)
@pass_state
def stub_command(
    state: CliState,
    skill: str,
    out_dir: Path | None,
    targets: tuple[str, ...],
    project: Path | None,
    global_: bool,
    copy: bool,
    force: bool,
) -> None:
    """Compile a skill to a gateway stub (skillc RFC-0001): no source content, a manifest.

    A file in OUT that gibberish did not write is never replaced without --force. With
    --target, the stub is built into .skillc/runtime/<name> and deployed (linked, or
    copied with --copy) into each agent's skills folder, user level or --project's.
    """
    from gibberish.cli.stub_deploy import chosen_agents, deploy_and_report, runtime_out
    from gibberish.export.stub import build_stub

    agents = chosen_agents(targets)
    if out_dir is None:
        if not agents:
            fail("give --out FOLDER, or --target AGENT to deploy into an agent's skills folder.")
        out_dir = runtime_out(project, global_)
    folder = _guard(lambda: skill_folder(state.engine(), skill))
    try:
        result = _guard(lambda: build_stub(folder, out_dir, force=force))
    except StubWriteError as exc:
        fail(f"cannot write the stub: {exc} (choose an --out folder you can write to).", 1)
    for note in result.replaced:
        click.secho(f"note: {note}", err=True, fg="yellow")
    verb = "built" if result.rebuilt else "up to date"
    click.echo(f"{result.skill}: {verb} {result.folder} (source {result.source_hash[:12]})")
    if agents:
        deploy_and_report(result.folder, agents, project=project, copy=copy)


COMMANDS = [
    outline_command,
    show_command,
    open_command,
    sources_command,
    search_command,
    stub_command,
]
