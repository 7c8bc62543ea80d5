"""The Hyprland and KDE backends against doubles: neither compositor runs headless here.

Hyprland: a Unix socket at Hyprland's path answers ``j/activewindow`` with a response in
the exact shape ``hyprctl activewindow -j`` prints (Hyprland 0.4x), its pid replaced by
a real process. KDE: a KWin double on a real dbus-daemon implements the documented
scripting calls (``loadScript``, ``run``, ``unloadScript``); it cannot run JavaScript, so
on ``run`` it reads the ``callDBus`` target from the script it was given and calls it
with a pid, as KWin's script would.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call, new_method_return
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import open_dbus_connection

from gibberish.desktop import detect
from gibberish.desktop.hyprland import HyprlandFocusProvider, socket_path
from gibberish.desktop.kde import KWinFocusProvider
from tests.desktop.sessionbus import have_dbus_daemon, session_bus

RECORDED_ACTIVE_WINDOW = """{
    "address": "0x55df0602e220",
    "mapped": true,
    "hidden": false,
    "at": [1288, 14],
    "size": [1258, 1380],
    "workspace": {
        "id": 2,
        "name": "2"
    },
    "floating": false,
    "pseudo": false,
    "monitor": 0,
    "class": "kitty",
    "title": "~/work",
    "initialClass": "kitty",
    "initialTitle": "kitty",
    "pid": PID,
    "xwayland": false,
    "pinned": false,
    "fullscreen": 0,
    "fullscreenClient": 0,
    "grouped": [],
    "tags": [],
    "swallowing": "0x0",
    "focusHistoryID": 0,
    "inhibitingIdle": false
}"""


@pytest.fixture
def shell_in_repo(tmp_path) -> Iterator[tuple[subprocess.Popen, Path]]:
    if shutil.which("git") is None:
        pytest.skip("needs the git program (Debian: apt-get install git)")
    repo = tmp_path / "repo"
    repo.mkdir()
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    proc = subprocess.Popen(["sleep", "60"], cwd=repo)
    try:
        yield proc, repo
    finally:
        proc.kill()
        proc.wait()


class HyprSocket:
    """Hyprland's request socket: one request per connection, answered, then closed."""

    def __init__(self, path: Path, answer: bytes) -> None:
        path.parent.mkdir(parents=True)
        self.answer = answer
        self.requests: list[bytes] = []
        self._server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self._server.bind(str(path))
        self._server.listen()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self._server.accept()
            except OSError:
                return
            with conn:
                self.requests.append(conn.recv(1024))
                conn.sendall(self.answer)

    def close(self) -> None:
        self._server.close()


@pytest.fixture
def hyprland(monkeypatch, isolated_environment) -> Iterator[HyprSocket]:
    monkeypatch.setenv("HYPRLAND_INSTANCE_SIGNATURE", "v0.45_1700000000_abcdef")
    monkeypatch.setenv("WAYLAND_DISPLAY", "wayland-1")
    path = socket_path(os.environ)
    server = HyprSocket(path, b"{}")
    yield server
    server.close()


def test_hyprland_names_the_active_windows_process_and_folder(hyprland, shell_in_repo) -> None:
    proc, repo = shell_in_repo
    hyprland.answer = RECORDED_ACTIVE_WINDOW.replace("PID", str(proc.pid)).encode()
    provider = detect.focus_backend()
    assert isinstance(provider, HyprlandFocusProvider)
    info = provider.focused()
    assert info is not None and info.pid == proc.pid and info.app == "sleep" and info.cwd == repo
    assert hyprland.requests[-1] == b"j/activewindow"
    assert provider.problem() is None


@pytest.mark.parametrize(
    "answer", [b"{}", b"Invalid", b"", b"[1, 2]", b'{"pid": -1}', b'{"pid": true}', b"x" * 5000]
)
def test_hyprland_answers_without_a_window_are_no_focus(hyprland, answer) -> None:
    hyprland.answer = answer
    assert HyprlandFocusProvider().focused() is None


def test_hyprland_socket_gone_is_a_sentence(hyprland) -> None:
    hyprland.close()
    provider = HyprlandFocusProvider()
    assert provider.focused() is None
    problem = provider.problem()
    assert problem is not None and "cannot be reached" in problem and "Hyprland" in problem


@pytest.mark.parametrize("signature", ["../../etc", "a/b", "..", ""])
def test_a_hostile_instance_signature_is_no_path(signature) -> None:
    assert socket_path({"HYPRLAND_INSTANCE_SIGNATURE": signature, "XDG_RUNTIME_DIR": "/r"}) is None


# ------------------------------------------------------------------ KDE Plasma
class KWinDouble:
    """``org.kde.KWin``'s scripting objects, answering as KWin does."""

    def __init__(self, address: str, pid: int | None) -> None:
        self.pid = pid  # None: the script never reports
        self.impostor_first = False
        self.calls: list[str] = []
        self.scripts: list[str] = []
        self._conn = open_dbus_connection(address)
        self._conn.send_and_get_reply(message_bus.RequestName("org.kde.KWin"))
        self._caller = open_dbus_connection(address)
        self._stop = False
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

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

    def _handle(self, msg) -> None:
        member = msg.header.fields[HeaderFields.member]
        self.calls.append(member)
        if member == "loadScript":
            path, _plugin = msg.body
            self.scripts.append(Path(path).read_text(encoding="utf-8"))
            self._conn.send(new_method_return(msg, "i", (7,)))
        elif member == "run":
            self._conn.send(new_method_return(msg))
            self._run_script(self.scripts[-1])
        elif member == "unloadScript":
            self._conn.send(new_method_return(msg, "b", (True,)))
        else:
            self._conn.send(new_method_return(msg))

    def _run_script(self, text: str) -> None:
        target = re.search(r'callDBus\("([^"]+)", "([^"]+)", "([^"]+)", "Report"', text)
        if target is None or self.pid is None or "workspace.activeWindow" not in text:
            return

        name, path, interface = target.groups()
        call = new_method_call(DBusAddress(path, name, interface), "Report", "i", (self.pid,))
        if self.impostor_first:  # another client on the bus answers first
            self._caller.send(
                new_method_call(DBusAddress(path, name, interface), "Report", "i", (1,))
            )
        self._conn.send(call)  # as KWin: from the connection that owns org.kde.KWin

    def close(self) -> None:
        self._stop = True
        self._conn.close()
        self._caller.close()
        self._thread.join(5)


needs_bus = pytest.mark.skipif(not have_dbus_daemon(), reason="needs dbus-daemon (package dbus)")


@needs_bus
def test_kde_a_kwin_script_reports_the_active_window(tmp_path, shell_in_repo) -> None:
    proc, repo = shell_in_repo
    with session_bus(tmp_path / "bus") as address:
        kwin = KWinDouble(address, proc.pid)
        try:
            provider = KWinFocusProvider(address=address)
            assert provider.problem() is None
            info = provider.focused()
        finally:
            kwin.close()
    assert info is not None and info.pid == proc.pid and info.cwd == repo
    assert kwin.calls[:2] == ["loadScript", "run"] and "unloadScript" in kwin.calls
    assert not list((Path(os.environ["XDG_RUNTIME_DIR"])).glob("gibberish_focus_*"))


@needs_bus
def test_kde_a_script_that_never_reports_is_no_focus(tmp_path) -> None:
    with session_bus(tmp_path / "bus") as address:
        kwin = KWinDouble(address, None)
        try:
            assert KWinFocusProvider(address=address, timeout=0.5).focused() is None
            assert "unloadScript" in kwin.calls
        finally:
            kwin.close()


@needs_bus
def test_kde_without_kwin_is_a_sentence(tmp_path) -> None:
    with session_bus(tmp_path / "bus") as address:
        provider = KWinFocusProvider(address=address, timeout=0.5)
        assert provider.focused() is None
        assert "KWin is not on the session bus" in (provider.problem() or "")
    assert "cannot be reached" in (KWinFocusProvider(address=address).problem() or "")


@needs_bus
def test_kde_a_report_from_another_client_is_refused(tmp_path, shell_in_repo) -> None:
    proc, _repo = shell_in_repo
    with session_bus(tmp_path / "bus") as address:
        kwin = KWinDouble(address, proc.pid)
        kwin.impostor_first = True  # claims pid 1 before KWin's own answer
        try:
            info = KWinFocusProvider(address=address).focused()
        finally:
            kwin.close()
    assert info is not None and info.pid == proc.pid
