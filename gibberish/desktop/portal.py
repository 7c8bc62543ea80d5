"""Global shortcuts through the desktop portal (``org.freedesktop.portal.GlobalShortcuts``).

The portal (KDE Plasma 6, GNOME 48+, Hyprland) binds keys on the app's behalf and reports
both ``Activated`` and ``Deactivated``: a key held down can mean "listen while held". The
flow follows the portal's documentation: ``CreateSession``, then — unless the desktop
still has every shortcut from an earlier run (``ListShortcuts``) — one ``BindShortcuts``
with all of them, since a session binds once and some desktops ask the person each time.
Answers arrive as ``Response`` signals on a Request object, so every call subscribes first
and then waits for that signal. Outside a sandbox the app says who it is with
``org.freedesktop.host.portal.Registry.Register`` (the id of ``gibberish.desktop``), so a
start from a terminal gets the same shortcuts as one from the menu.

``Activated``/``Deactivated`` are delivered on jeepney's receiving thread, then handed to
the callbacks from a thread of our own; the callers (the tray) move them to their thread.
"""

from __future__ import annotations

import queue
import secrets
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from jeepney import DBusAddress, MatchRule, new_method_call
from jeepney.io.threading import DBusRouter
from jeepney.low_level import HeaderFields
from msgspec import Struct

from gibberish.desktop import bus
from gibberish.desktop.shortcuts import BoundRecord, Shortcut
from gibberish.logger import logger

log = logger("gibberish.desktop.portal")

PORTAL_NAME = "org.freedesktop.portal.Desktop"
PORTAL_PATH = "/org/freedesktop/portal/desktop"
SHORTCUTS = DBusAddress(PORTAL_PATH, PORTAL_NAME, "org.freedesktop.portal.GlobalShortcuts")
REGISTRY = DBusAddress(PORTAL_PATH, PORTAL_NAME, "org.freedesktop.host.portal.Registry")
APP_ID = "gibberish"
"""The desktop file is ``gibberish.desktop``: the portal looks the app up by this id."""
BIND_TIMEOUT = 600.0
"""BindShortcuts may show a dialog where the person chooses keys: give them time."""

Callback = Callable[[str], None]


class PortalError(Exception):
    """The portal is missing or refused; ``str()`` says what happened and what to do."""


class PortalMissing(PortalError):
    """No session bus or no GlobalShortcuts portal on it: the hand-made shortcut applies."""


class Bound(Struct, frozen=True):
    """The outcome of ``start``: the session, whether a bind was asked, the keys chosen."""

    session: str
    version: int
    asked_to_bind: bool
    triggers: dict[str, str]


def portal_version(router: DBusRouter) -> int | None:
    """The GlobalShortcuts version of the session's portal, None when it has none."""
    try:
        version = bus.get_property(router, SHORTCUTS, "version", timeout=3.0)
    except bus.BusError as exc:
        log.debug("no GlobalShortcuts portal: %s", exc)
        return None
    return int(version) if isinstance(version, int) else None


def _shortcut_list(shortcuts: Sequence[Shortcut]) -> list[tuple[str, dict[str, Any]]]:
    out = []
    for s in shortcuts:
        options: dict[str, Any] = {"description": ("s", s.description)}
        if s.preferred_trigger:
            options["preferred_trigger"] = ("s", s.preferred_trigger)
        out.append((s.id, options))
    return out


def _triggers(results: dict[str, Any]) -> dict[str, str]:
    """``{id: trigger_description}`` from a ``shortcuts`` result (``a(sa{sv})``)."""
    listed = results.get("shortcuts", ("a(sa{sv})", []))[1]
    out = {}
    for item in listed:
        ident, options = item
        trigger = options.get("trigger_description", ("s", ""))[1]
        out[str(ident)] = str(trigger)
    return out


class PortalShortcuts:
    """One GlobalShortcuts session for the life of the app.

    ``on_pressed``/``on_released`` get a shortcut id. ``start`` blocks until the portal
    answered (a bind may wait for the person), so callers run it off the GUI thread.
    """

    def __init__(
        self,
        on_pressed: Callback,
        on_released: Callback,
        *,
        address: str | None = None,
        app_id: str = APP_ID,
        bind_timeout: float = BIND_TIMEOUT,
    ) -> None:
        self._on_pressed = on_pressed
        self._on_released = on_released
        self._address = address
        self._app_id = app_id
        self._bind_timeout = bind_timeout
        self._router: DBusRouter | None = None
        self._owner: str | None = None
        self._session: str | None = None
        self._version = 0
        self._signals: queue.Queue[Any] = queue.Queue()
        self._responses: queue.Queue[Any] = queue.Queue()
        self._filters: list[Any] = []
        self._dispatcher: threading.Thread | None = None
        self._closed = threading.Event()

    # ------------------------------------------------------------------ start / stop
    def start(self, shortcuts: Sequence[Shortcut]) -> Bound:
        """Open the session and make sure every shortcut is bound; raise ``PortalError``."""
        try:
            self._router = bus.open_router(self._address)
            return self._start(shortcuts)
        except bus.BusError as exc:
            self.close()
            raise PortalMissing(f"Global shortcuts are not available: {exc}") from None
        except PortalError:
            self.close()
            raise

    def _start(self, shortcuts: Sequence[Shortcut]) -> Bound:
        router = self._router
        assert router is not None
        self._register()
        version = portal_version(router)
        self._owner = bus.name_owner(router, PORTAL_NAME)
        if version is None or self._owner is None:
            raise PortalMissing(
                "This desktop has no GlobalShortcuts portal (it needs xdg-desktop-portal 1.18+ "
                "with KDE Plasma 6, GNOME 48+ or Hyprland's portal). Bind a key to "
                "`gibberish listen` by hand instead: see Settings → Shortcuts."
            )
        self._version = version
        self._listen()
        self._session = self._create_session()
        listed = self._request("ListShortcuts", "oa{sv}", (self._session,), timeout=10.0)
        have = _triggers(listed)
        asked = not {s.id for s in shortcuts} <= set(have)
        if asked:
            have = _triggers(
                self._request(
                    "BindShortcuts",
                    "oa(sa{sv})sa{sv}",
                    (self._session, _shortcut_list(shortcuts), ""),
                    timeout=self._bind_timeout,
                )
            )
        BoundRecord(tuple(have), have).save()
        log.info("portal shortcuts ready (version %s, bound now: %s)", version, asked)
        return Bound(self._session, version, asked, have)

    def _register(self) -> None:
        """Tell the portal which app this is (only possible, and only needed, unsandboxed)."""
        assert self._router is not None
        msg = new_method_call(REGISTRY, "Register", "sa{sv}", (self._app_id, {}))
        try:
            bus.call(self._router, msg, timeout=3.0)
        except bus.BusError as exc:  # older portals have no Registry; the id is then guessed
            log.info("the portal did not register the app id %s: %s", self._app_id, exc)

    def _listen(self) -> None:
        router = self._router
        assert router is not None
        rules = [
            (
                MatchRule(type="signal", interface=SHORTCUTS.interface, path=PORTAL_PATH),
                self._signals,
            ),
            (
                MatchRule(
                    type="signal", interface="org.freedesktop.portal.Request", member="Response"
                ),
                self._responses,
            ),
        ]
        for rule, target in rules:
            bus.add_match(router, rule)
            self._filters.append(router.filter(rule, queue=target))
        self._dispatcher = threading.Thread(
            target=self._dispatch, name="portal-shortcuts", daemon=True
        )
        self._dispatcher.start()

    def close(self) -> None:
        """End the session and the connection (the desktop keeps the bindings). A start
        still waiting for the portal (a bind dialog left open) ends at once."""
        router = self._router
        if router is None or self._closed.is_set():
            return
        self._closed.set()
        self._responses.put(None)
        if self._session is not None:
            session = DBusAddress(self._session, PORTAL_NAME, "org.freedesktop.portal.Session")
            try:
                bus.call(router, new_method_call(session, "Close"), timeout=2.0)
            except bus.BusError as exc:
                log.debug("closing the portal session: %s", exc)
        for handle in self._filters:
            handle.close()
        self._filters.clear()
        self._signals.put(None)
        router.close()
        router.conn.close()
        if self._dispatcher is not None:
            self._dispatcher.join(5)

    # ------------------------------------------------------------------ requests
    def _create_session(self) -> str:
        token = "gibberish_" + secrets.token_hex(6)
        results = self._request(
            "CreateSession", "a{sv}", (), timeout=30.0, extra={"session_handle_token": ("s", token)}
        )
        handle = results.get("session_handle", ("s", ""))[1]
        if not handle:
            raise PortalError("The portal created no shortcuts session; restart gibberish.")
        return str(handle)

    def _request(
        self,
        method: str,
        signature: str,
        args: tuple,
        *,
        timeout: float,
        extra: dict[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Call ``method`` (its last argument is the options vardict) and wait for its Response."""
        if self._router is None or self._closed.is_set():
            raise PortalError("Global shortcuts were closed.")
        options = {"handle_token": ("s", "gibberish_" + secrets.token_hex(6)), **(extra or {})}
        msg = new_method_call(SHORTCUTS, method, signature, (*args, options))
        (handle,) = bus.call(self._router, msg, timeout=10.0)
        code, results = self._response(handle, timeout)
        if code == 1:
            raise PortalError(
                f"The desktop declined gibberish's shortcuts ({method} was cancelled). Start "
                "gibberish again to be asked again, or bind `gibberish listen` by hand."
            )
        if code != 0:
            raise PortalError(
                f"The desktop's portal failed to {method} (response {code}); its log (journalctl "
                "--user -u xdg-desktop-portal) says why. Bind `gibberish listen` by hand meanwhile."
            )
        return dict(results)

    def _response(self, handle: str, timeout: float) -> tuple[int, dict[str, Any]]:
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = self._responses.get(timeout=left)
            except queue.Empty:
                break
            if msg is None or self._closed.is_set():
                raise PortalError("Global shortcuts were closed before the portal answered.")
            if msg.header.fields.get(HeaderFields.path) == handle and self._from_portal(msg):
                code, results = msg.body
                return int(code), results
        raise PortalError(
            f"The portal did not answer within {timeout:g} s; restart gibberish to try again."
        )

    def _from_portal(self, msg: Any) -> bool:
        return msg.header.fields.get(HeaderFields.sender) == self._owner

    # ------------------------------------------------------------------ signals
    def _dispatch(self) -> None:
        while (msg := self._signals.get()) is not None:
            if not self._from_portal(msg) or not msg.body or msg.body[0] != self._session:
                continue
            member = msg.header.fields.get(HeaderFields.member)
            callback = {"Activated": self._on_pressed, "Deactivated": self._on_released}.get(member)
            if callback is None:
                continue
            try:
                callback(str(msg.body[1]))
            except Exception:  # a broken handler must not end the shortcuts
                log.exception("handling shortcut %s failed", msg.body[1])

    def configure(self) -> None:
        """Let the person change the keys in the desktop's own dialog (portal version 2+)."""
        if self._router is None or self._session is None or self._closed.is_set():
            raise PortalError("Global shortcuts are not active, so there is nothing to change.")
        if self._version < 2:
            raise PortalError(
                f"This desktop's portal (GlobalShortcuts version {self._version}) cannot open its "
                "shortcut settings for an app: change the keys in the desktop's keyboard settings."
            )
        msg = new_method_call(SHORTCUTS, "ConfigureShortcuts", "osa{sv}", (self._session, "", {}))
        try:
            bus.call(self._router, msg)
        except bus.BusError as exc:
            raise PortalError(f"The desktop could not show its shortcut settings: {exc}") from None
