"""``gibberish run SKILL.TOOL``: render, decide, maybe ask, run, print the envelope.

The question asked here is the same one the tray's approval dialog asks, built from the
Engine's ``Decision``: without a terminal nothing that needs asking runs unless ``--yes``.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import NoReturn

import click

from gibberish.app import Engine, EngineError, PreparedRun, parse_cli_arguments
from gibberish.cli.common import CliState, pass_state, print_json, printable
from gibberish.runner import Envelope
from gibberish.skills.render import RenderError


def stdin_is_tty() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


def describe(prepared: PreparedRun) -> str:
    """The facts a person needs before approving, in the same order as the tray dialog."""
    decision = prepared.decision
    skill = prepared.skill
    lines = []
    if decision.banner:
        lines.append(click.style(f"WARNING: {printable(decision.banner)}", fg="red", bold=True))
    lines.append(
        click.style(printable(prepared.ref), bold=True)
        + f" — {printable(prepared.tool.description)}"
    )
    lines.append(
        f"  skill     {printable(skill.name)} ({skill.trust.value}) {printable(str(skill.directory))}"
    )
    lines.append(f"  argv      {printable(json.dumps(list(prepared.argv), ensure_ascii=False))}")
    lines.append(f"  folder    {printable(str(prepared.cwd))}")
    lines.append(f"  timeout   {prepared.timeout:g} s")
    lines.append(f"  network   {'yes' if prepared.network else 'no'}")
    if prepared.secrets:
        lines.append(f"  secrets   {printable(', '.join(prepared.secrets))} (given to this run)")
    lines.extend(f"  runs      {printable(p.describe())}" for p in prepared.programs)
    if decision.changed_files:
        lines.append("  changed since your approval:")
        lines.extend(f"            {printable(line)}" for line in decision.changed_files.lines())
    lines.append(f"  why       {printable(decision.reason)}")
    return "\n".join(lines)


def ask(prepared: PreparedRun) -> str:
    """Returns ``once``, ``always`` or ``no``."""
    click.echo(describe(prepared), err=True)
    if prepared.decision.can_always_allow:
        choices = {"o": "once", "once": "once", "a": "always", "always": "always"}
        prompt = "Run it? [o]nce / [a]lways allow this skill / [N]o"
    else:
        choices = {"y": "once", "yes": "once", "o": "once"}
        prompt = "Run it? [y/N]"
    answer = click.prompt(prompt, default="n", show_default=False, err=True)
    return choices.get(answer.strip().lower(), "no")


def _emit(envelope: Envelope, compact: bool) -> None:
    print_json(envelope.to_dict(), compact=compact)


def refuse(message: str, *, compact: bool) -> NoReturn:
    """Nothing ran: say why on stderr and print the ``exit_code: null`` envelope."""
    click.secho(f"gibberish: {message}", err=True, fg="red")
    _emit(Engine.failure(message), compact)
    raise SystemExit(1)


def execute(engine: Engine, prepared: PreparedRun, *, yes: bool, compact: bool) -> NoReturn:
    """The decision table on a terminal: run, ask (or need ``--yes``), or refuse; then run."""
    decision = prepared.decision
    if decision.refused:
        refuse(decision.reason, compact=compact)
    confirmed = False
    if decision.asks:
        if yes:
            confirmed = True
        elif not stdin_is_tty():
            refuse(
                f"{prepared.ref} needs approval ({decision.reason}) and there is no terminal "
                "to ask on. Run it in a terminal, or pass --yes to approve this one run.",
                compact=compact,
            )
        else:
            answer = ask(prepared)
            if answer == "no":
                refuse("Not run: you declined.", compact=compact)
            if answer == "always":
                engine.approve(prepared)
            confirmed = True
    try:
        result = engine.run(prepared, confirmed=confirmed)
    except EngineError as exc:
        refuse(str(exc), compact=compact)
    _emit(result.envelope, compact)
    if result.envelope.truncated and result.log_path and not compact:
        click.echo(f"full output: {result.log_path}", err=True)
    raise SystemExit(0 if result.envelope.success else 1)


@click.command("run")
@click.argument("target", metavar="SKILL.TOOL")
@click.option(
    "--arg", "pairs", multiple=True, metavar="NAME=VALUE", help="A parameter (repeatable)."
)
@click.option("--args-json", metavar="JSON", help='Parameters as a JSON object: {"count": 5}.')
@click.option(
    "--cwd", type=click.Path(path_type=Path), help="Run here instead of the git root / home."
)
@click.option(
    "--timeout", type=float, help="Seconds before the run is stopped (overrides the skill)."
)
@click.option("--json", "compact", is_flag=True, help="Print the envelope as one JSON line.")
@click.option("--yes", "-y", is_flag=True, help="Approve this one run without asking.")
@pass_state
def run_command(
    state: CliState,
    target: str,
    pairs: tuple[str, ...],
    args_json: str | None,
    cwd: Path | None,
    timeout: float | None,
    compact: bool,
    yes: bool,
) -> None:
    """Run a tool and print its result envelope (exit 0 on success, 1 on failure)."""
    engine: Engine = state.engine()
    try:
        ref = engine.find_tool(target)
        args = parse_cli_arguments(ref.tool, pairs, args_json)
        prepared = engine.prepare(ref, args, cwd=cwd, context_dir=Path.cwd(), timeout=timeout)
    except (EngineError, RenderError) as exc:
        refuse(str(exc), compact=compact)
    execute(engine, prepared, yes=yes, compact=compact)
