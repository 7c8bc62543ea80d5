"""``gibberish doctor``: which protections are in force on this machine, and what is missing.

What a skill declares (``read_only``, ``network: false``) is enforced by the sandbox
only where bubblewrap works; elsewhere it is the author's word. This command says which
it is here, and whether secrets are kept encrypted, so nobody has to guess.
"""

from __future__ import annotations

import click
from msgspec.structs import asdict

from gibberish.cli.common import CliState, pass_state, print_json
from gibberish.desktop.detect import capabilities


def _offline_sockets(active: bool) -> dict[str, object]:
    """Whether an offline run is kept from the host's Unix sockets (seccomp + hidden folders)."""
    from gibberish.runner import seccomp

    missing = seccomp.why_unavailable() if active else None
    if not active:
        detail = "not enforced"
    elif missing:
        detail = f"socket folders hidden, but {missing}"
    else:
        detail = "refused (socket folders hidden; only IP sockets inside the empty network, by a seccomp filter)"
    return {"check": "offline sockets", "ok": active and not missing, "detail": detail}


def _checks(state: CliState) -> list[dict[str, object]]:
    engine = state.build_engine()
    sandbox = engine.sandbox_status()
    checks: list[dict[str, object]] = [
        {
            "check": "sandbox",
            "ok": sandbox.active,
            "detail": (
                f"active: {sandbox.detail}"
                if sandbox.active
                else f"not active: {sandbox.detail} {sandbox.advice}".strip()
            ),
        },
        {
            "check": "read_only",
            "ok": sandbox.active,
            "detail": "enforced (read-only file system)" if sandbox.active else "not enforced",
        },
        {
            "check": "network: false",
            "ok": sandbox.active,
            "detail": "enforced (own network namespace)" if sandbox.active else "not enforced",
        },
        _offline_sockets(sandbox.active),
        {
            "check": "model credentials",
            "ok": sandbox.active,
            "detail": (
                "hidden from model-started runs, and refused when a model names one"
                if sandbox.active
                else "refused when a model names one; a tool that walks your home "
                "folder by itself is not stopped without the sandbox"
            ),
        },
    ]
    warning = engine.trust.secret_storage_problem()
    checks.append(
        {
            "check": "secrets",
            "ok": warning is None,
            "detail": warning or "kept by the system keyring, bound to each skill's folder",
        }
    )
    checks += [asdict(c) for c in capabilities()]  # the desktop: backend, shortcuts, tray
    return checks


@click.command("doctor")
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON.")
@pass_state
def doctor_command(state: CliState, as_json: bool) -> None:
    """Say which protections are active here (sandbox, read_only, network, secrets) and
    what the desktop offers (focused-app backend, global shortcuts, tray)."""
    checks = _checks(state)
    if as_json:
        print_json(checks)
        return
    for check in checks:
        mark = click.style("ok  ", fg="green") if check["ok"] else click.style("warn", fg="yellow")
        click.echo(f"{mark} {check['check']:<17} {check['detail']}")


COMMANDS = [doctor_command]
