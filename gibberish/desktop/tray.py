"""What to tell a person whose desktop shows no tray icon, per desktop.

GNOME shows none without the AppIndicator extension; a bare Sway or Hyprland needs a bar
with a tray (swaybar's is built in, waybar's is its ``tray`` module). The launcher window
opens instead, and every tray action stays reachable from it, the command bar and the CLI.
"""

from __future__ import annotations

from gibberish.desktop.detect import Desktop, identify

_WHY = {
    "gnome": (
        "GNOME shows tray icons only with the “AppIndicator and KStatusNotifierItem Support” "
        "extension (Debian, Ubuntu: package gnome-shell-extension-appindicator; then turn it "
        "on in Extensions and start gibberish again)."
    ),
    "sway": (
        "Sway shows tray icons in a bar with a tray: swaybar has one built in (`tray_output` "
        "in its bar block), waybar needs its “tray” module; then start gibberish again."
    ),
    "hyprland": (
        "Hyprland has no tray of its own: add a bar with one (waybar's “tray” module), then "
        "start gibberish again."
    ),
    "kde": "The Plasma panel's system tray is not running (is plasmashell up?).",
}


def no_tray_message(desktop: Desktop | None = None) -> str:
    """The launcher window's first words when there is no tray: what happened, what to do."""
    desktop = desktop or identify()
    why = _WHY.get(desktop.family, "This desktop has no system tray (or it is not running).")
    return (
        f"{why} Until then gibberish lives in this window: type to find a tool, and the "
        "Menu button holds the rest. Closing the window quits gibberish."
    )
