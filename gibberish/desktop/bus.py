"""The session bus, through jeepney: connect, ask who owns a name, read a property.

jeepney was chosen for D-Bus (docs/adr/0039-portal-shortcuts.md): pure Python, no
compiled part and no event loop of its own, maintained, and already installed with
gibberish (SecretStorage, which the keyring uses, depends on it). Qt's QtDBus would tie
shortcuts and focus detection to ``gibberish/ui`` and make them untestable without Qt;
dbus-fast is asyncio-first and brings compiled extensions. Every failure here becomes a
``BusError`` whose text says what is missing and what to do.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

from jeepney import DBusAddress, DBusErrorResponse, Message, new_method_call
from jeepney.bus_messages import message_bus
from jeepney.io import RouterClosed
from jeepney.io.threading import DBusRouter, open_dbus_connection
from jeepney.wrappers import unwrap_msg

CALL_TIMEOUT = 5.0


class BusError(Exception):
    """The session bus, or a service on it, cannot be used; ``str()`` says what to do."""


def session_address(env: Mapping[str, str] | None = None) -> str | None:
    return (env if env is not None else os.environ).get("DBUS_SESSION_BUS_ADDRESS") or None


def open_router(address: str | None = None) -> DBusRouter:
    """A connection to the session bus with its own receiving thread."""
    address = address or session_address()
    if address is None:
        raise BusError(
            "There is no session bus (DBUS_SESSION_BUS_ADDRESS is not set): start gibberish "
            "from your desktop session, or under dbus-run-session."
        )
    try:
        return DBusRouter(open_dbus_connection(address))
    except (OSError, ValueError, TimeoutError) as exc:
        raise BusError(f"The session bus at {address} cannot be reached ({exc}).") from None


def call(router: DBusRouter, message: Message, *, timeout: float = CALL_TIMEOUT) -> tuple:
    """Send a method call and return the reply's body; errors become ``BusError``."""
    try:
        reply = router.send_and_get_reply(message, timeout=timeout)
    except TimeoutError:
        raise BusError(f"{message.header.fields} got no answer in {timeout:g} s.") from None
    except (OSError, ConnectionError, RouterClosed) as exc:
        raise BusError(f"The session bus went away ({exc}).") from None
    try:
        return unwrap_msg(reply)
    except DBusErrorResponse as exc:
        raise BusError(f"{exc.name}: {' '.join(map(str, exc.data))}") from None


def name_owner(router: DBusRouter, name: str) -> str | None:
    """The unique name owning ``name`` on the bus, or None."""
    try:
        (owner,) = call(router, message_bus.GetNameOwner(name), timeout=CALL_TIMEOUT)
    except BusError:
        return None
    return owner


def get_property(
    router: DBusRouter, address: DBusAddress, prop: str, *, timeout: float = CALL_TIMEOUT
) -> Any:
    """The value of ``prop`` on ``address``'s interface (raises ``BusError``)."""
    props = DBusAddress(
        address.object_path, bus_name=address.bus_name, interface="org.freedesktop.DBus.Properties"
    )
    msg = new_method_call(props, "Get", "ss", (address.interface, prop))
    (variant,) = call(router, msg, timeout=timeout)
    return variant[1]


def add_match(router: DBusRouter, rule: Any) -> None:
    """Ask the bus to route messages matching ``rule`` to us."""
    call(router, message_bus.AddMatch(rule))
