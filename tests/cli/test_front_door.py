"""The front door: the hotkey hand-off, ``--version`` and ``import gibberish.cli`` stay light.

Each check runs in a fresh interpreter (an import, once made, cannot be undone) and looks
at ``sys.modules`` when the program is done.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from gibberish import __version__
from gibberish.cli import COMMAND_HINTS, COMMAND_MODULES, forwarded_request, may_start_tray
from gibberish.instance_socket import send_request, socket_path
from tests.conftest import REPO_ROOT

HEAVY = (
    "PySide6",
    "shiboken6",
    "keyring",
    "yaml",
    "bashlex",
    "httpx",
    "fastapi",
    "psutil",
    "gibberish.engine.core",
    "gibberish.skills",
    "gibberish.ui",
)
"""Nothing on the hand-off path may import these; ``import gibberish.cli`` neither."""

CHILD = """
import json, sys
heavy = json.loads(sys.argv[2])
sys.argv = ["gibberish", *json.loads(sys.argv[1])]
code = None
try:
    {body}
except SystemExit as exit:
    code = exit.code
loaded = sorted(m for m in heavy if m in sys.modules)
print(json.dumps({{"code": code, "loaded": loaded}}), file=sys.stderr)
"""


def run_child(body: str, args: list[str], heavy: tuple[str, ...] = HEAVY) -> tuple[dict, str]:
    """Run ``body`` in a fresh interpreter; its exit code and the heavy modules it loaded."""
    result = subprocess.run(
        [sys.executable, "-c", CHILD.format(body=body), json.dumps(args), json.dumps(heavy)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO_ROOT,
        env=dict(os.environ),
    )
    report = json.loads(result.stderr.strip().splitlines()[-1])
    return report, result.stdout


class FakeInstance:
    """A running instance's socket in plain Python: records each line, answers ``ok``."""

    def __init__(self, path: str) -> None:
        self.received: list[str] = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(path)
        self.server.listen(4)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.server.accept()
            except OSError:
                return
            with conn:
                data = b""
                while b"\n" not in data:
                    chunk = conn.recv(1024)
                    if not chunk:
                        break
                    data += chunk
                self.received.append(data.decode().strip())
                conn.sendall(b"ok\n")

    def close(self) -> None:
        self.server.shutdown(socket.SHUT_RDWR)
        self.server.close()
        self.thread.join(timeout=5)


@pytest.fixture
def instance():
    running = FakeInstance(socket_path())
    try:
        yield running
    finally:
        running.close()


def test_importing_the_cli_loads_nothing_heavy() -> None:
    report, _ = run_child("import gibberish.cli", [], (*HEAVY, "click"))
    assert report["loaded"] == []


@pytest.mark.parametrize(
    "module", ["gibberish.assistant.fuzzy", "gibberish.assistant.context_store"]
)
def test_the_parts_of_the_model_feed_the_tray_uses_first_load_no_model_client(module) -> None:
    """The command bar's ranker and the Context menu's pins load on the GUI thread the
    first time they are used: without the model clients (and their HTTP library), which
    took a third of a second there."""
    report, _ = run_child(f"import {module}", [], ("httpx", "gibberish.assistant.clients"))
    assert report["loaded"] == []
    report, _ = run_child("from gibberish.assistant import client_for", [], ("httpx",))
    assert report["loaded"] == ["httpx"]  # a name of the package loads its module when used


@pytest.mark.parametrize("args", [[], ["tray"], ["listen"], ["--no-bundled", "--debug"]])
def test_the_hand_off_to_a_running_instance_loads_nothing_heavy(instance, args) -> None:
    report, _ = run_child("from gibberish.cli import main; main()", args, (*HEAVY, "click"))
    assert report == {"code": 0, "loaded": []}
    expected = "listen" if args == ["listen"] else "open-command-bar"
    assert instance.received == [expected]


def test_the_hand_off_reaches_the_real_qt_instance(qtbot) -> None:
    from gibberish.ui.single_instance import SingleInstance

    first = SingleInstance()
    assert first.acquire() is True
    received: list[str] = []
    first.message_received.connect(received.append)
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gibberish"],
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=20_000)
        assert proc.returncode == 0
        assert "already running: opened its command bar" in proc.stderr.read()
        qtbot.waitUntil(lambda: received == ["open-command-bar"])
    finally:
        first.close()


def test_version_loads_nothing_heavy() -> None:
    report, out = run_child("from gibberish.cli import main; main()", ["--version"])
    assert report == {"code": None, "loaded": []}
    assert out == f"gibberish, version {__version__}\n"


def test_one_command_imports_its_own_module_only() -> None:
    body = "from gibberish.cli import main; main()"
    others = tuple(m for m in COMMAND_MODULES if m != "gibberish.cli.run")
    report, _ = run_child(body, ["run", "--help"], (*others, "PySide6", "httpx", "fastapi"))
    assert report == {"code": 0, "loaded": []}


def test_nothing_is_forwarded_when_no_instance_runs() -> None:
    assert send_request("open-command-bar") is False
    leftover = socket.socket(socket.AF_UNIX)
    leftover.bind(socket_path())  # a crashed instance's socket: nobody listens
    leftover.close()
    assert Path(socket_path()).exists()
    assert send_request("open-command-bar") is False


def test_only_the_listed_command_lines_are_forwarded() -> None:
    assert forwarded_request([])[0] == "open-command-bar"
    assert forwarded_request(["--skills-dir", "x", "tray"])[0] == "open-command-bar"
    assert forwarded_request(["--skills-dir=x", "listen"])[0] == "listen"
    for args in (["run", "x.y"], ["tray", "--no-tray"], ["--help"], ["--skills-dir"]):
        assert forwarded_request(args) is None


def test_only_a_command_line_without_a_command_or_with_tray_may_start_the_tray() -> None:
    for args in ([], ["tray"], ["--no-bundled", "tray", "--no-tray"], ["--skills-dir", "x"]):
        assert may_start_tray(args)
    for args in (["install", "x"], ["--debug", "run", "x.y"], ["--help"], ["--skills-dir"]):
        assert not may_start_tray(args)


def test_the_command_hints_name_the_module_that_holds_each_command() -> None:
    import importlib

    found = {}
    for module_name in COMMAND_MODULES:
        for command in importlib.import_module(module_name).COMMANDS:
            found[command.name] = module_name
    assert found == COMMAND_HINTS
