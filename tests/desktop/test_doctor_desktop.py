"""``gibberish doctor`` names the desktop backend and what works, per kind of session:
X11 (a real Xvfb), a portal-only GNOME Wayland session (a real dbus-daemon with the portal
double), a session with nothing, and a dead X display. Sway: ``test_sway.py``."""

from __future__ import annotations

import json
import shutil
import subprocess
from collections.abc import Iterator

import pytest
from click.testing import CliRunner
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

from gibberish.cli import cli
from gibberish.desktop import shortcuts
from gibberish.desktop.portal import PortalShortcuts
from tests.desktop.headless_sway import wait_for
from tests.desktop.portal_double import PortalDouble
from tests.desktop.sessionbus import have_dbus_daemon, session_bus

needs_bus = pytest.mark.skipif(not have_dbus_daemon(), reason="needs dbus-daemon (package dbus)")


def doctor() -> dict[str, dict]:
    result = CliRunner().invoke(cli, ["doctor", "--json"], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return {c["check"]: c for c in json.loads(result.output)}


@pytest.fixture
def xvfb(tmp_path) -> Iterator[str]:
    if shutil.which("Xvfb") is None or shutil.which("xprop") is None:
        pytest.skip("needs Xvfb (package xvfb) and xprop (package x11-utils)")
    display = ":73"
    server = subprocess.Popen(
        ["Xvfb", display, "-nolisten", "tcp", "-displayfd", "1"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        assert server.stdout is not None
        wait_for(server.stdout.readline, "Xvfb to accept connections")
        yield display
    finally:
        server.terminate()
        server.wait(10)


def test_on_x11_it_names_the_x11_backend(xvfb, monkeypatch) -> None:
    monkeypatch.setenv("DISPLAY", xvfb)
    checks = doctor()
    assert checks["desktop"]["detail"] == "an X11 desktop; backend: x11"
    assert checks["focused app"] == {
        "check": "focused app",
        "ok": True,
        "detail": "backend x11: modes follow the focused window",
    }
    assert checks["global shortcuts"]["ok"] is False
    assert "bind a key by hand" in checks["global shortcuts"]["detail"]
    assert "session bus" in checks  # no bus here: said, with what to do


@pytest.mark.skipif(shutil.which("xprop") is None, reason="needs xprop (package x11-utils)")
def test_a_dead_x_display_is_a_sentence(monkeypatch) -> None:
    monkeypatch.setenv("DISPLAY", ":97")
    checks = doctor()
    assert checks["focused app"]["ok"] is False
    assert "does not answer xprop" in checks["focused app"]["detail"]


@needs_bus
def test_a_portal_only_gnome_session(tmp_path, monkeypatch) -> None:
    with session_bus(tmp_path / "bus") as address:
        portal = PortalDouble(address)
        try:
            monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
            monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
            monkeypatch.setenv("XDG_CURRENT_DESKTOP", "GNOME")
            checks = doctor()
            client = PortalShortcuts(lambda i: None, lambda i: None, address=address)
            client.start(shortcuts.wanted())  # what the tray does at its start
            client.close()
            after = doctor()["global shortcuts"]["detail"]
        finally:
            portal.close()
    assert "not bound yet" in checks["global shortcuts"]["detail"]
    assert "keys last confirmed: command-bar = Ctrl+Alt+0, listen-hold = Ctrl+Alt+1" in after
    assert checks["desktop"]["detail"] == "GNOME (Wayland); backend: none"
    assert checks["focused app"]["ok"] is False
    assert "GNOME on Wayland offers apps no way" in checks["focused app"]["detail"]
    assert checks["global shortcuts"]["ok"] is True
    assert "GlobalShortcuts version 2" in checks["global shortcuts"]["detail"]
    assert checks["tray"]["ok"] is False and "AppIndicator" in checks["tray"]["detail"]


@needs_bus
def test_a_tray_host_on_the_bus_is_found(tmp_path, monkeypatch) -> None:
    with session_bus(tmp_path / "bus") as address:
        host = open_dbus_connection(address)
        try:
            host.send_and_get_reply(message_bus.RequestName("org.kde.StatusNotifierWatcher"))
            monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", address)
            monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-0")
            monkeypatch.setenv("XDG_CURRENT_DESKTOP", "KDE")
            checks = doctor()
        finally:
            host.close()
    assert checks["tray"]["ok"] is True
    assert checks["global shortcuts"]["ok"] is False  # a bus without the portal
    assert checks["desktop"]["detail"] == "KDE Plasma (Wayland); backend: kde"
    assert "KWin is not on the session bus" in checks["focused app"]["detail"]


def test_a_session_with_nothing(monkeypatch) -> None:
    checks = doctor()
    assert checks["desktop"] == {
        "check": "desktop",
        "ok": False,
        "detail": "no desktop; backend: none",
    }
    assert checks["tray"]["ok"] is False


def test_with_no_backend_the_mode_falls_back_to_global_with_why() -> None:
    from gibberish.engine.core import Engine, EngineOptions
    from gibberish.skills.model import Mode

    context = Engine(EngineOptions(include_user=False, include_bundled=False)).mode_context()
    assert context.mode is Mode.GLOBAL and context.focus is None
    assert "can be checked here" in context.reason or "could not be identified" in context.reason
