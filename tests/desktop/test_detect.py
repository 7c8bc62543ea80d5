"""Which backend a session gets, from its environment alone (no process is asked)."""

from __future__ import annotations

import pytest

from gibberish.desktop.detect import focus_backend, identify
from gibberish.desktop.shortcuts import manual_setup, wanted

W = {"WAYLAND_DISPLAY": "wayland-1", "XDG_SESSION_TYPE": "wayland"}


@pytest.mark.parametrize(
    ("env", "family", "backend"),
    [
        ({**W, "SWAYSOCK": "/run/s.sock", "I3SOCK": "/run/s.sock"}, "sway", "sway"),
        ({"DISPLAY": ":0", "I3SOCK": "/run/i3/ipc"}, "i3", "x11"),  # i3's tree has no pids
        ({**W, "HYPRLAND_INSTANCE_SIGNATURE": "sig"}, "hyprland", "hyprland"),
        ({**W, "XDG_CURRENT_DESKTOP": "KDE"}, "kde", "kde"),
        ({"DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "KDE"}, "kde", "x11"),
        ({**W, "DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "ubuntu:GNOME"}, "gnome", None),
        ({"DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "GNOME"}, "gnome", "x11"),
        ({**W, "XDG_CURRENT_DESKTOP": "river"}, "other", None),
        ({"DISPLAY": ":0", "XDG_CURRENT_DESKTOP": "XFCE"}, "x11", "x11"),
        ({}, "none", None),
    ],
)
def test_the_backend_follows_the_session(env, family, backend) -> None:
    assert identify(env).family == family
    chosen = focus_backend(env)
    assert (chosen.name if chosen else None) == backend


@pytest.mark.parametrize(
    ("family", "expected"),
    [
        ("sway", "bindsym Ctrl+Alt+v exec /opt/g/gibberish listen"),
        ("i3", "bindsym Ctrl+Alt+v exec /opt/g/gibberish listen"),
        ("hyprland", "bind = CTRL ALT, V, exec, /opt/g/gibberish listen"),
        ("gnome", "command “/opt/g/gibberish listen”"),
        ("kde", "Command or Script, command “/opt/g/gibberish listen”"),
        ("x11", "the command “/opt/g/gibberish listen”"),
    ],
)
def test_the_hand_made_shortcut_for_each_desktop(family, expected) -> None:
    assert expected in manual_setup(family, ["/opt/g/gibberish"])


def test_every_shortcut_once_pinned_tools_last() -> None:
    ids = [s.id for s in wanted(["git.git_status", "notes.add_note", "git.git_status"])]
    assert ids == [
        "command-bar",
        "listen-hold",
        "listen-toggle",
        "tool:git.git_status",
        "tool:notes.add_note",
    ]
