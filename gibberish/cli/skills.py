"""``gibberish skills``: list, check, show and render skills without running anything."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import click

from gibberish.cli.arguments import parse_cli_arguments
from gibberish.cli.common import (
    CliState,
    FullHelpGroup,
    fail,
    pass_state,
    print_json,
    printable,
    table,
)
from gibberish.engine.core import EngineError
from gibberish.skills.disabled import disabled_names
from gibberish.skills.fields import E_NO_SKILL_FILE, error
from gibberish.skills.kind import INSTRUCTIONS, skill_kind
from gibberish.skills.library import SkillLibrary, SkillSource
from gibberish.skills.model import Diagnostic, Mode, Profile, SkillDefinition, Trust, tool_ref
from gibberish.skills.named_files import missing_warnings
from gibberish.skills.parser import parse_skill_file
from gibberish.skills.render import RenderError
from gibberish.skills.serialize import skill_to_dict
from gibberish.words import plural


def _display(diagnostic: Diagnostic) -> str:
    """``file:line: error CODE: message`` with the file relative to the current folder."""
    if diagnostic.file:
        try:
            rel = os.path.relpath(diagnostic.file)
        except ValueError:
            rel = diagnostic.file
        if not rel.startswith(".."):
            location = f"{rel}:{diagnostic.line}" if diagnostic.line else rel
            return printable(
                f"{location}: {diagnostic.severity.value} {diagnostic.code}: {diagnostic.message}"
            )
    return printable(diagnostic.format())


def _status(skill: SkillDefinition, overrides: bool = False) -> str:
    status = "ok"
    if not skill.ok:
        status = plural(len(skill.errors), "error")
    elif skill.warnings:
        status = f"ok, {plural(len(skill.warnings), 'warning')}"
    return f"{status}, overrides" if overrides else status


def _row(skill: SkillDefinition, overrides: bool = False) -> list[str]:
    """One line of ``skills list``: every field from the skill escaped for the terminal."""
    return [
        printable(skill.name),
        printable(skill.version or "-"),
        skill.trust.value,
        skill_kind(skill),
        str(len(skill.tools)),
        _status(skill, overrides),
        printable(" ".join(skill.description.split())),
    ]


@click.group("skills", cls=FullHelpGroup)
def skills_group() -> None:
    """List, check, show and render skills."""


@skills_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the stable JSON described in README.")
@click.option(
    "--mode",
    type=click.Choice([m.value for m in Mode], case_sensitive=False),
    help="Only skills offered in this mode.",
)
@pass_state
def list_command(state: CliState, as_json: bool, mode: str | None) -> None:
    """Every skill gibberish found, broken ones included."""
    engine = state.engine()
    skills = engine.library.skills()
    if mode:
        wanted = Mode(mode.capitalize())
        skills = [s for s in skills if s.available_in(wanted)]
    overrides = engine.library.overrides()
    if as_json:
        print_json([_with_override(skill_to_dict(s), overrides.get(s.name)) for s in skills])
        return
    if not skills:
        click.echo("No skills found. Put skills in ~/.config/gibberish/skills/<name>/SKILL.md.")
        return
    rows = [_row(s, s.name in overrides) for s in skills]
    rows += [[printable(n), "-", "-", "-", "-", "disabled", "turned off (`gibberish enable`)"]
             for n in _disabled(engine.library)]  # fmt: skip
    click.echo(
        table(["NAME", "VERSION", "TRUST", "KIND", "TOOLS", "STATUS", "DESCRIPTION"], rows, flex=6)
    )
    shown = {s.name for s in skills}
    for name, warning in overrides.items():
        if name in shown:
            click.echo(f"\n{name} overrides another skill: {printable(warning.message)}")
    broken = [s for s in skills if not s.ok]
    if broken:
        click.echo(
            f"\n{plural(len(broken), 'skill')} failed to load; see `gibberish skills check`."
        )


def _disabled(library: Any) -> list[str]:
    """Skills turned off in the library's folders (``gibberish disable``), by name."""
    return sorted({n for source in library.sources() for n in disabled_names(source.path)})


def _with_override(data: dict, warning: Diagnostic | None) -> dict:
    """A skill's JSON, plus ``overrides`` (the warning naming both folders) when it hides
    a skill of the same name."""
    if warning is not None:
        data["overrides"] = warning.message
    return data


def _library_only(diagnostics: list[Diagnostic], skills: list[SkillDefinition]) -> list[Diagnostic]:
    """Diagnostics about the folders themselves (overrides, unreadable folders ...)."""
    own = {d for s in skills for d in s.diagnostics}
    return [d for d in diagnostics if d not in own]


def _check_targets(
    paths: tuple[Path, ...], profile: Profile
) -> tuple[list[SkillDefinition], list[Diagnostic]]:
    skills: list[SkillDefinition] = []
    extra: list[Diagnostic] = []
    checker = SkillLibrary([], profile=profile)
    for path in paths:
        if path.name == "SKILL.md" and os.path.lexists(path):
            # a skill folder's own SKILL.md: read exactly as the library reads it
            skills.append(checker.load_folder(path.parent))
        elif path.is_file():
            skills.append(parse_skill_file(path, profile=profile, trust=Trust.USER))
        elif os.path.lexists(path / "SKILL.md"):
            # one code path decides what loads: links out, loops, FIFOs, the entry limit
            skills.append(checker.load_folder(path))
        elif path.is_dir():
            library = SkillLibrary([SkillSource(path, Trust.USER)], profile=profile)
            library.load()
            found = library.skills()
            skills.extend(found)
            extra.extend(_library_only(library.diagnostics(), found))
            if not found:  # as `install` says: nothing to check is an error
                extra.append(
                    error(
                        E_NO_SKILL_FILE,
                        f"no SKILL.md in {path} or the folders inside it; a skill is a folder "
                        "holding a SKILL.md.",
                        str(path),
                        None,
                    )
                )
        else:
            fail(f"{path}: no such file or folder.")
    return skills, extra


@skills_group.command("check")
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option(
    "--profile",
    type=click.Choice([p.value for p in Profile]),
    default=Profile.GIBBERISH.value,
    show_default=True,
    help="gibberish: skills the tray runs; agentskills: skills for other agents (tools optional).",
)
@click.option("--json", "as_json", is_flag=True, help="Print skills and diagnostics as JSON.")
@pass_state
def check_command(state: CliState, paths: tuple[Path, ...], profile: str, as_json: bool) -> None:
    """Validate skills: a SKILL.md, a skill folder, or a folder of skills (default: all loaded).

    Exits 0 when there are no errors (warnings never fail), 1 otherwise.
    """
    if paths:
        skills, extra = _check_targets(paths, Profile(profile))
    else:
        engine = state.engine()
        skills = engine.library.skills()
        extra = _library_only(engine.library.diagnostics(), skills)
    diagnostics = extra + [d for s in skills for d in (*s.diagnostics, *missing_warnings(s))]
    errors = sum(d.is_error for d in diagnostics)
    warnings = len(diagnostics) - errors
    if as_json:
        print_json(
            {
                "ok": errors == 0,
                "errors": errors,
                "warnings": warnings,
                "skills": [skill_to_dict(s) for s in skills],
                "diagnostics": [d.to_dict() for d in extra],
            }
        )
    else:
        for d in diagnostics:
            click.echo(_display(d))
        summary = (
            f"{plural(len(skills), 'skill')} checked: {plural(errors, 'error')}, "
            f"{plural(warnings, 'warning')}."
        )
        instructions = [s.name for s in skills if skill_kind(s) == INSTRUCTIONS]
        if instructions and profile == Profile.GIBBERISH.value:
            click.echo(
                f"Instruction skills (no tools; valid Agent Skills, not tray tools): "
                f"{printable(', '.join(instructions))}."
            )
        click.secho(summary, fg="red" if errors else "green", err=False)
    raise SystemExit(1 if errors else 0)


@skills_group.command("show")
@click.argument("name")
@click.option("--json", "as_json", is_flag=True, help="Print the skill as JSON (as `list --json`).")
@pass_state
def show_command(state: CliState, name: str, as_json: bool) -> None:
    """Everything about one skill: fields, tools, parameters, commands, problems."""
    try:
        skill = state.engine().library.require(name)
    except EngineError as exc:
        fail(str(exc), 1)
    if as_json:
        print_json(skill_to_dict(skill))
        return
    click.secho(printable(f"{skill.name} {skill.version}"), bold=True)
    click.echo(printable(skill.description))
    modes = ", ".join(m.value for m in skill.modes)
    click.echo(
        f"\n  path      {printable(str(skill.directory))}\n  trust     {skill.trust.value}\n  modes     {modes}\n"
        f"  read_only {str(skill.read_only).lower()}   always_ask {str(skill.always_ask).lower()}   "
        f"network {str(skill.network).lower()}   timeout {skill.timeout_secs}s"
    )
    if skill.author:
        click.echo(f"  author    {printable(skill.author)}")
    if skill.secrets:
        click.echo(f"  secrets   {printable(', '.join(skill.secrets))}")
    for tool in skill.tools:
        click.secho("\n" + printable(tool_ref(skill.name, tool.name)), bold=True)
        click.echo(f"  {printable(tool.description)}")
        for p in tool.parameters:
            req = "required" if p.required else "optional"
            default = f", default {p.default!r}" if p.default is not None else ""
            line = f"{p.name} ({p.type.value}, {req}{default}) {p.description}"
            click.echo(f"    {printable(line)}")
        if tool.command:
            click.echo(f"  $ {printable(tool.command.source.strip())}")
    if skill.diagnostics:
        click.echo("")
        for d in skill.diagnostics:
            click.echo(_display(d))


@skills_group.command("render")
@click.argument("target", metavar="SKILL.TOOL")
@click.option(
    "--arg", "pairs", multiple=True, metavar="NAME=VALUE", help="A parameter (repeatable)."
)
@click.option("--args-json", metavar="JSON", help='Parameters as a JSON object: {"count": 5}.')
@click.option("--json", "as_json", is_flag=True, help="Print the argv as a JSON array.")
@pass_state
def render_command(
    state: CliState, target: str, pairs: tuple[str, ...], args_json: str | None, as_json: bool
) -> None:
    """Print the argv a tool would run with these arguments, without running it."""
    engine = state.engine()
    try:
        ref = engine.library.find_tool(target)
        args = parse_cli_arguments(ref.tool, pairs, args_json)
        argv = engine.runs.render(ref, args)
    except (EngineError, RenderError) as exc:
        fail(str(exc), 1)
    if as_json:
        print_json(argv, compact=True)
    else:
        width = len(str(len(argv) - 1))
        for i, word in enumerate(argv):
            click.echo(f"[{i:>{width}}] {printable(word)}")


COMMANDS = [skills_group]
