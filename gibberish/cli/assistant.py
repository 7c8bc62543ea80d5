"""``gibberish prompt``, ``gibberish parse-call`` and ``gibberish ask``: the model feed.

A model's call is a proposal: ``ask`` puts it through ``Engine.prepare`` and the same
approve-and-run path as ``gibberish run``, so a model can never skip an approval.
"""

from __future__ import annotations

import json
import sys

import click

from gibberish.app import Engine, EngineError, ToolRef
from gibberish.cli.common import CliState, fail, pass_state, print_json, printable
from gibberish.cli.run import execute, refuse
from gibberish.settings import MODEL_APIS
from gibberish.skills.model import Mode
from gibberish.skills.render import RenderError

MODE_CHOICE = click.Choice([m.value for m in Mode], case_sensitive=False)


def _mode(engine: Engine, value: str | None) -> Mode:
    if value is None:
        return engine.mode_context().mode
    return next(m for m in Mode if m.value.lower() == value.lower())


@click.command("prompt")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["functiongemma", "openai", "text"]),
    default="functiongemma",
    show_default=True,
    help="FunctionGemma's prompt, OpenAI's tools JSON, or a plain list for reading.",
)
@click.option("--mode", type=MODE_CHOICE, help="Offer the tools of this mode (default: current).")
@click.option("--budget", type=click.IntRange(min=1), help="Token budget for the declarations.")
@click.option("--request", default="", help="The user's request (also ranks tools by relevance).")
@click.option(
    "--context", "context_names", multiple=True, metavar="NAME", help="Attach this context block."
)
@click.option("--context-budget", type=click.IntRange(min=1), help="Tokens for context blocks.")
@pass_state
def prompt_command(
    state: CliState,
    fmt: str,
    mode: str | None,
    budget: int | None,
    request: str,
    context_names: tuple[str, ...],
    context_budget: int | None,
) -> None:
    """Print the tool manifest a model sees: FunctionGemma prompt, OpenAI tools JSON, or text."""
    from gibberish.assistant import render_plain_manifest, render_prompt, select_tools, tool_schemas
    from gibberish.assistant.budget import functiongemma_cost, json_cost
    from gibberish.assistant.context import with_context
    from gibberish.cli.context import context_feed

    engine = state.engine()
    catalog = engine.catalog(_mode(engine, mode))
    budget = budget or engine.settings.model.budget
    cost = json_cost if fmt == "openai" else functiongemma_cost
    chosen = select_tools(catalog.tools, request, budget, cost=cost).tools
    feed = context_feed(engine, context_names, request, context_budget)
    user_turn = with_context(feed.text, request)
    if fmt == "functiongemma":
        click.echo(render_prompt(chosen, user_turn), nl=False)
    elif fmt == "openai" and feed.text:
        print_json(
            {"tools": tool_schemas(chosen), "messages": [{"role": "user", "content": user_turn}]}
        )
    elif fmt == "openai":
        print_json(tool_schemas(chosen))
    else:
        click.echo(render_plain_manifest(chosen), nl=False)
        if feed.text:
            click.echo(f"\n{feed.text}")


@click.command("parse-call")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["functiongemma"]),
    default="functiongemma",
    show_default=True,
    help="The format of the model output on stdin.",
)
@click.option("--mode", type=MODE_CHOICE, help="Validate against this mode's tools (default: all).")
@pass_state
def parse_call_command(state: CliState, fmt: str, mode: str | None) -> None:
    """Read model output on stdin; print its calls, validated and coerced. Exit 0 when all are ok."""
    from gibberish.assistant import parse_calls, validate_call

    engine = state.engine()
    catalog = engine.catalog(_mode(engine, mode) if mode else None)
    text = sys.stdin.read()
    parsed = parse_calls(text)
    calls = [validate_call(call, catalog).to_dict() for call in parsed.calls]
    out: dict = {"calls": calls}
    if not parsed.calls:
        out["error"] = parsed.reason or "no function call found in the input"
    print_json(out)
    ok = bool(calls) and all(c["status"] == "ok" for c in calls)
    raise SystemExit(0 if ok else 1)


@click.command("ask")
@click.argument("text")
@click.option(
    "--endpoint", help="Model server URL (default from settings: http://127.0.0.1:11434)."
)
@click.option("--model", "model_name", help="Model name (default from settings: functiongemma).")
@click.option("--api", type=click.Choice(MODEL_APIS), help="How to talk to the server.")
@click.option("--mode", type=MODE_CHOICE, help="Offer the tools of this mode (default: current).")
@click.option("--dry-run", is_flag=True, help="Print the call and the argv; run nothing.")
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Answer yes to the question for this one run, only for a skill you already "
    "approved or a bundled one: a skill you never approved is still asked about (and not "
    "run without a terminal), because the model chose it, not you.",
)
@click.option(
    "--context", "context_names", multiple=True, metavar="NAME", help="Attach this context block."
)
@click.option("--context-budget", type=click.IntRange(min=1), help="Tokens for context blocks.")
@click.option("--json", "compact", is_flag=True, help="Print the envelope as one JSON line.")
@pass_state
def ask_command(
    state: CliState,
    text: str,
    endpoint: str | None,
    model_name: str | None,
    api: str | None,
    mode: str | None,
    dry_run: bool,
    yes: bool,
    context_names: tuple[str, ...],
    context_budget: int | None,
    compact: bool,
) -> None:
    """Route a request through the local model, then approve and run the tool it chose."""
    from gibberish.assistant import ModelError, RouteStatus, client_for
    from gibberish.cli.context import context_feed

    engine = state.engine()
    settings = engine.model_settings(endpoint=endpoint, model=model_name, api=api)
    feed = context_feed(engine, context_names, text, context_budget)
    try:
        route = engine.route(
            text, mode=_mode(engine, mode), client=client_for(settings), context=feed.text
        )
    except ModelError as exc:
        fail(str(exc), 1)
    if route.status is not RouteStatus.OK:
        _explain(route)
        raise SystemExit(1)
    call = route.call
    assert call is not None and call.exposed is not None
    ref = ToolRef(call.exposed.skill, call.exposed.tool)
    try:
        prepared = engine.prepare(ref, call.arguments, context_dir=None)
    except (EngineError, RenderError) as exc:
        refuse(str(exc), compact=compact)
    if dry_run:
        print_json(
            {
                "call": call.to_dict(),
                "confidence": route.confidence,
                "argv": list(prepared.argv),
                "cwd": str(prepared.cwd),
                "decision": {
                    "kind": prepared.decision.kind.value,
                    "reason": prepared.decision.reason,
                },
            }
        )
        raise SystemExit(0)
    chosen = json.dumps(dict(call.arguments), ensure_ascii=False)
    click.echo(f"model chose {printable(prepared.ref)} {printable(chosen)}", err=True)
    execute(engine, prepared, yes=yes, compact=compact, model_chose=True)


def _explain(route) -> None:
    from gibberish.assistant import RouteStatus

    click.secho(f"gibberish: {route.message or route.status.value}", err=True, fg="red")
    if route.status is RouteStatus.NEEDS_ARGUMENTS and route.call is not None:
        call = route.call
        args = " ".join(f"--arg {name}=…" for name in call.missing)
        click.echo(f"  try: gibberish run {call.skill}.{call.tool} {args}", err=True)
    if route.candidates:
        click.echo("  did you mean one of these?", err=True)
        for match in route.candidates:
            exposed = match.item
            click.echo(
                f"    {exposed.skill.name}.{exposed.tool.name}  {exposed.tool.description}",
                err=True,
            )


COMMANDS = [prompt_command, parse_call_command, ask_command]
