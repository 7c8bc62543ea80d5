"""``gibberish listen`` and ``gibberish voice …``: speech → a proposed call, on a terminal.

What was heard is a proposal like a model's call: ``listen`` takes it the one path from a
proposal to a run (``proposed_runs``, ``prepare_proposed``) and the same approve-and-run
path as ``gibberish run`` and ``ask``.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click
from msgspec.structs import replace

from gibberish.cli.assistant import MODE_CHOICE, _mode
from gibberish.cli.common import CliState, fail, pass_state, print_json, table
from gibberish.cli.run import execute, refuse
from gibberish.engine.core import Engine, EngineError
from gibberish.engine.run_flow import prepare_proposed, proposed_runs
from gibberish.skills.model import Mode, tool_ref
from gibberish.skills.render import RenderError
from gibberish.voice import spoken
from gibberish.voice.settings import VOICE_BACKENDS

if TYPE_CHECKING:
    from gibberish.assistant.heard import Heard
    from gibberish.assistant.proposal import Proposal
    from gibberish.voice.audio import AudioSource
    from gibberish.voice.whisper_install import Plan


def _source(engine: Engine, file: Path | None) -> AudioSource:
    from gibberish.voice import MicrophoneSource, VoiceError, WavSource

    try:
        if file is not None:
            return WavSource(file)
        device = engine.settings.voice.microphone
        return MicrophoneSource(int(device) if device.isdigit() else device or None)
    except VoiceError as exc:
        fail(str(exc), 1)


def _hand_to_tray() -> bool:
    """True when a running tray took the ``listen`` request (see ui/single_instance)."""
    try:
        from gibberish.ui.single_instance import LISTEN, hand_over
    except ImportError:  # Qt missing: there is no tray to hand it to
        return False
    return hand_over(LISTEN)


def _describe(proposal: Proposal[Heard]) -> str:
    heard = proposal.heard
    ms = heard.timings.get("latency", 0.0) * 1000
    said = heard.quoted() if heard.text else "nothing usable"
    unusual = proposal.call.unusual if proposal.call is not None else ()
    return (
        f"heard {said}: confidence {heard.confidence:.2f}, {heard.backend}, "
        f"proposal {ms:.0f} ms after the end of speech"
    ) + (f"; check {'; '.join(unusual)}" if unusual else "")


def _explain(proposal: Proposal[Heard]) -> None:
    from gibberish.assistant.proposal import ProposalStatus

    click.secho(f"gibberish: {proposal.message}", err=True, fg="red")
    call = proposal.call
    if proposal.status is ProposalStatus.NEEDS_ARGUMENTS and call is not None:
        args = " ".join(f"--arg {name}=…" for name in call.missing)
        click.echo(
            f"  try: gibberish run {tool_ref(call.skill or '', call.tool or '')} {args}", err=True
        )
    if proposal.candidates:
        click.echo("  closest tools:", err=True)
        for match in proposal.candidates:
            exposed = match.item
            click.echo(
                f"    {tool_ref(exposed.skill.name, exposed.tool.name)}  {exposed.tool.description}",
                err=True,
            )


@click.command("listen")
@click.option(
    "--file",
    "file",
    type=click.Path(path_type=Path),
    help="Decode this recording (WAV of any rate and width, FLAC, Ogg) instead of the microphone.",
)
@click.option("--backend", type=click.Choice(VOICE_BACKENDS), help="Default from settings.")
@click.option("--mode", type=MODE_CHOICE, help="Offer the tools of this mode (default: current).")
@click.option(
    "--dry-run", is_flag=True, help="Print what was heard, the call and the argv; run nothing."
)
@click.option(
    "--yes",
    "-y",
    is_flag=True,
    help="Answer yes to the question for this one run, only for a skill you already "
    "approved (never for one you did not).",
)
@click.option("--json", "compact", is_flag=True, help="Print JSON on one line.")
@click.option("--here", is_flag=True, help="Listen in this terminal even when the tray runs.")
@pass_state
def listen_command(
    state: CliState,
    file: Path | None,
    backend: str | None,
    mode: str | None,
    dry_run: bool,
    yes: bool,
    compact: bool,
    here: bool,
) -> None:
    """Listen for one spoken request, then approve and run the tool it names.

    From the microphone, with the tray running, the request is handed to the tray (so a
    desktop shortcut bound to ``gibberish listen`` is push-to-talk); --here keeps it here.
    """
    if file is None and not (here or dry_run or compact or backend) and _hand_to_tray():
        click.echo("Listening in the running gibberish.", err=True)
        return
    engine = state.engine()
    proposal = _hear(engine, file, _mode(engine, mode), backend, compact)
    run = proposed_runs(proposal)[0]
    call = run.call
    try:
        prepared = prepare_proposed(engine, run)
    except (EngineError, RenderError) as exc:
        refuse(str(exc), compact=compact)
    if dry_run or compact:
        out = proposal.to_dict()
        out["argv"] = list(prepared.argv)
        out["decision"] = {"kind": prepared.decision.kind.value, "reason": prepared.decision.reason}
        print_json(out, compact=compact)
        if dry_run:
            raise SystemExit(0)
    args = json.dumps(dict(call.arguments), ensure_ascii=False)
    click.echo(f"proposed {prepared.ref} {args}", err=True)
    # What was heard is a proposal, as a model's call is: misheard speech, or audio someone
    # else plays, must not run a skill nobody approved, so --yes covers what `ask --yes` does.
    execute(engine, prepared, yes=yes, compact=compact, model_chose=True)


def _hear(
    engine: Engine, file: Path | None, mode: Mode, backend: str | None, compact: bool
) -> Proposal[Heard]:
    """One spoken request, proposed as a call; anything else ends the command, saying why."""
    from gibberish.assistant.proposal import ProposalStatus

    if file is None:
        reason = spoken.may_listen(engine, mode, asked=True, microphone=True)
        if reason:
            fail(reason, 1)
    source = _source(engine, file)
    try:
        proposal = spoken.listen(engine, source, mode=mode, backend=backend)
    except EngineError as exc:
        fail(str(exc), 1)
    if not compact:
        click.echo(_describe(proposal), err=True)
    if proposal.status is not ProposalStatus.OK:
        if compact:
            print_json(proposal.to_dict(), compact=True)
        _explain(proposal)
        raise SystemExit(1)
    return proposal


@click.group("voice")
def voice_group() -> None:
    """The voice grammar and the microphones."""


@voice_group.command("grammar")
@click.option("--mode", type=MODE_CHOICE, help="The tools of this mode (default: current).")
@pass_state
def grammar_command(state: CliState, mode: str | None) -> None:
    """Print the JSGF grammar generated from the loaded tools' spoken forms."""
    engine = state.engine()
    grammar = spoken.voice_grammar(engine, _mode(engine, mode))
    click.echo(grammar.text, nl=False)
    for problem in grammar.problems:
        click.secho(f"note: {problem}", err=True, fg="yellow")


@voice_group.command("devices")
def devices_command() -> None:
    """List the microphones PortAudio sees (the default is marked *)."""
    from gibberish.voice import VoiceError, input_devices

    try:
        devices = input_devices()
    except VoiceError as exc:
        fail(str(exc), 1)
    if not devices:
        from gibberish.voice.microphones import NO_MICROPHONE, sound_server

        server = sound_server()
        fail((server.trouble() if server is not None else "") or NO_MICROPHONE, 1)
    rows = [
        [
            ("* " if d.is_default else "  ") + str(d.index),
            d.name,
            str(d.channels),
            f"{d.default_rate:.0f}",
        ]
        for d in devices
    ]
    click.echo(table(["#", "name", "channels", "rate"], rows, flex=1))


@voice_group.command("setup")
@click.option("--yes", "-y", is_flag=True, help="Download without asking (the size is still said).")
@pass_state
def setup_command(state: CliState, yes: bool) -> None:
    """Set Whisper up: download it into gibberish's environment, check it, switch to it.

    The size is said first; Ctrl-C during the download stops it and changes nothing.
    Only a model that heard a test recording correctly is switched to.
    """
    from gibberish.voice import whisper_install

    engine = state.engine()
    click.echo("Finding out what Whisper needs…", err=True)
    try:
        plan = whisper_install.plan()
    except whisper_install.SetupError as exc:
        fail(str(exc), 1)
    click.echo(plan.sentence(), err=True)
    if plan.downloads and not yes:
        if not sys.stdin.isatty():
            fail("Nothing was downloaded: run again with --yes to agree to the download.", 1)
        if not click.confirm("Download and set it up?", default=True, err=True):
            raise SystemExit(1)
    model = _install_with_bar(plan, threading.Event())
    voice = replace(engine.settings.voice, model_folder=model, second_opinion=True)
    engine.update_settings(replace(engine.settings, voice=voice))
    click.echo(
        "Whisper is set up and heard a test recording correctly; it now checks what the "
        f"tools' phrases hear (model: {model}).",
        err=True,
    )


def _install_with_bar(plan: Plan, cancel: threading.Event) -> str:
    """Runs the install on a thread under a progress bar; Ctrl-C cancels the download."""
    from gibberish.voice import whisper_install

    outcome: list[object] = []
    seen: list[tuple[str, int]] = [("", 0)]

    def progress(what: str, done: int, _total: int) -> None:
        seen[0] = (what, done)

    def work() -> None:
        try:
            outcome.append(whisper_install.install(plan, progress, cancel))
        except whisper_install.SetupError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=work, name="whisper-setup", daemon=True)
    worker.start()
    show = _bar(plan.size) if sys.stderr.isatty() else _lines(plan.size)
    while worker.is_alive():
        try:
            worker.join(0.2)
        except KeyboardInterrupt:
            cancel.set()
            click.echo("\nCancelling…", err=True)
        show(*seen[0], not worker.is_alive())
    result = outcome[0] if outcome else whisper_install.SetupError("Setting up Whisper stopped.")
    if isinstance(result, whisper_install.SetupError):
        fail(str(result), 1)
    return str(result)


def _bar(size: int) -> Callable[[str, int, bool], None]:
    """A terminal's progress bar of ``size`` bytes."""
    bar = click.progressbar(length=max(size, 1), label="Setting up Whisper", file=sys.stderr)
    bar.__enter__()
    shown = [0]

    def show(_what: str, done: int, last: bool) -> None:
        step = min(done, size) - shown[0]
        if step > 0:
            bar.update(step)
            shown[0] += step
        if last:
            bar.__exit__(None, None, None)

    return show


def _lines(size: int) -> Callable[[str, int, bool], None]:
    """For a log rather than a terminal: a line each time the step or the tenth changes."""
    said: list[tuple[str, int]] = []

    def show(what: str, done: int, _last: bool) -> None:
        tenth = 10 * min(done, size) // max(size, 1)
        if what and (not said or said[-1] != (what, tenth)):
            said.append((what, tenth))
            click.echo(f"Setting up Whisper: {what} {10 * tenth}%", err=True)

    return show


COMMANDS = [listen_command, voice_group]
