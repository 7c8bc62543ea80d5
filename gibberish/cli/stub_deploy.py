"""``gibberish stub --target``: choosing the agents and reporting each deployment."""

from __future__ import annotations

import os
from pathlib import Path

import click

from gibberish.cli.common import fail, printable, table
from gibberish.export import agents
from gibberish.export.stub_deploy import deploy, runtime_dir


def _home() -> Path:
    return Path(os.path.expanduser("~"))


def chosen_agents(names: tuple[str, ...]) -> list[agents.AgentTarget]:
    """The agents named (comma-separated or repeated); an unknown name is an error."""
    chosen = []
    for name in (n.strip() for each in names for n in each.split(",") if n.strip()):
        try:
            chosen.append(agents.target(name))
        except KeyError as exc:
            fail(str(exc.args[0]))
    return chosen


def runtime_out(project: Path | None, global_: bool) -> Path:
    return runtime_dir(
        home=_home(), project=project.resolve() if project else None, global_=global_
    )


def deploy_and_report(
    built: Path, targets: list[agents.AgentTarget], *, project: Path | None, copy: bool
) -> None:
    """Deploy ``built`` and print one row per agent folder; exit 1 if any was left alone."""
    home = _home()
    done = deploy(
        built, targets, home=home, project=project.resolve() if project else None, copy=copy
    )

    def shown(path: Path) -> str:
        try:
            return "~/" + str(path.relative_to(home))
        except ValueError:
            return str(path)

    rows = [[", ".join(d.targets), d.method, shown(d.path), d.reason] for d in done]
    click.echo(
        table(
            ["target", "method", "path", "reason"],
            [[printable(c) for c in r] for r in rows],
            flex=3,
        )
    )
    if not all(d.ok for d in done):
        raise SystemExit(1)
