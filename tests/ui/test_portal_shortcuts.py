"""Global shortcuts in the tray, through a real dbus-daemon and the portal double.

The portal is played by ``tests/desktop/portal_double.py`` (no backend implementing
GlobalShortcuts runs headless here); the bus, the client, the tray controller, the
recognizer and the runs are the real ones. The microphone is a WAV file played as a
microphone: its frames, then nothing until the source is stopped (the key released).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from msgspec.structs import replace
from PySide6.QtCore import QCoreApplication

from gibberish.engine import needs
from gibberish.engine.core import Engine, EngineOptions
from gibberish.voice.audio import read_wav
from tests.desktop.portal_double import PortalDouble
from tests.desktop.sessionbus import have_dbus_daemon, session_bus
from tests.ui.conftest import FakeApprovals, FakeForms, make_controller
from tests.voice.corpus import IN_GRAMMAR, fixture

pytestmark = pytest.mark.skipif(not have_dbus_daemon(), reason="needs dbus-daemon (package dbus)")

GIT_STATUS = fixture(IN_GRAMMAR[0], "slt")


class HeldMicrophone:
    """A WAV file as a microphone held open: every frame, then silence-free waiting for
    ``stop`` (the release). Records when it was opened and whether it was stopped."""

    description = "held microphone (WAV)"

    def __init__(self, path) -> None:
        self._data = read_wav(path)
        self.opened = threading.Event()
        self.all_read = threading.Event()
        self.stopped = threading.Event()
        self.frames_after_stop = 0

    def stop(self) -> None:
        self.stopped.set()

    def frames(self, size: int) -> Iterator[bytes]:
        self.opened.set()
        for start in range(0, len(self._data), size):
            if self.stopped.is_set():
                self.frames_after_stop += 1
                return
            yield self._data[start : start + size]
        self.all_read.set()
        self.stopped.wait(60)  # held: nothing more is said, the recording stays open


@pytest.fixture
def bus(tmp_path):
    with session_bus(tmp_path / "bus") as address:
        double = PortalDouble(address)
        try:
            yield address, double
        finally:
            double.close()


def _bound(qtbot, ctl) -> None:
    qtbot.waitUntil(lambda: ctl.shortcuts.portal.bound is not None, timeout=15_000)


def test_holding_the_listen_shortcut_records_while_held_and_the_release_proposes(
    qtbot, bus
) -> None:
    address, portal = bus
    mics: list[HeldMicrophone] = []

    def microphone() -> HeldMicrophone:
        mics.append(HeldMicrophone(GIT_STATUS))
        return mics[-1]

    forms = FakeForms()  # git_status has no parameters, but home is no repository: the form says so
    engine = Engine(EngineOptions(include_user=False))
    ctl = make_controller(engine, forms=forms, audio=microphone, session_bus=address)
    heard: list = []
    ctl.voice.listening.heard.connect(heard.append)
    ctl.start()
    try:
        _bound(qtbot, ctl)
        assert mics == []  # nothing recorded before the key goes down
        portal.press("listen-hold")
        qtbot.waitUntil(lambda: bool(mics), timeout=10_000)
        qtbot.waitUntil(mics[0].all_read.is_set, timeout=60_000)  # the recognizer loads first
        # every word is in, yet while the key is held the recording stays open
        assert ctl.voice.listening.busy and not mics[0].stopped.is_set() and heard == []
        portal.press("listen-hold")  # a key repeat does not end it either …
        portal.press("command-bar")  # … (keys arrive in order: once the bar is up, it was seen)
        qtbot.waitUntil(lambda: ctl.text.command_bar is not None, timeout=10_000)
        qtbot.waitUntil(ctl.text.command_bar.isVisible, timeout=10_000)
        assert not mics[0].stopped.is_set() and len(mics) == 1
        portal.release("listen-hold")
        qtbot.waitUntil(lambda: bool(engine.runs.recent()), timeout=60_000)
        assert mics[0].stopped.is_set() and mics[0].frames_after_stop == 0
        assert [(p.status.value, p.heard.text) for p in heard] == [("ok", "show git status")]
        assert engine.runs.recent()[0].ref == "git.git_status"  # proposed, decided, run
        assert [ref for ref, _ in forms.calls] == ["git.git_status"]
        assert "not in one" in needs.lacking(
            engine.library.find_tool("git.git_status").tool,
            "Git status",
            forms.extras[0]["folder"].path,
        )
    finally:
        for mic in mics:
            mic.stop()
        ctl.voice.listening.wait()
        ctl.shutdown()
    assert portal.calls.count("BindShortcuts") == 1


def test_a_pinned_tools_shortcut_runs_it_through_the_normal_approval(qtbot, bus, engine) -> None:
    address, portal = bus
    engine.update_settings(replace(engine.settings, pinned_tools=("hello.say_hello",)))
    approvals = FakeApprovals()
    forms = FakeForms()
    ctl = make_controller(engine, forms=forms, approvals=approvals, session_bus=address)
    ctl.start()
    try:
        _bound(qtbot, ctl)
        assert "tool:hello.say_hello" in [i for i, _ in portal.bound["gibberish"]]
        for hostile in ("tool:hello.echo_text", "tool:../../bin/sh", "tool:", "nonsense"):
            portal.press(hostile)  # not pinned (or not ours): ignored, whatever the bus says
        portal.press("tool:hello.say_hello")
        qtbot.waitUntil(lambda: bool(engine.runs.recent()), timeout=15_000)
        assert [p.ref for p in approvals.seen] == ["hello.say_hello"]  # asked first
        assert forms.calls == []  # no form opened for a tool that is not pinned
        run = engine.runs.recent()[0]
        assert run.ref == "hello.say_hello" and run.result.success
        assert "hello from gibberish" in run.result.envelope.output
    finally:
        ctl.shutdown()


def test_a_denied_bind_tells_the_person_what_to_do(qtbot, bus, engine) -> None:
    address, portal = bus
    portal.deny_bind = True
    ctl = make_controller(engine, session_bus=address)
    said: list[tuple[str, str, bool]] = []
    ctl.notified.connect(lambda *a: said.append(a))
    ctl.start()
    try:
        qtbot.waitUntil(lambda: bool(said), timeout=15_000)
        title, body, failed = said[-1]
        assert title == "Keyboard shortcuts" and failed and "Settings → Shortcuts" in body
        assert "declined" in ctl.shortcuts.problem  # the details, for the Shortcuts tab
    finally:
        ctl.shutdown()


def test_a_bus_without_the_portal_is_no_balloon_only_a_note_for_the_tab(
    qtbot, tmp_path, engine
) -> None:
    with session_bus(tmp_path / "bare") as address:
        for _start in range(2):  # at every start
            ctl = make_controller(engine, session_bus=address)
            said: list[tuple[str, str, bool]] = []
            ctl.notified.connect(lambda *a, said=said: said.append(a))
            ctl.start()
            try:
                qtbot.waitUntil(lambda ctl=ctl: ctl.shortcuts.portal.done, timeout=15_000)
                QCoreApplication.processEvents()  # deliver the queued failure, if any
                assert [s for s in said if "shortcut" in s[0].lower()] == []  # no balloon
                assert "no GlobalShortcuts portal" in ctl.shortcuts.problem  # the tab says it
            finally:
                ctl.shutdown()


def test_a_compositor_socket_that_is_gone_is_told_once(
    qtbot, tmp_path, monkeypatch, engine
) -> None:
    monkeypatch.setenv("SWAYSOCK", str(tmp_path / "sway-ipc.gone.sock"))
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-1")
    for start in range(2):
        ctl = make_controller(engine)
        said: list[tuple[str, str, bool]] = []
        ctl.notified.connect(lambda *a, said=said: said.append(a))
        ctl.start()
        try:
            qtbot.waitUntil(lambda ctl=ctl: ctl.desktop_check.worker is not None, timeout=10_000)
            ctl.desktop_check.worker.join(10)
            QCoreApplication.processEvents()  # deliver the queued finding, if any
            told = [s for s in said if s[0] == "Automatic mode"]
            if start == 0:
                assert len(told) == 1 and "Is Sway still running?" in told[0][1]
            else:
                assert told == []
        finally:
            ctl.shutdown()
