"""The GlobalShortcuts client against a real dbus-daemon (the portal played by a double,
or the real xdg-desktop-portal where the test is about its absence)."""

from __future__ import annotations

import queue
import shutil
import threading
import time

import pytest

from gibberish.desktop import shortcuts
from gibberish.desktop.portal import PortalError, PortalShortcuts
from tests.desktop.portal_double import PortalDouble
from tests.desktop.sessionbus import have_dbus_daemon, session_bus

pytestmark = pytest.mark.skipif(not have_dbus_daemon(), reason="needs dbus-daemon (package dbus)")


@pytest.fixture
def bus(tmp_path):
    with session_bus(tmp_path / "bus") as address:
        yield address


@pytest.fixture
def portal(bus):
    double = PortalDouble(bus)
    yield double
    double.close()


def _client(address: str, events: queue.Queue) -> PortalShortcuts:
    return PortalShortcuts(
        lambda ident: events.put(("pressed", ident)),
        lambda ident: events.put(("released", ident)),
        address=address,
        bind_timeout=10,
    )


def test_one_bind_with_every_shortcut_then_press_and_release_arrive(bus, portal) -> None:
    events: queue.Queue = queue.Queue()
    client = _client(bus, events)
    try:
        bound = client.start(shortcuts.wanted(["git.git_status"]))
        assert bound.asked_to_bind is True
        assert portal.calls.count("BindShortcuts") == 1
        assert portal.app_ids and set(portal.app_ids.values()) == {"gibberish"}
        ids = [i for i, _ in portal.bound["gibberish"]]
        assert ids == ["command-bar", "listen-hold", "listen-toggle", "tool:git.git_status"]
        assert bound.triggers["listen-hold"]  # the keys the desktop chose are kept
        portal.press("listen-hold")
        portal.release("listen-hold")
        assert events.get(timeout=5) == ("pressed", "listen-hold")
        assert events.get(timeout=5) == ("released", "listen-hold")
    finally:
        client.close()
    record = shortcuts.BoundRecord.load()
    assert record is not None and "tool:git.git_status" in record.ids


def test_a_restart_does_not_bind_again(bus, portal) -> None:
    for _ in range(2):
        client = _client(bus, queue.Queue())
        try:
            client.start(shortcuts.wanted())
        finally:
            client.close()
    assert portal.calls.count("BindShortcuts") == 1
    assert portal.calls.count("CreateSession") == 2
    # a newly pinned tool: one more bind, with every shortcut again
    client = _client(bus, queue.Queue())
    try:
        assert client.start(shortcuts.wanted(["notes.add_note"])).asked_to_bind is True
    finally:
        client.close()
    assert portal.calls.count("BindShortcuts") == 2
    assert len(portal.bound["gibberish"]) == 4


def test_signals_of_another_session_are_ignored(bus, portal) -> None:
    events: queue.Queue = queue.Queue()
    others: queue.Queue = queue.Queue()
    client = _client(bus, events)
    other = _client(bus, others)  # a second session of the same app on the same bus
    try:
        client.start(shortcuts.wanted())
        other.start(shortcuts.wanted())
        portal.press("command-bar")  # emitted once per session
        assert events.get(timeout=5) == ("pressed", "command-bar")
        assert others.get(timeout=5) == ("pressed", "command-bar")
        portal.release("command-bar")
        assert events.get(timeout=5) == ("released", "command-bar")  # not a second press
        assert others.get(timeout=5) == ("released", "command-bar")
    finally:
        other.close()
        client.close()


def test_a_denied_bind_is_a_notice_with_what_to_do(bus, portal) -> None:
    portal.deny_bind = True
    client = _client(bus, queue.Queue())
    with pytest.raises(PortalError, match=r"declined.*by hand"):
        client.start(shortcuts.wanted())


def test_configure_needs_version_two(bus, portal) -> None:
    portal.version = 1
    client = _client(bus, queue.Queue())
    try:
        client.start(shortcuts.wanted())
        with pytest.raises(PortalError, match="keyboard settings"):
            client.configure()
        portal.version = 2
    finally:
        client.close()
    client = _client(bus, queue.Queue())
    try:
        client.start(shortcuts.wanted())
        client.configure()
        assert "ConfigureShortcuts" in portal.calls
    finally:
        client.close()


def test_no_session_bus_is_a_notice(monkeypatch) -> None:
    monkeypatch.delenv("DBUS_SESSION_BUS_ADDRESS", raising=False)
    with pytest.raises(PortalError, match="no session bus"):
        _client(None, queue.Queue()).start(shortcuts.wanted())  # type: ignore[arg-type]


def test_a_bus_that_is_gone_is_a_notice(tmp_path) -> None:
    with session_bus(tmp_path / "bus") as address:
        pass
    with pytest.raises(PortalError, match="cannot be reached"):
        _client(address, queue.Queue()).start(shortcuts.wanted())


def test_a_bus_without_any_portal_is_a_notice(bus) -> None:
    with pytest.raises(PortalError, match=r"no GlobalShortcuts portal.*by hand"):
        _client(bus, queue.Queue()).start(shortcuts.wanted())


@pytest.mark.skipif(
    shutil.which("/usr/libexec/xdg-desktop-portal") is None,
    reason="needs xdg-desktop-portal (package xdg-desktop-portal)",
)
def test_the_real_xdg_desktop_portal_without_a_shortcuts_backend(tmp_path) -> None:
    """The real portal starts on demand, but no backend here implements GlobalShortcuts."""
    with (
        session_bus(tmp_path / "bus", standard_services=True) as address,
        pytest.raises(PortalError, match="no GlobalShortcuts portal"),
    ):
        _client(address, queue.Queue()).start(shortcuts.wanted())


def test_closing_while_the_desktop_still_asks_ends_the_start_at_once(bus, portal) -> None:
    portal.silent_bind = True
    client = PortalShortcuts(lambda i: None, lambda i: None, address=bus, bind_timeout=600)
    outcome: queue.Queue = queue.Queue()

    def start() -> None:
        try:
            client.start(shortcuts.wanted())
        except PortalError as exc:
            outcome.put(str(exc))

    worker = threading.Thread(target=start, daemon=True)
    worker.start()
    deadline = time.monotonic() + 10
    while "BindShortcuts" not in portal.calls and time.monotonic() < deadline:
        time.sleep(0.02)
    began = time.monotonic()
    client.close()
    worker.join(10)
    assert not worker.is_alive() and time.monotonic() - began < 5
    assert "closed" in outcome.get(timeout=1)
