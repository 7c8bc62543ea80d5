"""``gibberish sync``, ``gibberish compile`` and ``gibberish web``: skills for other agents."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import click
from msgspec import Struct

from gibberish.cli.common import CliState, fail, pass_state, printable, table
from gibberish.cli.sync_offer import mcp_consent, report_unapproved
from gibberish.engine.core import EngineError
from gibberish.export import agents
from gibberish.export.compile import (
    MAX_PROMPT_BYTES,
    CompileError,
    compile_skill,
    write_outputs,
)
from gibberish.export.compile_sources import SourceUnusable, fetched_source, skills_in
from gibberish.export.instruction_files import (
    FORMAT_NAMES,
    InstructionFormat,
    instruction_format,
    plan_format,
)
from gibberish.export.sync import FolderPlan, exportable
from gibberish.export.sync_all import SyncPlan, apply_sync, counts, plan_sync
from gibberish.skills.disclosure import describe_error
from gibberish.skills.model import SkillDefinition, Trust
from gibberish.skills.named_files import missing_warnings
from gibberish.skills.parser import parse_skill_file
from gibberish.words import plural


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def _chosen_targets(names: tuple[str, ...], home: Path) -> list[agents.AgentTarget]:
    if not names:
        found = agents.detect_installed(home)
        if not found:
            fail(
                "no coding agent found (none of ~/.claude, ~/.codex, ~/.gemini, ~/.cursor, "
                "~/.copilot, … and none on PATH); name targets: " + ", ".join(agents.TARGET_NAMES)
            )
        return found
    chosen = []
    for name in names:
        try:
            chosen.append(agents.target(name))
        except KeyError as exc:
            fail(f"{exc.args[0]}; opt-in files: {', '.join(FORMAT_NAMES)}")
    return chosen


def _chosen_skills(
    state: CliState, only: tuple[str, ...], include_bundled: bool
) -> list[SkillDefinition]:
    engine = state.engine()
    if only:
        try:
            return [engine.library.require(name) for name in only]
        except EngineError as exc:
            fail(str(exc))
    return [
        s
        for s in engine.library.skills()
        if (include_bundled or s.trust is not Trust.BUNDLED) and exportable(s)
    ]


def _not_exported(state: CliState, only: tuple[str, ...]) -> list[str]:
    """Skills a sync leaves out whole (a link leading outside, a folder too big to
    check): named, so an agent's copy never differs from gibberish's unsaid."""
    if only:
        return []
    return [
        f"{s.name}: not copied ({s.errors[0].message})"
        for s in state.engine().library.skills()
        if not exportable(s) and s.errors
    ]


def _format_plans(
    formats: list[InstructionFormat],
    skills: list[SkillDefinition],
    home: Path,
    project: Path | None,
    notes: list[str],
) -> list[FolderPlan]:
    """Plans for the opt-in instruction files (AGENTS.md, Copilot, Cursor rules)."""
    plans: list[FolderPlan] = []
    for fmt in formats:
        plan = plan_format(fmt, skills, home=home, project=project)
        if plan is None:
            notes.append(f"{fmt.name}: written only into a project; add --project DIR")
        else:
            plans.append(plan)
    return plans


@click.command("sync")
@click.argument("targets", nargs=-1)
@click.option(
    "--project",
    type=click.Path(path_type=Path, file_okay=False, exists=True),
    help="Sync into this project's folders (.claude/skills, …) instead of your home.",
)
@click.option("--dry-run", is_flag=True, help="Print the plan; write nothing.")
@click.option("--link", is_flag=True, help="Link each skill folder instead of copying it.")
@click.option("--skill", "only", multiple=True, help="Sync only this skill (repeatable).")
@click.option(
    "--include-bundled", is_flag=True, help="Also sync the skills shipped with gibberish."
)
@click.option(
    "--allow-mcp",
    "allow_mcp",
    multiple=True,
    metavar="NAME",
    help="Agree to write MCP server NAME (a skill asks for it; the plan shows its command).",
)
@pass_state
def sync_command(
    state: CliState,
    targets: tuple[str, ...],
    project: Path | None,
    dry_run: bool,
    link: bool,
    only: tuple[str, ...],
    include_bundled: bool,
    allow_mcp: tuple[str, ...],
) -> None:
    """Copy your skills into other agents' skills folders (default: the agents installed).

    Targets: claude-code, codex, agents, gemini-cli, cursor, copilot, devin, opencode;
    opt-in instruction files: agents-md, copilot-instructions, cursor-rules. Default: the
    `[sync] targets` of config.toml, else the agents found. Only files gibberish wrote and
    nobody edited since are ever updated or removed.
    """
    home = _home()
    named = targets or state.engine().settings.sync_targets  # else [sync] targets
    formats = [f for n in named if (f := instruction_format(n)) is not None]
    agent_names = tuple(n for n in named if instruction_format(n) is None)
    chosen = _chosen_targets(agent_names, home) if agent_names or not formats else []
    skills = _chosen_skills(state, only, include_bundled)
    project = project.resolve() if project is not None else None
    plan = plan_sync(
        skills,
        chosen,
        home=home,
        project=project,
        link=link,
        settings_servers=state.engine().settings.mcp_servers,
        scope=set(only) or None,
        consent=mcp_consent(set(allow_mcp), ask=not dry_run and _interactive()),
    )
    plan.folders.extend(_format_plans(formats, skills, home, project, plan.notes))
    plan.notes.extend(_not_exported(state, only))
    names = ", ".join([*(t.name for t in chosen), *(f.name for f in formats)])
    try:
        _show_and_apply(plan, home, names, dry_run)
    finally:
        if not dry_run:
            from gibberish.cli.restore import lock_after_sync

            lock_after_sync(state, project)


def _show_and_apply(plan: SyncPlan, home: Path, names: str, dry_run: bool) -> None:
    """Print the plan's notes and table; unless ``dry_run``, carry it out (exit 1 when a
    write failed)."""
    for note in plan.notes:
        click.secho(f"note: {note}", err=True, fg="yellow")
    rows = plan.rows(home, all_steps=True)
    if not rows:
        click.echo(f"Up to date ({names}): nothing to do.")
        return
    click.echo(table(["target", "action", "path", "reason"], rows, flex=2))
    summary = ", ".join(f"{n} {a}" for a, n in sorted(counts(plan).items()))
    if dry_run:
        click.echo(f"\nDry run ({summary}): nothing written.")
        report_unapproved(plan, "gibberish sync")
        return
    errors = apply_sync(plan)
    for error in errors:
        click.secho(f"gibberish: {error}", err=True, fg="red")
    click.echo(f"\nDone ({summary}).")
    report_unapproved(plan, "gibberish sync")
    if errors:
        raise SystemExit(1)


def _interactive() -> bool:
    return sys.stdin.isatty()


def _installed(state: CliState, name: str) -> bool:
    return any(s.name == name for s in state.engine().library.skills())


def _skill_for_compile(state: CliState, ref: str) -> SkillDefinition:
    """An installed skill by name, or a SKILL.md / skill folder given as a path."""
    path = Path(ref)
    looks_like_path = os.sep in ref or ref in (".", "..") or ref.endswith(".md")
    if path.exists() and (looks_like_path or not _installed(state, ref)):
        target = _skill_md_in(path) if path.is_dir() else path
        return parse_skill_file(target, trust=Trust.USER)
    try:
        return state.engine().library.require(ref)
    except EngineError as exc:
        fail(f"{exc} (give a skill name, a skill folder or a SKILL.md path)")


def _skill_md_in(folder: Path) -> Path:
    """The folder's SKILL.md, whatever its case (``SKILL.MD`` as the web page finds it)."""
    if (folder / "SKILL.md").exists():
        return folder / "SKILL.md"
    with contextlib.suppress(OSError):
        for child in sorted(folder.iterdir()):
            if child.name.lower() == "skill.md":
                return child
    return folder / "SKILL.md"


def _refiner(state: CliState) -> Callable[[str], str]:
    from gibberish.assistant import client_for
    from gibberish.export.refine import refine_with

    client = client_for(state.engine().feed.model_settings())
    return lambda text: refine_with(client, text)


@click.command("compile")
@click.argument("skill")
@click.option(
    "--to",
    "target",
    type=click.Choice(["gemini-toml"]),
    default="gemini-toml",
    show_default=True,
    help="What to compile to.",
)
@click.option("--name", help="Command name (default: the skill's name); /art and art both work.")
@click.option(
    "--out",
    "out_dir",
    type=click.Path(path_type=Path, file_okay=False),
    help="Write NAME.toml here (default: the current folder).",
)
@click.option(
    "--zip",
    "zip_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Write a zip with NAME.toml and a README instead.",
)
@click.option(
    "--refine", is_flag=True, help="Let the configured local model reword the instructions."
)
@click.option(
    "--max-kib",
    type=click.IntRange(1, 16384),
    default=MAX_PROMPT_BYTES // 1024,
    show_default=True,
    help="Largest prompt allowed.",
)
@click.option("--stdout", "to_stdout", is_flag=True, help="Print the .toml instead of writing it.")
@click.option(
    "--force", is_flag=True, help="Replace a file of that name gibberish did not write (named)."
)
@pass_state
def compile_command(
    state: CliState,
    skill: str,
    target: str,
    name: str | None,
    out_dir: Path | None,
    zip_path: Path | None,
    refine: bool,
    max_kib: int,
    to_stdout: bool,
    force: bool,
) -> None:
    """Compile SKILL into a self-contained Gemini CLI command.

    SKILL is a skill's name, a skill folder, or any source `install` takes (an archive,
    a URL, a git repository, github:); a source holding several skills gives one .toml
    per skill (with --out).
    """
    if out_dir is not None and zip_path is not None:
        fail("give --out or --zip, not both")
    _require_folders(zip_path)
    options = CompileOptions(name, _refiner(state) if refine else None, max_kib, to_stdout, force)
    try:
        source = fetched_source(skill)
        if source is None:
            _compile_one(_skill_for_compile(state, skill), options, out_dir, zip_path)
            return
        with skills_in(source) as definitions:
            if len(definitions) > 1 and (name or to_stdout or zip_path):
                names = ", ".join(d.name for d in definitions)
                fail(
                    f"{skill} holds {len(definitions)} skills ({names}): compile them into a "
                    "folder with --out (one .toml each), without --name, --stdout or --zip."
                )
            for definition in definitions:
                _compile_one(definition, options, out_dir, zip_path)
    except SourceUnusable as exc:
        fail(str(exc), 1)


class CompileOptions(Struct, frozen=True):
    name: str | None
    refine: Callable[[str], str] | None
    max_kib: int
    to_stdout: bool
    force: bool = False


def _require_folders(zip_path: Path | None) -> None:
    """A zip aimed into a folder that does not exist is a typo to point out, not to
    create (``--out`` makes its folder, as ``~/.gemini/commands`` may not exist yet)."""
    if (
        zip_path is not None
        and not (zip_path.parent if zip_path.parent.parts else Path(".")).is_dir()
    ):
        fail(f"--zip {zip_path}: the folder {zip_path.parent} does not exist; create it first.")


def _compile_one(
    definition: SkillDefinition,
    options: CompileOptions,
    out_dir: Path | None,
    zip_path: Path | None,
) -> None:
    try:
        command = compile_skill(
            definition, options.name, refine=options.refine, max_bytes=options.max_kib * 1024
        )
    except CompileError as exc:
        fail(str(exc))
    for warning in missing_warnings(definition):
        click.secho(f"note: {printable(warning.format())}", err=True, fg="yellow")
    if options.to_stdout:
        click.echo(command.toml(), nl=False)
        return
    notes: list[str] = []
    try:
        written = write_outputs(
            command, out_dir=out_dir, zip_path=zip_path, force=options.force, notes=notes
        )
    except (OSError, ValueError) as exc:
        fail(f"cannot write: {describe_error(exc)}", 1)
    for note in notes:
        click.secho(f"note: {note}", err=True, fg="yellow")
    click.echo(
        f"Wrote {written} (/{command.name}, {plural(len(command.resources), 'file')} inlined)."
    )
    if zip_path is None:
        click.echo(f"Install: cp {written} ~/.gemini/commands/")


@click.command("web")
@click.option(
    "--port",
    type=click.IntRange(0, 65535),
    default=8765,
    show_default=True,
    help="Port to listen on, on 127.0.0.1.",
)
@click.option("--host", default="127.0.0.1", show_default=True, help="Loopback only.")
@click.option(
    "--allow-private-urls",
    is_flag=True,
    help="Let pasted URLs reach this computer or its private network (off: internet only).",
)
@click.option("--no-browser", is_flag=True, help="Print the link; do not open a browser.")
@pass_state
def web_command(
    state: CliState, port: int, host: str, allow_private_urls: bool, no_browser: bool
) -> None:
    """Serve the compile page (upload a skill, preview, download a zip) on 127.0.0.1.

    The link printed carries a secret token made for this launch: only a browser that
    opened it is served (not other pages, not other users of this computer).
    """
    if host not in ("127.0.0.1", "localhost", "::1"):
        fail(f"--host {host}: the page serves your skills and is for this computer only")
    import socket

    import uvicorn

    from gibberish.export.web.app import create_app
    from gibberish.export.web.guard import new_token

    engine = state.engine()

    def current_skills() -> list[SkillDefinition]:
        engine.library.reload()  # cheap: only changed skills are read again
        return engine.library.skills()

    token = new_token()
    bound = "127.0.0.1" if host == "localhost" else host
    family = socket.AF_INET6 if ":" in bound else socket.AF_INET
    sock = socket.socket(family, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind((bound, port))
    except OSError as exc:
        sock.close()
        fail(f"cannot listen on {host}:{port}: {exc}")
    app = create_app(
        current_skills, token=token, bound_host=bound, allow_private_urls=allow_private_urls
    )
    shown = f"[{bound}]" if ":" in bound else bound
    url = f"http://{shown}:{sock.getsockname()[1]}/#token={token}"
    click.echo(f"Compile page: {url}\n(only this link opens it; API docs: /docs; Ctrl+C stops)")
    if not no_browser and (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        import webbrowser

        webbrowser.open(url)
    config = uvicorn.Config(app, log_level="warning")
    uvicorn.Server(config).run(sockets=[sock])


COMMANDS = [sync_command, compile_command, web_command]
