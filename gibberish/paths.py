"""Where gibberish keeps things.

Every location follows the XDG Base Directory rules, so tests and sandboxed sessions
can point the whole application at temporary folders by setting ``XDG_CONFIG_HOME``,
``XDG_DATA_HOME``, ``XDG_STATE_HOME`` and ``XDG_CACHE_HOME``. The functions are
evaluated on every call rather than cached at import time for the same reason.

The rules are read here rather than through ``platformdirs``: on Linux, the supported
platform, they are four variables and their defaults, and importing the library was a
fortieth of every command's start (docs/adr/0101). A variable that is empty or holds a
relative path is ignored, as the rules say.
"""

from __future__ import annotations

import os
from pathlib import Path

APP_NAME = "gibberish"

_PACKAGE_DIR = Path(__file__).resolve().parent
_SOURCE_ROOT = _PACKAGE_DIR.parent
#: Where a built wheel carries the bundled skills and icons (see setup.py).
_SHIPPED = _PACKAGE_DIR / "_shipped"


def _xdg(variable: str, default: str) -> Path:
    """gibberish's folder under ``$variable``, or under ``~/default`` when the variable is
    unset, empty or not an absolute path."""
    value = os.environ.get(variable, "").strip()
    base = value if os.path.isabs(value) else os.path.join(os.path.expanduser("~"), default)
    return Path(base, APP_NAME)


def config_dir() -> Path:
    """Settings and the user's skills folder (``~/.config/gibberish``)."""
    return _xdg("XDG_CONFIG_HOME", ".config")


def data_dir() -> Path:
    """Durable data: the approval store, the secret-name index (``~/.local/share/gibberish``)."""
    return _xdg("XDG_DATA_HOME", ".local/share")


def state_dir() -> Path:
    """Logs and full run output (``~/.local/state/gibberish``)."""
    return _xdg("XDG_STATE_HOME", ".local/state")


def cache_dir() -> Path:
    """Anything that can be rebuilt (``~/.cache/gibberish``)."""
    return _xdg("XDG_CACHE_HOME", ".cache")


def user_skills_dir() -> Path:
    """The skills folder the tray runs: ``$XDG_CONFIG_HOME/gibberish/skills``."""
    return config_dir() / "skills"


def config_file() -> Path:
    """The settings file shared by the tray and the CLI."""
    return config_dir() / "config.toml"


def bundled_skills_dir() -> Path:
    """The skills shipped with gibberish (trust level ``bundled``).

    ``GIBBERISH_BUNDLED_SKILLS`` overrides it (used by packagers that move the folder).
    """
    override = os.environ.get("GIBBERISH_BUNDLED_SKILLS")
    if override:
        return Path(override)
    return _shipped("skills")


def resources_dir() -> Path:
    """Icons and other non-code assets."""
    return _shipped("resources")


def _shipped(name: str) -> Path:
    """A folder shipped with gibberish: inside the installed package, else the source tree.

    An installed wheel has its own copy; an editable install (and a checkout) reads the
    project's folder, so edits to the bundled skills show at once.
    """
    inside = _SHIPPED / name
    return inside if inside.is_dir() else _SOURCE_ROOT / name


def home_short(path: object) -> str:
    """A path for reading: ``~/…`` inside the home folder, "~ (your home folder)" for it.

    The one shortener of every front end. A home of "" or "/" (``HOME=/`` for a service)
    shortens nothing: every absolute path would otherwise read as ``~…``."""
    text = str(path)
    home = os.path.expanduser("~")
    if home in ("", "/"):
        return text
    if text == home:
        return "~ (your home folder)"
    if text.startswith(home + "/"):
        return "~" + text[len(home) :]
    return text
