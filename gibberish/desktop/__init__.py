"""Everything gibberish asks of the desktop session, without Qt.

* ``autostart``: the XDG autostart entry ("Start at login");
* ``detect``: which desktop this is and which backend answers for it
  (docs/adr/0038-desktop-backends.md) — the focused window from X11 (``x11``), Sway/i3
  (``sway``), Hyprland (``hyprland``) or KDE Plasma (``kde``); GNOME offers no interface;
* ``portal`` and ``shortcuts``: global shortcuts through the desktop portal, with release
  (hold to talk), or the hand-made shortcut for desktops without it
  (docs/adr/0039-portal-shortcuts.md).

The package sits just above ``trust/`` (whose ``FocusInfo`` its backends produce) and
below the Engine, which hands the chosen backend to mode detection.
"""

from __future__ import annotations

from gibberish.desktop.autostart import (
    APP_COMMENT,
    DESKTOP_FILE_NAME,
    autostart_dir,
    autostart_path,
    desktop_entry,
    disable_autostart,
    enable_autostart,
    exec_line,
    icon_value,
    is_autostart_enabled,
    launch_command,
    quote_exec_argument,
    set_autostart,
)

__all__ = [
    "APP_COMMENT",
    "DESKTOP_FILE_NAME",
    "autostart_dir",
    "autostart_path",
    "desktop_entry",
    "disable_autostart",
    "enable_autostart",
    "exec_line",
    "icon_value",
    "is_autostart_enabled",
    "launch_command",
    "quote_exec_argument",
    "set_autostart",
]
