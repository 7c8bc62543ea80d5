"""Whether tool runs get a sandbox here, and the one notice when they do not.

A command that runs no tool still says, once, that tools would run unsandboxed
(``gibberish install`` prints it with the settings' notices). This module answers that
without importing what wrapping a run needs (:mod:`gibberish.runner.sandbox`, the
mounts, ``subprocess``): the common answer — Linux, ``bwrap`` on PATH, not turned off —
costs a ``PATH`` lookup. The probe (a real run of ``bwrap``) and the advice for a
failing one import what they need when they run. :mod:`gibberish.runner.sandbox`
re-exports :func:`status`, :func:`reset` and :func:`take_notice`.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading

from msgspec import Struct

SWITCH_VAR = "GIBBERISH_SANDBOX"
#: Every run: its own PID namespace and session (no TIOCSTI into the person's terminal),
#: no capabilities (a run started as root cannot remount the read-only root), and it
#: ends when gibberish does.
ALWAYS = ("--unshare-pid", "--die-with-parent", "--new-session", "--cap-drop", "ALL")
_PROBE_TIMEOUT = 10.0


class SandboxStatus(Struct, frozen=True):
    """Whether runs are wrapped, with what, and a sentence saying so (or why not)."""

    active: bool
    bwrap: str | None
    version: str
    detail: str
    advice: str = ""
    """When not active: what that means for the person's skills and what to do."""


_lock = threading.Lock()
_status: SandboxStatus | None = None
_notice_given = False


def status() -> SandboxStatus:
    """Probe bwrap once per process (a real run of ``true`` with every flag used)."""
    global _status
    with _lock:
        if _status is None:
            _status = _probe()
        return _status


def reset() -> None:
    """Forget the probe and the notice (tests, or after installing bubblewrap)."""
    global _status, _notice_given
    with _lock:
        _status = None
        _notice_given = False


def take_notice() -> str | None:
    """The one-time message for a process that runs tools unsandboxed; None otherwise.

    Cheap: it never starts bwrap itself. Before the first run has probed, only what can
    be seen without starting anything counts (no bwrap, not Linux, turned off); a probe
    that fails later makes the next call return the notice.
    """
    global _notice_given
    with _lock:
        current = _status if _status is not None else _static_status()
        if current is None or current.active or _notice_given:
            return None
        _notice_given = True
    return f"Tools run without a sandbox: {current.detail} {current.advice}".strip()


def _static_status() -> SandboxStatus | None:
    """Why there can be no sandbox, seen without starting anything; None if there may be."""
    turned_off = os.environ.get(SWITCH_VAR, "").lower() in {"off", "0", "no", "false"}
    on_linux = sys.platform.startswith("linux")
    if not turned_off and on_linux and shutil.which("bwrap") is not None:
        return None
    from gibberish.runner import sandbox_advice  # only when something is wrong

    if turned_off:
        return SandboxStatus(
            False,
            None,
            "",
            f"the sandbox is turned off ({SWITCH_VAR}=off).",
            f"Unset {SWITCH_VAR} to use bubblewrap again. {sandbox_advice.CONSEQUENCE}",
        )
    if not on_linux:
        return SandboxStatus(
            False,
            None,
            "",
            f"bubblewrap needs Linux (this is {sys.platform}).",
            sandbox_advice.CONSEQUENCE,
        )
    return SandboxStatus(
        False, None, "", "bwrap was not found on PATH.", sandbox_advice.not_installed()
    )


def _probe() -> SandboxStatus:
    import subprocess

    from gibberish.runner import sandbox_advice

    unavailable = _static_status()
    if unavailable is not None:
        return unavailable
    bwrap = shutil.which("bwrap") or "bwrap"
    probe = [bwrap, *ALWAYS, "--unshare-net"]
    probe += ["--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "--", "true"]
    try:
        done = subprocess.run(
            probe, capture_output=True, timeout=_PROBE_TIMEOUT, stdin=subprocess.DEVNULL
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return SandboxStatus(False, bwrap, "", f"{bwrap} could not be started ({exc}).")
    if done.returncode != 0:
        stderr = done.stderr.decode("utf-8", "replace")
        found = sandbox_advice.diagnose(bwrap, stderr, done.returncode)
        return SandboxStatus(False, bwrap, "", found.detail, found.advice)
    version = _version(bwrap)
    return SandboxStatus(
        True,
        bwrap,
        version,
        f"every run gets its own PID namespace and session, and no capabilities, through "
        f"{bwrap}"
        + (f" ({version})" if version else "")
        + "; read_only mounts the file system read-only, network: false unshares the network"
        " and hides the host's sockets.",
    )


def _version(bwrap: str) -> str:
    import subprocess

    try:
        done = subprocess.run(
            [bwrap, "--version"], capture_output=True, timeout=_PROBE_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.decode("utf-8", "replace").strip()
