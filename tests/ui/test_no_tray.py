"""Without a tray the launcher window opens, and its first words say why on this desktop
and what to do."""

from __future__ import annotations

import pytest

from tests.ui.conftest import make_controller


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        ({"XDG_CURRENT_DESKTOP": "GNOME", "WAYLAND_DISPLAY": "wayland-0"}, "AppIndicator"),
        ({"SWAYSOCK": "/nonexistent", "WAYLAND_DISPLAY": "wayland-1"}, "swaybar"),
        ({"HYPRLAND_INSTANCE_SIGNATURE": "sig", "WAYLAND_DISPLAY": "wayland-1"}, "waybar"),
        ({}, "no system tray"),
    ],
)
def test_the_launcher_says_why_there_is_no_tray_here(qtbot, monkeypatch, engine, env, expected):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    ctl = make_controller(engine, tray=False)
    ctl.start()
    try:
        reason = ctl.surface.launcher.reason_label.text()
        assert expected in reason
        assert "type to find a tool" in reason and "Menu button" in reason
        assert ctl.surface.launcher.reason_row.isVisibleTo(ctl.surface.launcher)
    finally:
        ctl.shutdown()
