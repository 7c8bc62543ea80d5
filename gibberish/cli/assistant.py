"""``gibberish prompt``, ``gibberish parse-call`` and ``gibberish ask``: the model feed.

A model's call is a proposal: ``ask`` takes every call the one path from a proposal to a
run (``proposed_runs``, then ``prepare_proposed``) and the same approve-and-run path as ``gibberish run`` (in the caller's working folder, as ``run``
does), so a model can never skip an approval. When the model proposes several calls, each
is shown and run in turn; a call that cannot run (missing arguments, an unusually large
number with nobody at a terminal to confirm it) is skipped with the reason.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from gibberish.cli.common import CliState, fail, pass_state, print_json, printable
from gibberish.cli.quick_exit import finish
from gibberish.cli.run import execute, stdin_is_tty
from gibberish.engine.core import Engine, EngineError
from gibberish.engine.run_flow import ProposedRun, prepare_proposed
from gibberish.settings import MODEL_APIS
from gibberish.skills.model import Mode, tool_ref
from gibberish.skills.render import RenderError

if TYPE_CHECKING:
    from gibberish.assistant.proposal import Proposal

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
    from gibberish.assistant import render_plain_manifest, render_prompt, tool_schemas
    from gibberish.assistant.budget import functiongemma_cost, json_cost
    from gibberish.assistant.context_blocks import with_context
    from gibberish.cli.context_blocks import context_feed

    engine = state.engine()
    index = engine.feed.tool_index(_mode(engine, mode))
    budget = budget or engine.settings.model.budget
    cost = json_cost if fmt == "openai" else functiongemma_cost
    # the index's selection is select_tools' own, without analysing every tool again
    chosen = index.select(request, budget, cost=cost).tools
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
    _report_broken_skills(engine, offered=len(chosen))
    finish(0)


def _report_broken_skills(engine: Engine, *, offered: int) -> None:
    """Skills that failed to load are not in the prompt: say which, and fail when nothing is."""
    broken = engine.library.problems()
    for skill in broken:
        first = skill.errors[0] if skill.errors else None
        where = f": {first.format()}" if first is not None else ""
        click.secho(
            printable(f"gibberish: skill {skill.name!r} failed to load and is not offered{where}"),
            err=True,
            fg="yellow",
        )
    if broken and not offered:
        fail("no tool is offered: every skill failed to load (see above)", 1)


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
    catalog = engine.feed.catalog(_mode(engine, mode) if mode else None)
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
    """Route a request through the local model, then approve and run the tools it chose."""
    from gibberish.assistant import ModelError, client_for
    from gibberish.assistant.outcome import advise
    from gibberish.cli.context_blocks import context_feed
    from gibberish.engine.run_flow import proposed_runs

    engine = state.engine()
    settings = engine.feed.model_settings(endpoint=endpoint, model=model_name, api=api)
    feed = context_feed(engine, context_names, text, context_budget)
    try:
        route = engine.feed.route(
            text, mode=_mode(engine, mode), client=client_for(settings), context=feed.text
        )
    except ModelError as exc:
        fail(str(exc), 1)
    proposal = advise(route, settings.model)
    runs = proposed_runs(proposal)
    if not runs:
        _explain(proposal)
        raise SystemExit(1)
    if len(runs) > 1:
        click.echo(f"model proposed {len(runs)} calls:", err=True)
        for n, run in enumerate(runs, 1):
            click.echo(f"  {n}. {_shown(run.call)}", err=True)
    results = [_one_call(engine, run, dry_run, yes, compact) for run in runs]
    if dry_run:
        report: dict[str, Any] = dict(results[0]) if len(results) == 1 else {"calls": results}
        report["confidence"] = proposal.confidence
        print_json(report)
        finish(0 if all("skipped" not in r for r in results) else 1)
    raise SystemExit(0 if all(r.get("exit") == 0 for r in results) else 1)


def _shown(call: Any) -> str:
    args = json.dumps(dict(call.arguments), ensure_ascii=False)
    return f"{tool_ref(call.skill, call.tool)} {args}"


def _skip_reason(call: Any) -> str | None:
    """Why a proposed call cannot be run from here, or None."""
    if call.missing:
        hint = " ".join(f"--arg {name}=…" for name in call.missing)
        return (
            f"it lacks {', '.join(call.missing)} — run it yourself: "
            f"gibberish run {tool_ref(call.skill, call.tool)} {hint}"
        )
    if call.unusual and not stdin_is_tty():
        return (
            "; ".join(call.unusual)
            + " — not run without a person to confirm it (--yes does not cover this); "
            f"run it yourself with gibberish run {tool_ref(call.skill, call.tool)}"
        )
    if call.unusual:
        question = f"The model chose {'; '.join(call.unusual)} for {tool_ref(call.skill, call.tool)}. Use it?"
        if not click.confirm(question, default=False, err=True):
            return "you declined the value the model chose"
    return None


def _one_call(
    engine: Engine, run: ProposedRun, dry_run: bool, yes: bool, compact: bool
) -> dict[str, Any]:
    """Prepare, approve and run one proposed call; a dict for the report (``exit`` or
    ``skipped``). ``execute`` is the one approve-and-run path of the terminal and ends by
    exiting, so its exit code is taken from ``SystemExit`` and the next call goes on."""
    call = run.call
    reason = _skip_reason(call)
    if reason is not None:
        click.secho(f"gibberish: skipped {_shown(call)}: {reason}", err=True, fg="yellow")
        return {"call": call.to_dict(), "skipped": reason}
    try:
        prepared = prepare_proposed(engine, run, context_dir=Path.cwd())
    except (EngineError, RenderError) as exc:
        click.secho(f"gibberish: skipped {_shown(call)}: {exc}", err=True, fg="yellow")
        return {"call": call.to_dict(), "skipped": str(exc)}
    if dry_run:
        return {
            "call": call.to_dict(),
            "argv": list(prepared.argv),
            "cwd": str(prepared.cwd),
            "decision": {"kind": prepared.decision.kind.value, "reason": prepared.decision.reason},
        }
    chosen = json.dumps(dict(call.arguments), ensure_ascii=False)
    click.echo(f"model chose {printable(prepared.ref)} {printable(chosen)}", err=True)
    try:
        execute(engine, prepared, yes=yes, compact=compact, model_chose=True)
    except SystemExit as done:
        return {"call": call.to_dict(), "exit": done.code}


def _explain(proposal: Proposal[None]) -> None:
    click.secho(f"gibberish: {printable(proposal.message)}", err=True, fg="red")
    if proposal.descriptions:
        click.echo("  did you mean one of these?", err=True)
        for ref, description in proposal.descriptions:
            click.echo(f"    {printable(ref)}  {printable(description)}", err=True)


@click.group("model-key")
def model_key_group() -> None:
    """The API key of an OpenAI-compatible model server, kept in the system keyring."""


@model_key_group.command("set")
def model_key_set() -> None:
    """Store the key (asked without echo; piped stdin works too)."""
    from gibberish.assistant.model_api_key import store_model_api_key
    from gibberish.trust.secrets import SecretStoreError

    if stdin_is_tty():
        value = click.prompt("API key", hide_input=True, err=True)
    else:
        value = sys.stdin.readline().rstrip("\r\n")
    if not value:
        fail("no key given; nothing stored", 1)
    try:
        store_model_api_key(value)
    except SecretStoreError as exc:
        fail(str(exc), 1)
    click.echo("stored the model server's API key in the keyring", err=True)


@model_key_group.command("delete")
def model_key_delete() -> None:
    """Remove the stored key."""
    from gibberish.assistant.model_api_key import delete_model_api_key
    from gibberish.trust.secrets import SecretStoreError

    try:
        existed = delete_model_api_key()
    except SecretStoreError as exc:
        fail(str(exc), 1)
    click.echo("deleted" if existed else "no key was stored", err=True)


COMMANDS = [prompt_command, parse_call_command, ask_command, model_key_group]
