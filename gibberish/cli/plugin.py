"""``gibberish plugin build``: your skills as one plugin folder for coding agents.

Thin: :mod:`gibberish.export.plugin` writes the folder; this picks the skills, asks
about each MCP server a skill wants (or takes ``--allow-mcp``), and prints what was
written and what was left out.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

from gibberish.cli.common import CliState, fail, pass_state, printable
from gibberish.cli.sync_offer import mcp_consent
from gibberish.engine.core import EngineError
from gibberish.export.plugin import PluginBuildError, build_plugin, choices, default_name
from gibberish.export.plugin_manifests import PluginInfo
from gibberish.skills.model import SkillDefinition
from gibberish.words import plural


@click.group("plugin")
def plugin_group() -> None:
    """Package skills as a plugin for Claude Code, Gemini CLI and Agent Plugins readers."""


def _skills(state: CliState, names: tuple[str, ...]) -> list[SkillDefinition]:
    engine = state.engine()
    if names:
        try:
            return [engine.library.require(name) for name in names]
        except EngineError as exc:
            fail(str(exc))
    chosen = []
    for choice in choices(engine.library.skills()):
        if choice.problem:
            name, problem = choice.skill.name, printable(choice.problem)
            click.secho(f"note: {name} left out: {problem}", err=True, fg="yellow")
        else:
            chosen.append(choice.skill)
    return chosen


@plugin_group.command("build")
@click.argument("skills", nargs=-1)
@click.option(
    "--out",
    required=True,
    type=click.Path(path_type=Path, file_okay=False),
    help="The plugin folder to write (its name is the plugin's name unless --name says).",
)
@click.option("--name", help="The plugin's name (default: the folder's name).")
@click.option(
    "--plugin-version", "version", default="1.0.0", show_default=True, help="Plugin version."
)
@click.option("--description", default="", help="One sentence: what the plugin is for.")
@click.option("--author", default="", help="Who publishes the plugin.")
@click.option("--license", "license_", default="", help="An SPDX licence id such as MIT.")
@click.option("--homepage", default="", help="A web page about the plugin.")
@click.option("--repository", default="", help="Where the plugin's source lives.")
@click.option("--keyword", "keywords", multiple=True, help="A search keyword (repeatable).")
@click.option(
    "--marketplace", is_flag=True, help="Also write .claude-plugin/marketplace.json for it."
)
@click.option(
    "--allow-mcp",
    "allow_mcp",
    multiple=True,
    metavar="NAME",
    help="Agree to put MCP server NAME into the plugin (a skill asks for it).",
)
@click.option(
    "--force",
    is_flag=True,
    help="Replace a plugin gibberish wrote in the --out folder (never files it did not write).",
)
@pass_state
def build_command(
    state: CliState,
    skills: tuple[str, ...],
    out: Path,
    name: str | None,
    version: str,
    description: str,
    author: str,
    license_: str,
    homepage: str,
    repository: str,
    keywords: tuple[str, ...],
    marketplace: bool,
    allow_mcp: tuple[str, ...],
    force: bool,
) -> None:
    """Write SKILLS (default: every skill other agents accept) as one plugin folder.

    The folder holds skills/, plugin.json and mcp.json (Agent Plugins), .claude-plugin/
    (Claude Code) and gemini-extension.json (Gemini CLI), all at the same version.
    """
    chosen = _skills(state, skills)
    info = PluginInfo(
        name=name if name is not None else default_name(out),
        version=version,
        description=" ".join(description.split()),
        author=author,
        license=license_,
        homepage=homepage,
        repository=repository,
        keywords=keywords,
    )
    try:
        built = build_plugin(
            chosen,
            out,
            info,
            marketplace=marketplace,
            consent=mcp_consent(set(allow_mcp), ask=sys.stdin.isatty()),
            replace_own=force,
        )
    except PluginBuildError as exc:
        fail(str(exc))
    except OSError as exc:
        fail(f"{out}: the plugin could not be written ({exc.strerror or exc}); nothing changed.")
    for line in built.skipped_servers:
        click.secho(f"note: MCP server {printable(line)}", err=True, fg="yellow")
    if built.info.name != default_name(out):
        click.secho(
            f"note: Gemini CLI expects the folder to be named {built.info.name}.",
            err=True,
            fg="yellow",
        )
    servers = f" and {plural(len(built.servers), 'MCP server')}" if built.servers else ""
    click.echo(
        f"Built plugin {built.info.name} {built.info.version} with "
        f"{plural(len(built.skills), 'skill')}{servers} in {out}."
    )


COMMANDS = [plugin_group]
