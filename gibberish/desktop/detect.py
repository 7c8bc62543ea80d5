"""Which desktop this is, which backend answers for it, and what it can do here.

Chosen at start-up from what the session offers (docs/adr/0038-desktop-backends.md):

* the compositor's own socket first — ``SWAYSOCK``/``I3SOCK`` (Sway, i3),
  ``HYPRLAND_INSTANCE_SIGNATURE`` (Hyprland);
* then ``XDG_CURRENT_DESKTOP`` on Wayland — KDE (a KWin script over D-Bus), GNOME (no
  public interface for the focused window: said plainly);
* then an X11 display (``DISPLAY`` outside a Wayland session: ``xprop``).

Global shortcuts and the tray host are asked of the session bus: the GlobalShortcuts
portal's ``version``, and whether anyone owns ``org.kde.StatusNotifierWatcher`` (the tray
host of KDE, of GNOME's AppIndicator extension, of waybar …). ``gibberish doctor`` prints
``capabilities``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from msgspec import Struct

from gibberish.desktop.focus import FocusInfo, NoFocus

if TYPE_CHECKING:  # the bus (jeepney) is loaded when asked, not with the Engine
    from jeepney.io.threading import DBusRouter

TRAY_WATCHER = "org.kde.StatusNotifierWatcher"


class FocusBackend(Protocol):
    name: str

    def focused(self) -> FocusInfo | None: ...
    def problem(self) -> str | None: ...


class Desktop(Struct, frozen=True):
    """The desktop family (``sway``, ``hyprland``, ``kde``, ``gnome``, ``x11``, ``other``,
    ``none``) and whether it runs on Wayland."""

    family: str
    wayland: bool

    @property
    def label(self) -> str:
        names = {
            "sway": "Sway/i3",
            "i3": "i3",
            "hyprland": "Hyprland",
            "kde": "KDE Plasma",
            "gnome": "GNOME",
        }
        name = names.get(
            self.family,
            {"x11": "an X11 desktop", "none": "no desktop"}.get(
                self.family, "an unrecognised desktop"
            ),
        )
        if self.family in ("x11", "none"):
            return name
        return f"{name} ({'Wayland' if self.wayland else 'X11'})"


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return env if env is not None else os.environ


def identify(env: Mapping[str, str] | None = None) -> Desktop:
    env = _env(env)
    wayland = bool(env.get("WAYLAND_DISPLAY")) or env.get("XDG_SESSION_TYPE") == "wayland"
    current = env.get("XDG_CURRENT_DESKTOP", "").lower().split(":")
    if env.get("SWAYSOCK") or (env.get("I3SOCK") and wayland):
        return Desktop("sway", wayland)
    if env.get("I3SOCK") and env.get("DISPLAY"):  # i3's tree has no pids: X11 answers
        return Desktop("i3", False)
    if env.get("HYPRLAND_INSTANCE_SIGNATURE"):
        return Desktop("hyprland", wayland)
    if "kde" in current:
        return Desktop("kde", wayland)
    if "gnome" in current:
        return Desktop("gnome", wayland)
    if wayland:
        return Desktop("other", True)
    return Desktop("x11", False) if env.get("DISPLAY") else Desktop("none", False)


def focus_backend(env: Mapping[str, str] | None = None) -> FocusBackend | None:
    """The backend that can name the focused window here, or None."""
    env = _env(env)
    desktop = identify(env)
    if desktop.family == "sway":
        from gibberish.desktop.sway import SwayFocusProvider

        return SwayFocusProvider(env=env)
    if desktop.family == "hyprland":
        from gibberish.desktop.hyprland import HyprlandFocusProvider

        return HyprlandFocusProvider(env=env)
    if desktop.family == "kde" and desktop.wayland:
        from gibberish.desktop.kde import KWinFocusProvider

        return KWinFocusProvider(address=env.get("DBUS_SESSION_BUS_ADDRESS") or None)
    if not desktop.wayland and env.get("DISPLAY"):
        from gibberish.desktop.x11 import X11FocusProvider

        return X11FocusProvider(env=env)
    return None


def focus_provider(env: Mapping[str, str] | None = None) -> FocusBackend | NoFocus:
    """What the Engine hands to mode detection: the backend, or one that never knows."""
    return focus_backend(env) or NoFocus()


class Capability(Struct, frozen=True):
    check: str
    ok: bool
    detail: str


def focus_capability(desktop: Desktop, env: Mapping[str, str] | None = None) -> Capability:
    """Whether modes can follow the focused app here, and if not why and what to do."""
    env = _env(env)
    backend = focus_backend(env)
    if backend is None:
        if desktop.family == "gnome":
            why = (
                "GNOME on Wayland offers apps no way to ask for the focused window (only a "
                "Shell extension could); choose the mode from the tray menu."
            )
        else:
            why = (
                "no backend for this session (Sway/i3, Hyprland, KDE Plasma or X11 are "
                "supported); choose the mode from the tray menu."
            )
        return Capability("focused app", False, f"not available: {why}")
    problem = backend.problem()
    if problem:
        return Capability("focused app", False, f"backend {backend.name}: {problem}")
    return Capability(
        "focused app", True, f"backend {backend.name}: modes follow the focused window"
    )


def _shortcut_capability(
    desktop: Desktop, router: DBusRouter | None, command: list[str]
) -> Capability:
    from gibberish.desktop.portal import portal_version
    from gibberish.desktop.shortcuts import BoundRecord, manual_setup

    version = portal_version(router) if router is not None else None
    if version is not None:
        record = BoundRecord.load()
        keys = (
            ", ".join(f"{i} = {k or 'no key'}" for i, k in record.triggers.items())
            if record
            else ""
        )
        return Capability(
            "global shortcuts",
            True,
            f"desktop portal (GlobalShortcuts version {version}): hold to talk (release ends "
            "the recording) and a shortcut per pinned tool; "
            + (f"keys last confirmed: {keys}" if keys else "not bound yet (start the tray)"),
        )
    first = manual_setup(desktop.family, command).splitlines()[0]
    return Capability(
        "global shortcuts",
        False,
        "no GlobalShortcuts portal: bind a key by hand (press only, no hold to talk). " + first,
    )


def _tray_capability(desktop: Desktop, router: DBusRouter | None) -> Capability:
    from gibberish.desktop import bus

    owner = bus.name_owner(router, TRAY_WATCHER) if router is not None else None
    if owner is not None:
        return Capability("tray", True, "a tray host (StatusNotifierWatcher) is running")
    if not desktop.wayland and desktop.family != "none":
        return Capability(
            "tray",
            True,
            "no StatusNotifierWatcher; an X11 system tray may still show the icon, else the "
            "launcher window opens",
        )
    hint = (
        " On GNOME install the “AppIndicator and KStatusNotifierItem Support” extension."
        if desktop.family == "gnome"
        else ""
    )
    return Capability(
        "tray",
        False,
        "no tray host: gibberish opens its launcher window instead (the same menu; the "
        f"command bar and the CLI reach every action).{hint}",
    )


def capabilities(
    env: Mapping[str, str] | None = None, *, command: list[str] | None = None
) -> list[Capability]:
    """What ``gibberish doctor`` reports about the desktop: the backend and what works."""
    from gibberish.desktop import bus
    from gibberish.desktop.autostart import launch_command

    env = _env(env)
    desktop = identify(env)
    backend = focus_backend(env)
    out = [
        Capability(
            "desktop",
            desktop.family != "none",
            f"{desktop.label}; backend: {backend.name if backend else 'none'}",
        )
    ]
    out.append(focus_capability(desktop, env))
    router = None
    try:
        router = bus.open_router(bus.session_address(env))
    except bus.BusError as exc:
        out.append(Capability("session bus", False, str(exc)))
    try:
        out.append(_shortcut_capability(desktop, router, command or launch_command()))
        out.append(_tray_capability(desktop, router))
    finally:
        if router is not None:
            router.close()
            router.conn.close()
    return out
