"""``gibberish approvals``, ``gibberish secrets`` and ``gibberish mode``.

Thin on purpose: whether an approval still covers a skill, which secrets a skill may
hold, and what a mode change means are the Engine's rules; this module prints them.
"""

from __future__ import annotations

import click

from gibberish.cli.common import (
    CliState,
    FullHelpGroup,
    fail,
    pass_state,
    print_json,
    printable,
    table,
)
from gibberish.engine.core import ApprovalPreview, EngineError
from gibberish.skills.model import Mode
from gibberish.words import plural


@click.group("approvals", cls=FullHelpGroup)
def approvals_group() -> None:
    """Which skills you allowed to run without asking first."""


@approvals_group.command("list")
@click.option("--json", "as_json", is_flag=True, help="Print the approvals as a JSON array.")
@pass_state
def approvals_list(state: CliState, as_json: bool) -> None:
    """Every approval, and whether the skill on disk is still the one you approved."""
    engine = state.engine()
    statuses = engine.trust.approval_list()
    for notice in engine.notices():
        click.secho(f"note: {printable(notice)}", err=True, fg="yellow")
    if as_json:
        print_json(
            [
                {
                    "skill": s.record.skill,
                    "digest": s.record.digest,
                    "approved_at": str(s.record.approved_at),
                    "path": str(s.record.path) if s.record.path else None,
                    "status": s.status,
                }
                for s in statuses
            ]
        )
    elif not statuses:
        click.echo(
            "No approvals yet. A skill is approved the first time you choose “Trust this version”."
        )
    else:
        rows = [
            [printable(s.record.skill), s.record.digest[:12], str(s.record.approved_at), s.status]
            for s in statuses
        ]
        click.echo(table(["SKILL", "FINGERPRINT", "APPROVED", "STATUS"], rows))


@approvals_group.command("approve")
@click.argument("skill_name", metavar="SKILL")
@click.option("--yes", is_flag=True, help="Trust it without asking (needed without a terminal).")
@pass_state
def approvals_approve(state: CliState, skill_name: str, yes: bool) -> None:
    """Trust a skill as it is on disk now: shows where it came from and every file the
    approval covers, then asks. From then on your own runs of it go without a question,
    until any of its files changes."""
    from gibberish.cli import run as run_cli

    trust = state.engine().trust
    try:
        preview = trust.approval_preview(skill_name)
    except EngineError as exc:
        fail(str(exc), 1)
    click.echo(describe_preview(preview), err=True)
    if not yes:
        if not run_cli.stdin_is_tty():
            fail(
                "There is no terminal to ask on; to trust this version anyway: "
                f"gibberish approvals approve {printable(skill_name)} --yes",
                1,
            )
        if not click.confirm("Trust this version?", default=False, err=True):
            fail("Not trusted.", 1)
    try:
        trust.approve_preview(preview)
    except EngineError as exc:
        fail(str(exc), 1)
    fp = preview.fingerprint
    click.echo(
        f"Approved {printable(skill_name)} ({fp.digest[:12]}, {plural(len(fp.files), 'file')}): "
        "your own runs of it go without a question until any of these files changes."
    )


def describe_preview(preview: ApprovalPreview) -> str:
    """What ``approvals approve`` trusts, in the order of the run prompt: the skill, where
    it came from, every file the approval covers, and what changed since an earlier one."""
    from gibberish.cli.run import diff_lines, file_lines, where_from
    from gibberish.trust.explain import changed_diff

    skill = preview.skill
    lines = [
        click.style(f"Trust this version of {printable(skill.name)}?", bold=True),
        f"  skill     {printable(skill.name)} ({where_from(skill, trusted=preview.approved)}) "
        f"{printable(str(skill.directory))}",
    ]
    if preview.came_from:
        lines.append(f"  from      {printable(preview.came_from)}")
    lines.extend(file_lines(preview.files))
    if preview.changed_files:
        lines.append("  changed since your approval:")
        lines.extend(f"            {printable(line)}" for line in preview.changed_files.lines())
        lines.extend(diff_lines(changed_diff(skill.directory, preview.changed_files)))
    if preview.approved:
        lines.append("  status    this version is already trusted")
    return "\n".join(lines)


@approvals_group.command("revoke")
@click.argument("skill_name", metavar="SKILL")
@pass_state
def approvals_revoke(state: CliState, skill_name: str) -> None:
    """Forget a skill's approval: it asks again on its next run."""
    if state.engine().trust.revoke(skill_name):
        click.echo(f"Revoked the approval of {printable(skill_name)}.")
    else:
        fail(f"{printable(skill_name)} has no approval to revoke.", 1)


@approvals_group.command("reset")
@click.option("--yes", is_flag=True, help="Do not ask for confirmation.")
@pass_state
def approvals_reset(state: CliState, yes: bool) -> None:
    """Forget every approval."""
    if not yes:
        click.confirm("Forget every approval?", abort=True, err=True)
    state.engine().trust.reset()
    click.echo("All approvals removed.")


@click.group("secrets", cls=FullHelpGroup)
def secrets_group() -> None:
    """Secrets a skill declares (`secrets: [NAME]`), kept in the system keyring."""


@secrets_group.command("set")
@click.argument("skill_name", metavar="SKILL")
@click.argument("name")
@pass_state
def secrets_set(state: CliState, skill_name: str, name: str) -> None:
    """Store a secret's value (asked without echo; piped stdin works too)."""
    engine = state.engine()
    try:
        engine.trust.check_secret(skill_name, name)  # before the prompt, not after
        value = click.prompt(f"Value for {name}", hide_input=True, err=True)
        skill = engine.trust.store_secret(skill_name, name, value)
    except EngineError as exc:
        fail(str(exc), 1)
    click.echo(
        f"Stored {printable(name)} for {printable(skill_name)}. "
        f"Only the skill in {printable(str(skill.directory))} receives it."
    )
    warning = engine.trust.secret_storage_warning()
    if warning:
        click.secho(f"warning: {printable(warning)}", err=True, fg="yellow")


@secrets_group.command("list")
@click.argument("skill_name", metavar="SKILL")
@pass_state
def secrets_list(state: CliState, skill_name: str) -> None:
    """Which of a skill's secrets are set (names only, never values)."""
    try:
        status = state.engine().trust.secret_status(skill_name)
    except EngineError as exc:
        fail(str(exc), 1)
    if not status:
        click.echo(f"{printable(skill_name)} declares no secrets.")
        return
    rows = [
        [
            printable(name),
            "set" if stored else "missing",
            "declared" if declared else "not declared",
        ]
        for name, (stored, declared) in status.items()
    ]
    click.echo(table(["NAME", "VALUE", "SKILL.md"], rows))


@secrets_group.command("delete")
@click.argument("skill_name", metavar="SKILL")
@click.argument("name")
@pass_state
def secrets_delete(state: CliState, skill_name: str, name: str) -> None:
    """Remove a stored secret from the keyring."""
    if state.engine().trust.delete_secret(skill_name, name):
        click.echo(f"Deleted {printable(name)} for {printable(skill_name)}.")
    else:
        fail(f"{printable(skill_name)} has no stored secret {printable(repr(name))}.", 1)


@secrets_group.command("source")
@click.argument("host")
@click.option("--delete", is_flag=True, help="Forget the token for HOST.")
def secrets_source(host: str, delete: bool) -> None:
    """Keep a token for downloads from a private HOST (sent as a Bearer header over https),
    so no source needs `?token=` or `user:token@` in it. Git uses its credential helper."""
    from gibberish.install import source_auth

    if delete:
        done = source_auth.forget(host)
        click.echo(f"Forgot the token for {printable(host)}." if done else "No token was kept.")
        return
    token = click.prompt(f"Token for {host}", hide_input=True, err=True)
    try:
        source_auth.store(host, token)
    except Exception as exc:  # keyring backends raise their own types
        fail(f"cannot store the token in the keyring: {type(exc).__name__}", 1)
    if source_auth.header_for(f"https://{host}/") != {"Authorization": f"Bearer {token}"}:
        fail(  # read back as a download would: a backend that keeps nothing is not "stored"
            f"The token for {printable(host)} was not stored: the keyring gave nothing back. "
            "Run `gibberish doctor` to see which keyring is in use.",
            1,
        )
    click.echo(f"Stored a token for downloads from {printable(host)} (in the keyring).")


@click.group("mode", cls=FullHelpGroup, invoke_without_command=True)
@click.pass_context
def mode_group(ctx: click.Context) -> None:
    """Show or set the mode (Global, Dev, Meeting, Writer) that decides which skills are offered."""
    if ctx.invoked_subcommand is None:
        ctx.invoke(mode_show)


@mode_group.command("show")
@pass_state
def mode_show(state: CliState) -> None:
    """The current mode and why (detected from the focused app, or set by hand)."""
    context = state.engine().mode_context()
    how = "automatic" if context.automatic else "manual"
    click.echo(f"{context.mode.value} ({how}: {printable(context.reason)})")


@mode_group.command("set")
@click.argument("mode", type=click.Choice([m.value for m in Mode], case_sensitive=False))
@pass_state
def mode_set(state: CliState, mode: str) -> None:
    """Pin a mode: detection stays off until `gibberish mode auto`."""
    chosen = next(m for m in Mode if m.value.lower() == mode.lower())
    state.engine().set_mode(chosen)
    click.echo(
        f"Mode set to {chosen.value} (manual). `gibberish mode auto` turns detection back on."
    )


@mode_group.command("auto")
@pass_state
def mode_auto(state: CliState) -> None:
    """Turn mode detection back on (the mode follows the focused app)."""
    state.engine().set_mode(None)
    click.echo("Mode detection is automatic.")


COMMANDS = [approvals_group, secrets_group, mode_group]
