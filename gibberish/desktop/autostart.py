"""Desktop integration that needs no Qt: the XDG autostart entry ("start at login").

The settings dialog calls ``enable_autostart``/``disable_autostart`` when the person
ticks "Start at login". The entry is an ordinary ``.desktop`` file in
``$XDG_CONFIG_HOME/autostart/`` (the freedesktop autostart spec), which every Linux
desktop (GNOME, KDE, XFCE, Cinnamon, sway with a session manager …) reads at login.
It lives outside ``gibberish/ui`` so the CLI and tests can use it without loading Qt.

The ``Exec`` line follows the desktop entry spec's quoting rules (reserved characters
inside double quotes, ``"`` `` ` `` ``$`` ``\\`` escaped, ``%`` doubled), so a virtualenv in a
folder with spaces still starts.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

from gibberish import paths
from gibberish.fileio import atomic_write_bytes

DESKTOP_FILE_NAME = "gibberish.desktop"
APP_COMMENT = "Launch your SKILL.md tools from the tray, a command bar or a local model"

# Characters that force an Exec argument into double quotes (desktop entry spec, "Exec key").
_RESERVED = set(" \t\n\"'\\><~|&;$*?#()`")
_ESCAPED_IN_QUOTES = ("\\", '"', "`", "$")  # the backslash first


def autostart_dir() -> Path:
    """``$XDG_CONFIG_HOME/autostart`` (``~/.config/autostart`` when unset)."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "autostart"


def autostart_path() -> Path:
    return autostart_dir() / DESKTOP_FILE_NAME


def launch_command() -> list[str]:
    """The command that starts this installation of gibberish.

    Prefer the ``gibberish`` script next to the running interpreter (a venv install),
    then one on ``PATH``, else ``python -m gibberish`` with this interpreter.
    """
    beside = Path(sys.executable).with_name("gibberish")
    if beside.is_file() and os.access(beside, os.X_OK):
        return [str(beside)]
    found = shutil.which("gibberish")
    if found:
        return [found]
    return [sys.executable, "-m", "gibberish"]


def quote_exec_argument(arg: str) -> str:
    """Quote one argument for an ``Exec=`` line (desktop entry spec, then string escaping)."""
    text = arg.replace("%", "%%")
    if arg and not any(ch in _RESERVED for ch in arg):
        return text
    for ch in _ESCAPED_IN_QUOTES:
        text = text.replace(ch, "\\" + ch)
    quoted = f'"{text}"'
    # The value of a key is itself a string with escapes: a backslash is written twice.
    return quoted.replace("\\", "\\\\")


def exec_line(command: Sequence[str]) -> str:
    return " ".join(quote_exec_argument(a) for a in command)


def icon_value() -> str:
    """An absolute icon path when the resources folder is present, else the theme name."""
    icon = paths.resources_dir() / "gibberish.svg"
    return str(icon) if icon.is_file() else "gibberish"


def desktop_entry(
    command: Sequence[str], *, autostart: bool = False, icon: str | None = None
) -> str:
    """The text of a ``.desktop`` file that runs ``command``.

    The autostart variant adds the keys autostart managers read (GNOME's
    ``X-GNOME-Autostart-enabled``, a small delay so the tray host exists first) and is
    hidden from application menus.
    """
    lines = [
        "[Desktop Entry]",
        "Type=Application",
        "Version=1.5",
        "Name=gibberish",
        f"Comment={APP_COMMENT}",
        f"Exec={exec_line(command)}",
        f"Icon={icon or icon_value()}",
        "Terminal=false",
        "Categories=Utility;",
        "StartupNotify=false",
    ]
    if autostart:
        lines += [
            "NoDisplay=true",
            "X-GNOME-Autostart-enabled=true",
            "X-GNOME-Autostart-Delay=3",
            "X-KDE-autostart-after=panel",
        ]
    else:
        lines += ["Keywords=skills;tools;launcher;command;"]
    return "\n".join(lines) + "\n"


def is_autostart_enabled() -> bool:
    return autostart_path().is_file()


def enable_autostart(command: Sequence[str] | None = None) -> Path:
    """Write (or rewrite) the autostart entry atomically and return its path."""
    target = autostart_path()
    text = desktop_entry(command or launch_command(), autostart=True)
    atomic_write_bytes(target, text.encode("utf-8"), mode=0o644)
    return target


def disable_autostart() -> bool:
    """Remove the autostart entry; True when there was one."""
    try:
        autostart_path().unlink()
    except FileNotFoundError:
        return False
    return True


def set_autostart(enabled: bool) -> None:
    """Make the autostart entry match the "Start at login" setting."""
    if enabled:
        enable_autostart()
    else:
        disable_autostart()
