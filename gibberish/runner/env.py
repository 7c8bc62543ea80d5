"""The child environment: a short allowlist from the parent, a block list, our variables.

A skill runs with the user's rights, so the least we can do is not hand it the parent's
credentials by accident: everything not on the allowlist is dropped, and anything that
*looks* like a credential is dropped even if it is on the allowlist (``LC_API_KEY`` is
still a key). The skill's own declared secrets are added last, on purpose, after the
blocking: they are the one way a credential reaches a run, and only the run of the skill
that declared it.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Final

from gibberish.runner.spec import RUN_ID_VAR

ALLOWED_NAMES: Final = frozenset(
    {
        "PATH",
        "HOME",
        "USER",
        "LANG",
        "TERM",
        # the desktop session: without these a tool cannot open a window or notify
        "DISPLAY",
        "WAYLAND_DISPLAY",
        "XDG_RUNTIME_DIR",
        "DBUS_SESSION_BUS_ADDRESS",
        "XAUTHORITY",
        # where the person keeps their files: tools that follow the XDG base directories
        # (the bundled notes skills among them) must find the same folders as the tray
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "XDG_CONFIG_DIRS",
        "XDG_DATA_DIRS",
    }
)
#: The POSIX locale categories (``LC_*`` in docs/adr/0008-running-a-tool.md): only these, since ssh forwards
#: any ``LC_`` name a client sets.
LOCALE_NAMES: Final = frozenset(
    {
        "LC_ALL",
        "LC_CTYPE",
        "LC_NUMERIC",
        "LC_TIME",
        "LC_COLLATE",
        "LC_MONETARY",
        "LC_MESSAGES",
        "LC_PAPER",
        "LC_NAME",
        "LC_ADDRESS",
        "LC_TELEPHONE",
        "LC_MEASUREMENT",
        "LC_IDENTIFICATION",
    }
)
#: Names a declared secret may not take: each would change how the program runs (the
#: loader, the shell, an interpreter, git) rather than hand it a credential.
UNSAFE_SECRET_PATTERNS: Final = (
    "PATH",
    "HOME",
    "USER",
    "LANG",
    "TERM",
    "LC_*",
    "LD_*",
    "DYLD_*",
    "BASH_ENV",
    "ENV",
    "BASH_FUNC_*",
    "IFS",
    "SHELLOPTS",
    "BASHOPTS",
    "PS4",
    "PYTHON*",
    "PERL5*",
    "PERLLIB",
    "RUBY*",
    "NODE_OPTIONS",
    "NODE_PATH",
    "JAVA_TOOL_OPTIONS",
    "_JAVA_OPTIONS",
    "GIT_*",
    "GCONV_PATH",
    "TMPDIR",
    "XDG_*",
    "DISPLAY",
    "WAYLAND_DISPLAY",
    "DBUS_SESSION_BUS_ADDRESS",
    "XAUTHORITY",
    "GIBBERISH_*",
)
#: Matched case-insensitively, after the allowlist.
BLOCKED_PATTERNS: Final = (
    "*_TOKEN",
    "*_KEY",
    "*_SECRET",
    "*PASSWORD*",
    "AWS_*",
    "OPENAI_*",
    "ANTHROPIC_*",
    "GITHUB_TOKEN",
)
#: Used when the parent has no PATH (or only relative entries).
DEFAULT_PATH: Final = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
RESERVED_PREFIX: Final = "GIBBERISH_"


def is_allowed(name: str) -> bool:
    """True for the parent variables a child may inherit (before blocking)."""
    return name in ALLOWED_NAMES or name in LOCALE_NAMES


def is_blocked(name: str) -> bool:
    """True for names that look like credentials (case-insensitive)."""
    upper = name.upper()
    return any(fnmatchcase(upper, pattern) for pattern in BLOCKED_PATTERNS)


def sanitize_path(value: str | None) -> str:
    """Keep only absolute PATH entries, once each.

    An empty entry or ``.`` in PATH means "the current directory", and a run's current
    directory is the git root of whatever the user has focused — possibly a repository
    they just cloned. A ``git`` or ``ls`` planted there must never win the lookup.
    """
    entries: list[str] = []
    for entry in (value or "").split(os.pathsep):
        if os.path.isabs(entry) and entry not in entries:
            entries.append(entry)
    return os.pathsep.join(entries) if entries else DEFAULT_PATH


def _check_variable(name: str, value: str) -> None:
    if not name or "=" in name or "\0" in name:
        raise ValueError(f"invalid environment variable name: {name!r}")
    if "\0" in value:
        raise ValueError(f"environment variable {name} contains a NUL character")


def build_environment(
    parent: Mapping[str, str],
    *,
    skill_name: str,
    skill_dir: Path,
    mode: str,
    run_id: str,
    secrets: Mapping[str, str] | None = None,
    pycache_prefix: Path | None = None,
) -> dict[str, str]:
    """The complete environment for one run of one skill.

    Order matters and is the contract: allowlist from ``parent`` → block credential-like
    names → sanitize PATH → inject ``GIBBERISH_SKILL_NAME``, ``GIBBERISH_SKILL_DIR``,
    ``GIBBERISH_MODE``, ``GIBBERISH_RUN_ID`` → add ``secrets`` (allowed even when their
    names match the block list). A secret may not use a ``GIBBERISH_`` name: the run id
    is what finds the run's processes when it has to be killed.
    """
    env = {
        name: value
        for name, value in parent.items()
        if is_allowed(name) and not is_blocked(name) and "\0" not in value
    }
    env["PATH"] = sanitize_path(env.get("PATH"))
    env.update(
        {
            "GIBBERISH_SKILL_NAME": skill_name,
            "GIBBERISH_SKILL_DIR": str(skill_dir),
            "GIBBERISH_MODE": mode,
            RUN_ID_VAR: run_id,
        }
    )
    if pycache_prefix is not None:
        # Python reads and writes bytecode only there, never in the skill's folder, so a
        # planted __pycache__/x.pyc cannot change what an approved script runs.
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env["PYTHONPYCACHEPREFIX"] = str(pycache_prefix)
    for name, value in (secrets or {}).items():
        _check_variable(name, value)
        if name.upper().startswith(RESERVED_PREFIX):
            raise ValueError(f"a secret may not be named {name}: GIBBERISH_ names are reserved")
        if unsafe_secret_name(name):
            raise ValueError(
                f"a secret may not be named {name}: it would change how programs run, "
                "not hand them a credential"
            )
        env[name] = value
    return env


def unsafe_secret_name(name: str) -> bool:
    """True for names that steer a program (loader, shell, interpreter) instead of feeding it."""
    upper = name.upper()
    return any(fnmatchcase(upper, pattern) for pattern in UNSAFE_SECRET_PATTERNS)
