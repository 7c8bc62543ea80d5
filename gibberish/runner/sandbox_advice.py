"""Why bwrap cannot sandbox here, and what the person can do about it.

The most common failure is not a missing package. On Ubuntu 23.10 and later (and other
distributions that followed) AppArmor forbids unprivileged user namespaces unless a
program's profile allows them; an installed ``bwrap`` then fails with ``setting up uid
map: Permission denied``, and telling the person to install bubblewrap would send them
in a circle. This module turns what the probe saw into a :class:`Diagnosis`: what
blocks the sandbox, what that means for their skills, and the fix the distribution
documents (an AppArmor profile that lets ``bwrap`` create user namespaces).
"""

from __future__ import annotations

from pathlib import Path

from msgspec import Struct

PACKAGE = "bubblewrap"
APPARMOR_SWITCH = Path("/proc/sys/kernel/apparmor_restrict_unprivileged_userns")
DEBIAN_SWITCH = Path("/proc/sys/kernel/unprivileged_userns_clone")
MAX_NAMESPACES = Path("/proc/sys/user/max_user_namespaces")

CONSEQUENCE = (
    "Until then read_only and network: false are not enforced, a run can see other "
    "processes, and a read-only skill you added asks before every run."
)
#: The words bwrap prints when a user namespace may not be created (any bwrap version).
_USERNS_REFUSED = (
    "setting up uid map",
    "no permissions to creat",
    "creating new namespace failed",
    "operation not permitted",
)


class Diagnosis(Struct, frozen=True):
    """``detail`` says what is wrong; ``advice`` what to do (both whole sentences)."""

    detail: str
    advice: str


def not_installed() -> str:
    """The advice when there is no bwrap at all."""
    return (
        f"Install the package “{PACKAGE}” (apt install bubblewrap, dnf install bubblewrap) "
        f"so read_only and network: false are enforced. {CONSEQUENCE}"
    )


def _switch_on(path: Path) -> bool | None:
    try:
        return path.read_text().strip() not in {"0", ""}
    except OSError:
        return None


def apparmor_profile(bwrap: str) -> str:
    """The AppArmor profile that lets ``bwrap`` create user namespaces (AppArmor 4)."""
    return (
        "abi <abi/4.0>,\n"
        "include <tunables/global>\n\n"
        f"profile bwrap {bwrap} flags=(unconfined) {{\n"
        "  userns,\n"
        "  include if exists <local/bwrap>\n"
        "}\n"
    )


def _apparmor(bwrap: str, reason: str) -> Diagnosis:
    return Diagnosis(
        detail=(
            f"{bwrap} is installed but may not create a user namespace ({reason}): this "
            "distribution's AppArmor restriction on unprivileged user namespaces "
            "(kernel.apparmor_restrict_unprivileged_userns=1, the default since Ubuntu "
            "23.10) blocks it."
        ),
        advice=(
            f"{CONSEQUENCE} To fix it, allow bwrap to create user namespaces with the "
            "AppArmor profile your distribution documents for it: save\n\n"
            + apparmor_profile(bwrap)
            + "\nas /etc/apparmor.d/bwrap, then run `sudo apparmor_parser -r "
            "/etc/apparmor.d/bwrap` (or `sudo systemctl reload apparmor`) and restart "
            "gibberish. Installing bubblewrap again does not help: it is installed."
        ),
    )


def diagnose(bwrap: str, stderr: str, exit_code: int) -> Diagnosis:
    """What blocks an installed ``bwrap`` whose probe failed with ``stderr``."""
    lines = stderr.strip().splitlines()
    reason = lines[-1].strip() if lines else f"exit code {exit_code}"
    lowered = reason.lower()
    userns = any(words in lowered for words in _USERNS_REFUSED)
    apparmor = _switch_on(APPARMOR_SWITCH)
    if ("setting up uid map" in lowered and "permission denied" in lowered) or (
        userns and apparmor
    ):
        return _apparmor(bwrap, reason)
    if userns and _switch_on(DEBIAN_SWITCH) is False:
        return Diagnosis(
            detail=f"{bwrap} may not create a user namespace ({reason}): they are turned "
            "off (kernel.unprivileged_userns_clone=0).",
            advice=f"{CONSEQUENCE} To fix it, run `sudo sysctl kernel.unprivileged_userns_clone=1` "
            "(and add it to /etc/sysctl.d/ to keep it), then restart gibberish.",
        )
    if userns and _switch_on(MAX_NAMESPACES) is False:
        return Diagnosis(
            detail=f"{bwrap} may not create a user namespace ({reason}): "
            "user.max_user_namespaces is 0.",
            advice=f"{CONSEQUENCE} To fix it, run `sudo sysctl user.max_user_namespaces=15000` "
            "(and add it to /etc/sysctl.d/ to keep it), then restart gibberish.",
        )
    return Diagnosis(
        detail=f"{bwrap} (bubblewrap) cannot create namespaces here ({reason}; are user namespaces "
        "disabled, or is this a container without them?).",
        advice=f"{CONSEQUENCE} In a container, run it with user namespaces allowed "
        "(for example podman, or docker with --security-opt seccomp=unconfined).",
    )
