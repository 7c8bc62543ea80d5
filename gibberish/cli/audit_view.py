"""Showing an audit (:mod:`gibberish.install.audit`) and asking about its high findings.

Shared by ``install``, ``update`` and ``audit``: a high finding is never accepted by
``--yes`` alone; it takes ``--accept-risks``, or a yes to its own question at a terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

import click

from gibberish.cli.common import printable
from gibberish.install.audit import HIGH, Audit, Finding
from gibberish.install.discover import InstallError
from gibberish.words import plural

ACCEPT_RISKS = click.option(
    "--accept-risks",
    "accept_risks",
    is_flag=True,
    help="Go ahead although the audit found something high-risk (read it first).",
)


def show_audit(
    audit: Audit, findings: Sequence[Finding] | None = None, indent: str = "    "
) -> None:
    """The audit under a skill of the preview: what it can do, then what looks wrong."""
    shown = audit.findings if findings is None else findings
    info = [line for line in audit.lines() if not any(line == f.format() for f in audit.findings)]
    for line in info:
        click.echo(f"{indent}{printable(line)}")
    for finding in shown:
        colour = "red" if finding.severity == HIGH else "yellow"
        click.secho(f"{indent}{printable(finding.format())}", fg=colour)


def accept_findings(
    audits: Sequence[Audit],
    *,
    yes: bool,
    accept: bool,
    interactive: bool,
    findings: Sequence[Finding] | None = None,
) -> bool:
    """True to go ahead. High findings (of ``findings``, default all) need ``accept``, or a
    yes at a terminal when ``--yes`` was not given; otherwise an InstallError says how."""
    pool = findings if findings is not None else [f for a in audits for f in a.findings]
    high = [f for f in pool if f.severity == HIGH]
    if not high or accept:
        return True
    names = sorted({a.skill for a in audits if any(f in high for f in a.findings)})
    if interactive and not yes:
        return click.confirm(
            f"The audit found {plural(len(high), 'high-risk finding')} in {', '.join(names)} (in red "
            "above). Go ahead anyway?",
            default=False,
        )
    raise InstallError(
        f"Nothing changed: the audit found {plural(len(high), 'high-risk finding')} in "
        f"{', '.join(names)} (listed above), which --yes alone does not accept. Read them; "
        "to go ahead anyway, run again with --accept-risks."
    )
