"""``gibberish context list|show|pin|unpin|scan|remove``: instruction skills as context blocks.

A context block is a skill without runnable tools — from the skills folders, or imported
from another agent's folder with ``context scan --import``. Pinned blocks go in front of
every model request (``gibberish prompt``, ``gibberish ask``) within the context budget;
``--context NAME`` on those commands adds a block for one request.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gibberish.app import Engine, EngineError
from gibberish.cli.common import CliState, fail, pass_state, print_json, printable, table

if TYPE_CHECKING:
    from gibberish.assistant.context import ContextBlock, ContextFeed
    from gibberish.assistant.context_folders import Candidate
    from gibberish.assistant.token_count import TokenCount


def all_blocks(engine: Engine) -> list[ContextBlock]:
    return engine.feed.context_blocks()


def _find(engine: Engine, name: str) -> ContextBlock:
    for block in engine.feed.context_blocks():
        if block.name == name:
            return block
    known = ", ".join(b.name for b in engine.feed.context_blocks()) or "none"
    fail(
        f"No context block named {name!r}. Known blocks: {known}. A context block is a skill "
        "without tools; `gibberish context scan` finds other agents' skills.",
        1,
    )


def context_feed(
    engine: Engine, request_names: Sequence[str], request: str, budget: int | None
) -> ContextFeed:
    """The feed for one request: pinned blocks, plus ``request_names`` for this request."""
    try:
        feed = engine.feed.context_feed(request, request_names, budget)
    except EngineError as exc:
        fail(str(exc), 1)
    for notice in engine.notices():
        click.secho(f"note: {notice}", err=True, fg="yellow")
    return feed


@click.group("context")
def context_group() -> None:
    """Instruction skills as context for the model: list, pin, import."""


@context_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
@pass_state
def context_list(state: CliState, as_json: bool) -> None:
    """Every context block (skills without tools, imported blocks), with tokens and pins."""
    engine = state.engine()
    pinned = set(engine.feed.pinned())
    blocks = all_blocks(engine)
    if as_json:
        print_json([{**b.to_dict(), "pinned": b.name in pinned} for b in blocks])
        return
    if not blocks:
        click.echo("No context blocks. `gibberish context scan` finds other agents' skills.")
        return
    rows = [
        ["*" if b.name in pinned else "", b.name, str(b.tokens), b.trust, printable(b.description)]
        for b in blocks
    ]
    click.echo(table(["PIN", "NAME", "TOKENS", "TRUST", "DESCRIPTION"], rows, flex=4))


@context_group.command("show")
@click.argument("name")
@pass_state
def context_show(state: CliState, name: str) -> None:
    """A block's text, its token estimate and where it came from."""
    block = _find(state.engine(), name)
    counted = _count(block.body).shown()
    click.echo(f"# {block.name}  ({counted}, {block.trust}, from {printable(block.source)})")
    click.echo(block.body)


def _count(text: str) -> TokenCount:
    """The block's tokens: the model server's tokenizer when it has one, else an estimate."""
    from gibberish.assistant.token_count import count_tokens
    from gibberish.settings import load_settings

    return count_tokens(text, load_settings().settings.model)


@context_group.command("pin")
@click.argument("name")
@pass_state
def context_pin(state: CliState, name: str) -> None:
    """Always put NAME in front of model requests."""
    engine = state.engine()
    block = _find(engine, name)
    changed = engine.feed.pin(block.name)
    click.echo(
        f"{'Pinned' if changed else 'Already pinned:'} {block.name} (~{block.tokens} tokens)."
    )


@context_group.command("unpin")
@click.argument("name")
@pass_state
def context_unpin(state: CliState, name: str) -> None:
    """Stop adding a block to every model request."""
    if not state.engine().feed.unpin(name):
        fail(f"{name!r} is not pinned.", 1)
    click.echo(f"Unpinned {name}.")


@context_group.command("scan")
@click.argument("folders", nargs=-1, type=click.Path(path_type=Path, file_okay=False, exists=True))
@click.option("--import", "picked", multiple=True, metavar="NAME", help="Import this one.")
@click.option("--all", "import_all", is_flag=True, help="Import every one that can be.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")
def context_scan(
    folders: tuple[Path, ...], picked: tuple[str, ...], import_all: bool, as_json: bool
) -> None:
    """Find instruction skills in other agents' folders (~/.claude/skills ...) and import them."""
    from gibberish.assistant.context_folders import scan

    found = scan([("folder", f.expanduser()) for f in folders] if folders else None)
    if as_json and not (picked or import_all):
        print_json([c.to_dict() for c in found])
        return
    if not (picked or import_all):
        _print_checklist(found)
        return
    chosen = [c for c in found if (import_all and not c.problem) or c.name in picked]
    missing = set(picked) - {c.name for c in found}
    if missing:
        fail(f"Not found in the scanned folders: {', '.join(sorted(missing))}.", 1)
    raise SystemExit(0 if _import_each(chosen) else 1)


def _import_each(chosen: list[Any]) -> bool:
    """Import each candidate, saying what became of it; False when one failed."""
    from gibberish.assistant.context_folders import ImportError_, import_candidate, replaces

    ok = True
    for candidate in chosen:
        verb = "Replaced" if replaces(candidate.name) else "Imported"
        try:
            block = import_candidate(candidate)
        except (ImportError_, OSError) as exc:
            click.secho(f"gibberish: {printable(str(exc))}", err=True, fg="red")
            ok = False
            continue
        click.echo(
            f"{verb} {block.name} (~{block.tokens} tokens, estimated; untrusted) from "
            f"{printable(block.source)}."
        )
    return ok


@context_group.command("import")
@click.argument("source")
def context_import(source: str) -> None:
    """Import context blocks from SOURCE: a .md file, a .zip (or any archive), a folder,
    a raw .md URL, a GitHub folder URL, or any source `install` takes. Importing a name
    again replaces that block."""
    from gibberish.assistant.context_folders import ImportError_
    from gibberish.install.context_import import import_context

    try:
        results = import_context(source)
    except ImportError_ as exc:
        fail(str(exc), 1)
    for result in results:
        block = result.block
        verb = "Replaced" if result.replaced else "Imported"
        click.echo(
            f"{verb} {block.name} ({_count(block.body).shown()}; untrusted) from "
            f"{printable(block.source)}."
        )
        for warning in result.warnings:
            click.secho(f"warning: {printable(warning)}", err=True, fg="yellow")


def _print_checklist(found: list[Candidate]) -> None:
    if not found:
        click.echo("No skills found in ~/.claude/skills, ~/.codex/skills, ~/.cursor/skills, ...")
        return
    rows = []
    for c in found:
        box = "[-]" if c.problem else "[ ]"
        note = c.problem or printable(c.description)
        rows.append([box, c.name, str(c.tokens), c.agent, note])
    click.echo(table(["", "NAME", "TOKENS", "FROM", "DESCRIPTION"], rows, flex=4))
    click.echo("Import with: gibberish context scan --import NAME [--import NAME ...] (or --all)")


@context_group.command("remove")
@click.argument("name")
def context_remove(name: str) -> None:
    """Delete an imported block (skills in the skills folders are left alone)."""
    from gibberish.assistant.context_folders import remove_imported

    if not remove_imported(name):
        fail(f"{name!r} is not an imported context block.", 1)
    click.echo(f"Removed {name}.")


COMMANDS = [context_group]
