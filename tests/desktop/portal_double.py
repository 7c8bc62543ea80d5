"""A stand-in for xdg-desktop-portal's GlobalShortcuts, served on a real session bus.

No backend that implements GlobalShortcuts runs headless here: the real
xdg-desktop-portal starts (tests use it for "no portal"), but the interface comes from a
desktop backend (-kde needs KWin and kglobalacceld, -gnome needs gnome-shell, -hyprland
needs Hyprland; -wlr does not implement it). This double owns
``org.freedesktop.portal.Desktop`` on the test's own ``dbus-daemon`` and answers as the
portal's documentation describes: a Request object per call, its ``Response`` signal
after the method's reply, ``Activated``/``Deactivated`` for a key held down and let go.
It remembers bindings per app id across sessions, as KDE and GNOME do.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any

from jeepney import DBusAddress, HeaderFields, MessageType, new_error, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.freedesktop.portal.Desktop"
PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = "org.freedesktop.portal.GlobalShortcuts"


@dataclass
class PortalDouble:
    address: str
    version: int = 2
    deny_bind: bool = False
    silent_bind: bool = False
    """Never answer BindShortcuts: a person who leaves the desktop's dialog open."""
    calls: list[str] = field(default_factory=list)
    bound: dict[str, list[tuple[str, str]]] = field(default_factory=dict)
    """Per app id: (shortcut id, description) as bound — the desktop's memory."""
    app_ids: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._conn = open_dbus_connection(self.address)
        self._conn.send_and_get_reply(message_bus.RequestName(NAME))
        self.sessions: dict[str, str] = {}  # session path -> owner unique name
        self._stop = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    # ------------------------------------------------------------------ test API
    def press(self, shortcut: str) -> None:
        self._emit_key("Activated", shortcut)

    def release(self, shortcut: str) -> None:
        self._emit_key("Deactivated", shortcut)

    def _emit_key(self, member: str, shortcut: str) -> None:
        for session in list(self.sessions):
            sig = new_signal(
                DBusAddress(PATH, interface=SHORTCUTS),
                member,
                "osta{sv}",
                (session, shortcut, int(time.time() * 1000), {}),
            )
            self._send(sig)

    def _send(self, message: Any) -> None:
        with self._lock:
            self._conn.send(message)

    def close(self) -> None:
        self._stop = True
        self._conn.close()
        self._thread.join(5)

    # ------------------------------------------------------------------ serving
    def _serve(self) -> None:
        while not self._stop:
            try:
                msg = self._conn.receive(timeout=0.2)
            except TimeoutError:
                continue
            except OSError:
                return
            if msg.header.message_type is MessageType.method_call:
                self._handle(msg)

    def _handle(self, msg: Any) -> None:
        member = msg.header.fields[HeaderFields.member]
        self.calls.append(member)
        sender = msg.header.fields[HeaderFields.sender]
        handler = getattr(self, f"_do_{member}", None)
        if handler is None:
            self._send(new_error(msg, "org.freedesktop.DBus.Error.UnknownMethod", "s", (member,)))
            return
        handler(msg, sender)

    def _do_Get(self, msg: Any, sender: str) -> None:
        interface, prop = msg.body
        if interface == SHORTCUTS and prop == "version":
            self._send(new_method_return(msg, "v", (("u", self.version),)))
        else:
            self._send(new_error(msg, "org.freedesktop.DBus.Error.UnknownProperty", "s", (prop,)))

    def _do_Register(self, msg: Any, sender: str) -> None:
        self.app_ids[sender] = msg.body[0]
        self._send(new_method_return(msg))

    def _request(self, msg: Any, sender: str, options: dict) -> str:
        token = options["handle_token"][1]
        handle = f"{PATH}/request/{sender[1:].replace('.', '_')}/{token}"
        self._send(new_method_return(msg, "o", (handle,)))
        return handle

    def _respond(self, handle: str, code: int, results: dict) -> None:
        addr = DBusAddress(handle, interface="org.freedesktop.portal.Request")
        self._send(new_signal(addr, "Response", "ua{sv}", (code, results)))

    def _do_CreateSession(self, msg: Any, sender: str) -> None:
        (options,) = msg.body
        handle = self._request(msg, sender, options)
        token = options["session_handle_token"][1]
        session = f"{PATH}/session/{sender[1:].replace('.', '_')}/{token}"
        self.sessions[session] = sender
        self._respond(handle, 0, {"session_handle": ("s", session)})

    def _listing(self, sender: str) -> tuple[str, list]:
        app = self.app_ids.get(sender, "")
        items = [
            (ident, {"description": ("s", text), "trigger_description": ("s", f"Ctrl+Alt+{n}")})
            for n, (ident, text) in enumerate(self.bound.get(app, []))
        ]
        return "a(sa{sv})", items

    def _do_ListShortcuts(self, msg: Any, sender: str) -> None:
        _session, options = msg.body
        handle = self._request(msg, sender, options)
        self._respond(handle, 0, {"shortcuts": self._listing(sender)})

    def _do_BindShortcuts(self, msg: Any, sender: str) -> None:
        _session, shortcuts, _parent, options = msg.body
        handle = self._request(msg, sender, options)
        if self.deny_bind:
            self._respond(handle, 1, {})
            return
        if self.silent_bind:
            return
        app = self.app_ids.get(sender, "")
        self.bound[app] = [(ident, opts["description"][1]) for ident, opts in shortcuts]
        self._respond(handle, 0, {"shortcuts": self._listing(sender)})

    def _do_ConfigureShortcuts(self, msg: Any, sender: str) -> None:
        self._send(new_method_return(msg))

    def _do_Close(self, msg: Any, sender: str) -> None:
        self.sessions.pop(msg.header.fields[HeaderFields.path], None)
        self._send(new_method_return(msg))
