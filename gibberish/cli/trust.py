"""``gibberish approvals``, ``gibberish secrets`` and ``gibberish mode``."""

from __future__ import annotations

import click

from gibberish.app import EngineError
from gibberish.cli.common import CliState, fail, pass_state, print_json, table
from gibberish.skills.model import Mode
from gibberish.trust.fingerprint import skill_fingerprint


@click.group("approvals")
def approvals_group() -> None:
    """Which skills you allowed to run without asking first."""


@approvals_group.command("list")
@click.option("--json", "as_json", is_flag=True)
@pass_state
def approvals_list(state: CliState, as_json: bool) -> None:
    engine = state.engine()
    records = engine.approvals.list()
    current = {s.name: s for s in engine.skills()}
    rows, data = [], []
    for record in records:
        skill = current.get(record.skill)
        if skill is None:
            status = "skill not found"
        else:
            try:
                same = skill_fingerprint(skill).digest == record.digest
            except OSError:
                same = False
            status = "approved" if same else "changed since approval"
        rows.append([record.skill, record.digest[:12], str(record.approved_at), status])
        data.append(
            {
                "skill": record.skill,
                "digest": record.digest,
                "approved_at": str(record.approved_at),
                "path": str(record.path) if record.path else None,
                "status": status,
            }
        )
    for notice in engine.notices():
        click.secho(f"note: {notice}", err=True, fg="yellow")
    if as_json:
        print_json(data)
    elif not rows:
        click.echo(
            "No approvals yet. A skill is approved the first time you choose “Always allow”."
        )
    else:
        click.echo(table(["SKILL", "FINGERPRINT", "APPROVED", "STATUS"], rows))


@approvals_group.command("approve")
@click.argument("skill_name", metavar="SKILL")
@pass_state
def approvals_approve(state: CliState, skill_name: str) -> None:
    """Approve a skill as it is on disk now (every file in its folder)."""
    engine = state.engine()
    try:
        skill = engine.skill(skill_name)
    except EngineError as exc:
        fail(str(exc), 1)
    try:
        fp = skill_fingerprint(skill)
    except OSError as exc:
        fail(f"Cannot approve {skill.name}: {exc}", 1)
    engine.approvals.approve(skill.name, fp, skill_dir=skill.directory)
    click.echo(f"Approved {skill.name} ({fp.digest[:12]}, {len(fp.files)} file(s)).")


@approvals_group.command("revoke")
@click.argument("skill_name", metavar="SKILL")
@pass_state
def approvals_revoke(state: CliState, skill_name: str) -> None:
    """Forget a skill's approval: it asks again on its next run."""
    if state.engine().approvals.revoke(skill_name):
        click.echo(f"Revoked the approval of {skill_name}.")
    else:
        fail(f"{skill_name} has no approval to revoke.", 1)


@approvals_group.command("reset")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@pass_state
def approvals_reset(state: CliState, yes: bool) -> None:
    """Forget every approval."""
    if not yes:
        click.confirm("Forget every approval?", abort=True, err=True)
    state.engine().approvals.reset()
    click.echo("All approvals removed.")


@click.group("secrets")
def secrets_group() -> None:
    """Secrets a skill declares (`secrets: [NAME]`), kept in the system keyring."""


def _declared(state: CliState, skill_name: str, name: str | None = None):
    try:
        skill = state.engine().skill(skill_name)
    except EngineError as exc:
        fail(str(exc), 1)
    if name is not None and name not in skill.secrets:
        declared = ", ".join(skill.secrets) or "none"
        fail(f"Skill {skill_name} does not declare a secret {name!r} (it declares: {declared}).", 1)
    return skill


@secrets_group.command("set")
@click.argument("skill_name", metavar="SKILL")
@click.argument("name")
@pass_state
def secrets_set(state: CliState, skill_name: str, name: str) -> None:
    """Store a secret's value (asked without echo; piped stdin works too)."""
    skill = _declared(state, skill_name, name)
    value = click.prompt(f"Value for {name}", hide_input=True, err=True)
    if not value:
        fail("An empty value was not stored.", 1)
    store = state.engine().secrets
    store.set(skill, name, value)  # bound to this skill's folder, not to its name
    click.echo(f"Stored {name} for {skill_name} (the skill in {skill.directory}).")
    warning = store.plaintext_warning()
    if warning:
        click.secho(f"warning: {warning}", err=True, fg="yellow")


@secrets_group.command("list")
@click.argument("skill_name", metavar="SKILL")
@pass_state
def secrets_list(state: CliState, skill_name: str) -> None:
    """Which of a skill's secrets are set (names only, never values)."""
    skill = _declared(state, skill_name)
    stored = set(state.engine().secrets.names(skill))
    names = sorted(set(skill.secrets) | stored)
    if not names:
        click.echo(f"{skill_name} declares no secrets.")
        return
    rows = [
        [
            n,
            "set" if n in stored else "missing",
            "declared" if n in skill.secrets else "not declared",
        ]
        for n in names
    ]
    click.echo(table(["NAME", "VALUE", "SKILL.md"], rows))


@secrets_group.command("delete")
@click.argument("skill_name", metavar="SKILL")
@click.argument("name")
@pass_state
def secrets_delete(state: CliState, skill_name: str, name: str) -> None:
    skill = _declared(state, skill_name)
    store = state.engine().secrets
    if store.delete(skill, name) | store.delete(skill_name, name):
        click.echo(f"Deleted {name} for {skill_name}.")
    else:
        fail(f"{skill_name} has no stored secret {name!r}.", 1)


@click.group("mode", invoke_without_command=True)
@click.pass_context
def mode_group(ctx: click.Context) -> None:
    """Show or set the mode (Global, Dev, Meeting, Writer) that decides which skills are offered."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(mode_show)


@mode_group.command("show")
@pass_state
def mode_show(state: CliState) -> None:
    context = state.engine().mode_context()
    how = "automatic" if context.automatic else "manual"
    click.echo(f"{context.mode.value} ({how}: {context.reason})")


@mode_group.command("set")
@click.argument("mode", type=click.Choice([m.value for m in Mode], case_sensitive=False))
@pass_state
def mode_set(state: CliState, mode: str) -> None:
    chosen = next(m for m in Mode if m.value.lower() == mode.lower())
    state.engine().set_mode(chosen)
    click.echo(
        f"Mode set to {chosen.value} (manual). `gibberish mode auto` turns detection back on."
    )


@mode_group.command("auto")
@pass_state
def mode_auto(state: CliState) -> None:
    state.engine().set_mode(None)
    click.echo("Mode detection is automatic.")


COMMANDS = [approvals_group, secrets_group, mode_group]
