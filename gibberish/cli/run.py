"""``gibberish run SKILL.TOOL``: render, decide, maybe ask, run, print the envelope.

The question asked here is the same one the tray's approval dialog asks, built from the
Engine's ``Decision`` and applied by ``run_flow.authorize`` (the tray's rule too): without
a terminal nothing that needs asking runs unless ``--yes``, and ``--yes`` never covers a
skill nobody approved when a model chose it (``gibberish ask``).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import NoReturn

import click

from gibberish.cli.arguments import parse_cli_arguments
from gibberish.cli.common import CliState, pass_state, print_json, printable
from gibberish.engine.core import MAX_TIMEOUT, Engine, EngineError, PreparedRun
from gibberish.engine.run_flow import Answer, authorize, never_approved
from gibberish.runner import Envelope
from gibberish.skills.model import SkillDefinition, ToolDefinition, Trust
from gibberish.skills.render import RenderError


def stdin_is_tty() -> bool:
    return sys.stdin is not None and sys.stdin.isatty()


REACH_LABELS = {"gui": "display", "credentials": "reads", "reads-outside": "outside"}
"""The prompt's short label for each of ``PreparedRun.reaches``."""


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
        f"  skill     {printable(skill.name)} ({where_from(skill, trusted=decision.banner is None)}) "
        f"{printable(str(skill.directory))}"
    )
    if prepared.came_from:
        lines.append(f"  from      {printable(prepared.came_from)}")
    lines.append(f"  argv      {printable(json.dumps(list(prepared.argv), ensure_ascii=False))}")
    lines.append(f"  folder    {printable(str(prepared.cwd))}")
    lines.append(f"  timeout   {prepared.timeout:g} s")
    lines.append(f"  network   {'yes' if prepared.network else 'no'}")
    for reach in prepared.reaches:
        shown = printable(", ".join(reach.what))
        lines.append(f"  {REACH_LABELS[reach.key]:<9} {shown} ({reach.why})")
    if prepared.secrets:
        lines.append(f"  secrets   {printable(', '.join(prepared.secrets))} (given to this run)")
    lines.extend(f"  also runs {printable(line)}" for line in prepared.also_runs)
    if decision.can_always_allow:
        lines.extend(file_lines(prepared.covered_files))
    if decision.changed_files:
        lines.append("  changed since your approval:")
        lines.extend(f"            {printable(line)}" for line in decision.changed_files.lines())
        lines.extend(diff_lines(prepared.changed_diff))
    lines.append(f"  why       {printable(decision.reason)}")
    if prepared.asks_again:
        lines.append(f"  next time {printable(prepared.asks_again)}")
    return "\n".join(lines)


def where_from(skill: SkillDefinition, *, trusted: bool) -> str:
    """The skill's trust in a few words: bundled, yours, came with a project folder, or
    installed (and whether this version is trusted)."""
    if skill.trust is Trust.BUNDLED:
        return "bundled"
    if skill.trust is Trust.USER:
        return "yours"
    from gibberish.trust.projects import untrusted_project_of

    if untrusted_project_of(skill.directory) is not None:
        return "came with a project folder you have not trusted"
    return "installed, this version trusted" if trusted else "installed from outside"


def file_lines(files: Sequence[str]) -> list[str]:
    """Every file trusting this version covers, one a line under a ``files`` label."""
    label = "  files     "
    return [f"{label if i == 0 else ' ' * len(label)}{printable(f)}" for i, f in enumerate(files)]


def diff_lines(diff: str) -> list[str]:
    """The diff against the approved copy, under a ``diff`` label (none when empty)."""
    label = "  diff      "
    return [
        f"{label if i == 0 else ' ' * len(label)}{printable(line)}"
        for i, line in enumerate(diff.splitlines())
    ]


ANSWERS = {
    "y": Answer.ONCE,
    "yes": Answer.ONCE,
    "o": Answer.ONCE,
    "once": Answer.ONCE,
    "a": Answer.ALWAYS,
    "always": Answer.ALWAYS,
    "n": Answer.CANCEL,
    "no": Answer.CANCEL,
    "": Answer.CANCEL,
}
"""Every answer the approval prompt understands; the default (Enter) is no."""


def read_answer(prepared: PreparedRun, attempts: int = 3) -> Answer:
    """Ask on the terminal until the answer is one of ``ANSWERS``; anything else, 3 times, is no.

    One prompt for every question: "always" is offered only where it means something
    (a first run); answered anyway to a confirmation, it allows this one run.
    """
    always = prepared.decision.can_always_allow
    prompt = (
        "Run it? [y]es once / [a]lways: trust this version / [N]o" if always else "Run it? [y/N]"
    )
    for _ in range(attempts):
        typed = click.prompt(prompt, default="", show_default=False, err=True)
        answer = ANSWERS.get(typed.strip().lower())
        if answer is not None:
            return answer if always or answer is not Answer.ALWAYS else Answer.ONCE
        click.echo(f"Please answer {'y, a or n' if always else 'y or n'}.", err=True)
    return Answer.CANCEL


def ask(prepared: PreparedRun) -> Answer:
    """Show the facts, then the question."""
    click.echo(describe(prepared), err=True)
    return read_answer(prepared)


def _emit(envelope: Envelope, compact: bool) -> None:
    print_json(envelope.to_dict(), compact=compact)


def refuse(message: str, *, compact: bool) -> NoReturn:
    """Nothing ran: say why on stderr and print the ``exit_code: null`` envelope."""
    click.secho(f"gibberish: {printable(message)}", err=True, fg="red")
    _emit(Envelope.before_start(message), compact)
    raise SystemExit(1)


def _terminal(model_chose: bool, compact: bool) -> Callable[[PreparedRun], Answer]:
    """The ``ask`` of ``run_flow.authorize`` on a terminal, or the refusal without one."""

    def answer(prepared: PreparedRun) -> Answer:
        if stdin_is_tty():
            return ask(prepared)
        refuse(without_a_terminal(prepared, model_chose), compact=compact)

    return answer


def without_a_terminal(prepared: PreparedRun, model_chose: bool) -> str:
    """Why a run that needs a question does not start without a terminal, and commands
    that work: each one, run as shown, does what the sentence says."""
    why = prepared.decision.reason
    yourself = f"`{prepared.run_yourself}`"
    if model_chose and prepared.decision.person_must_answer and not never_approved(prepared):
        return (
            f"{why} There is no terminal to ask on, and --yes does not answer this "
            f"question. Run `gibberish ask` in a terminal, or run it yourself: {yourself}."
        )
    if model_chose and never_approved(prepared):
        trust = ""
        if not prepared.decision.person_must_answer and prepared.decision.first_run:
            trust = (
                f"Trust this version with `gibberish approvals approve {prepared.skill.name}` "
                "(after that --yes covers it), "
            )
        return (
            f"{prepared.ref} was picked for you (by the model, or from what was heard), "
            f"and you have not approved it ({why}); there is no terminal to ask on, and "
            f"--yes does not cover a skill you never approved. {trust}"
            f"{'or r' if trust else 'R'}un `gibberish ask` in a terminal, or run it "
            f"yourself: {yourself}."
        )
    trust = ""
    if prepared.decision.first_run and prepared.decision.runs_once_trusted:
        trust = (
            f", or trust this version with `gibberish approvals approve {prepared.skill.name}` "
            "(then it runs without asking)"
        )
    return (
        f"{prepared.ref} needs approval ({why}) and there is no terminal to ask on. "
        f"Run it in a terminal, or pass --yes to approve this one run{trust}."
    )


def execute(
    engine: Engine, prepared: PreparedRun, *, yes: bool, compact: bool, model_chose: bool = False
) -> NoReturn:
    """The decision table on a terminal (``run_flow.authorize``), then the run."""
    banner = prepared.decision.banner
    if banner and yes:  # --yes skips the prompt, never the warning
        click.secho(f"WARNING: {printable(banner)}", err=True, fg="red", bold=True)
    verdict = authorize(
        engine, prepared, _terminal(model_chose, compact), yes=yes, model_chose=model_chose
    )
    if verdict.refused:
        refuse(verdict.refused, compact=compact)
    try:
        result = engine.runs.run(prepared, confirmed=verdict.confirmed)
    except EngineError as exc:
        refuse(str(exc), compact=compact)
    _emit(result.envelope, compact)
    if result.envelope.truncated and result.log_path and not compact:
        click.echo(f"full output: {printable(str(result.log_path))}", err=True)
    raise SystemExit(0 if result.envelope.success else 1)


YES_HELP = (
    "Answer yes to the approval question for this one run (nothing is remembered). "
    "Imported skills still show their warning."
)


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
    "--timeout",
    type=click.FloatRange(min=0, max=MAX_TIMEOUT, min_open=True),
    help=f"Seconds before the run is stopped (overrides the skill; at most {MAX_TIMEOUT:g}).",
)
@click.option("--json", "compact", is_flag=True, help="Print the envelope as one JSON line.")
@click.option("--yes", "-y", is_flag=True, help=YES_HELP)
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
        ref = engine.library.find_tool(target)
        args = parse_cli_arguments(ref.tool, pairs, args_json)
        prepared = engine.runs.prepare(
            ref, args, cwd=cwd, context_dir=Path.cwd(), timeout=timeout, own_run=True
        )
    except (EngineError, RenderError) as exc:
        refuse(str(exc), compact=compact)
    lacking = folder_problem(ref.tool, prepared.cwd)
    if lacking:
        refuse(lacking, compact=compact)
    execute(engine, prepared, yes=yes, compact=compact)


def folder_problem(tool: ToolDefinition, folder: Path) -> str:
    """What the working folder lacks for ``tool``, with the recent folders that fit and
    the flag that picks one ("" when nothing is missing): the form's rule."""
    from gibberish.engine import needs, run_history
    from gibberish.paths import home_short

    title = tool.name.replace("_", " ").capitalize()
    lacking = needs.lacking(tool, title, folder)
    if not lacking:
        return ""
    fits = needs.fitting(tool, run_history.folders())
    where = ", ".join(home_short(f) for f in fits[:3])
    also = f" Recent folders that have one: {where}." if where else ""
    return f"{lacking} Run it from inside one, or pass --cwd FOLDER.{also}"


COMMANDS = [run_command]
