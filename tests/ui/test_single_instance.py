"""Single instance: the second start hands its request over; stale sockets are cleaned up."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gibberish.ui.errors import log_path
from gibberish.ui.single_instance import SingleInstance, server_name

CLIENT = (
    "import sys\n"
    "from PySide6.QtCore import QCoreApplication\n"
    "from gibberish.ui.single_instance import send_message\n"
    "app = QCoreApplication([])\n"
    "print('delivered' if send_message(sys.argv[1], sys.argv[2]) else 'nobody')\n"
)


def run_client(qtbot, name: str, message: str) -> str:
    proc = subprocess.Popen(
        [sys.executable, "-c", CLIENT, name, message],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    qtbot.waitUntil(lambda: proc.poll() is not None, timeout=20_000)
    return proc.stdout.read().strip()


def test_socket_lives_in_the_runtime_dir() -> None:
    assert server_name() == os.path.join(os.environ["XDG_RUNTIME_DIR"], "gibberish.sock")


def test_second_start_forwards_its_request(qtbot) -> None:
    first = SingleInstance()
    assert first.acquire() is True
    received: list[str] = []
    first.message_received.connect(received.append)
    try:
        assert run_client(qtbot, first.name, "open-command-bar") == "delivered"
        qtbot.waitUntil(lambda: received == ["open-command-bar"])
        assert run_client(qtbot, first.name, "ask what is my disk usage") == "delivered"
        qtbot.waitUntil(lambda: received[-1] == "ask what is my disk usage")
        assert oct(os.stat(first.name).st_mode & 0o777) == "0o700"
    finally:
        first.close()


CLAIMER = (
    "import sys\n"
    "from PySide6.QtCore import QCoreApplication\n"
    "from gibberish.ui.single_instance import SingleInstance\n"
    "app = QCoreApplication([])\n"
    "print('asking', flush=True)\n"
    "print('first' if SingleInstance(sys.argv[1]).claim('show') else 'handed over')\n"
)


def lock_is_open_in(pid: int, lock: str) -> bool:
    """True once process ``pid`` has opened ``lock`` (it is about to take it)."""
    with contextlib.suppress(OSError):
        for fd in os.listdir(f"/proc/{pid}/fd"):
            with contextlib.suppress(OSError):
                if os.readlink(f"/proc/{pid}/fd/{fd}") == lock:
                    return True
    return False


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc (Linux)")
def test_a_start_while_the_first_is_not_yet_listening_waits_and_hands_over(qtbot) -> None:
    """``claim`` holds the start lock until ``listen_held`` (one turn after the menu): a
    second start in between waits for the server instead of believing it is first."""
    from gibberish.ui.single_instance import start_lock

    first = SingleInstance()
    assert first.claim() is True
    assert not Path(first.name).exists()  # not listening yet: no Qt network module
    received: list[str] = []
    first.message_received.connect(received.append)
    second = subprocess.Popen(
        [sys.executable, "-c", CLAIMER, first.name],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert second.stdout.readline().strip() == "asking"
        lock = first.name + ".lock"
        qtbot.waitUntil(
            lambda: lock_is_open_in(second.pid, lock) or second.poll() is not None,
            timeout=20_000,
        )
        assert first.listen_held() is True
        qtbot.waitUntil(lambda: second.poll() is not None, timeout=20_000)
        assert second.stdout.read().strip() == "handed over", second.stderr.read()
        qtbot.waitUntil(lambda: received == ["show"])
        with start_lock(first.name + ".lock", wait=0) as taken:
            assert taken is True  # released once listening
    finally:
        if second.poll() is None:
            second.kill()
        second.communicate()
        first.close()


def test_nobody_listening_means_this_process_is_first(qtbot) -> None:
    assert run_client(qtbot, server_name(), "open-command-bar") == "nobody"


def test_stale_socket_of_a_crashed_instance_is_replaced(qtbot) -> None:
    name = server_name()
    leftover = socket.socket(socket.AF_UNIX)
    leftover.bind(name)  # bound, never listening, then "crashed"
    leftover.close()
    assert Path(name).exists()
    instance = SingleInstance()
    try:
        assert instance.acquire() is True
        assert instance.removed_stale
        received: list[str] = []
        instance.message_received.connect(received.append)
        assert run_client(qtbot, name, "show") == "delivered"
        qtbot.waitUntil(lambda: received == ["show"])
    finally:
        instance.close()


@pytest.mark.slow
def test_real_second_gibberish_opens_the_command_bar_of_the_first(tmp_path: Path) -> None:
    """Two real ``gibberish`` processes: the second exits at once, the first gets the request."""
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "gibberish", "--no-bundled", "--no-user-skills"]
    first = subprocess.Popen(
        [*cmd, "tray", "--no-tray"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    try:
        deadline = time.monotonic() + 30
        while not (log_path().is_file() and "gibberish started" in log_path().read_text()):
            assert first.poll() is None, first.stderr.read().decode()
            assert time.monotonic() < deadline, "the first instance did not start"
            time.sleep(0.05)
        started = time.monotonic()
        second = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=30)
        assert second.returncode == 0, second.stderr
        assert "already running" in second.stderr
        assert time.monotonic() - started < 10
        deadline = time.monotonic() + 10
        while (
            "request from another gibberish process: open-command-bar" not in log_path().read_text()
        ):
            assert time.monotonic() < deadline
            time.sleep(0.05)
        first.send_signal(signal.SIGTERM)  # quits cleanly through the Qt event loop
        assert first.wait(timeout=20) == 0
    finally:
        if first.poll() is None:
            first.kill()
            first.wait()


def test_a_socket_that_cannot_be_made_is_a_no_not_a_crash(qtbot, tmp_path: Path) -> None:
    """``listen`` looks at why Qt refused (address in use: a leftover to remove) through
    the server's error, a ``QAbstractSocket.SocketError``; any refusal is False."""
    for name in (
        str(tmp_path / "missing" / "gibberish.sock"),  # no such folder
        str(tmp_path / ("x" * 200) / "gibberish.sock"),  # longer than a socket path may be
    ):
        instance = SingleInstance(name)
        try:
            assert instance.listen() is False
            assert instance.server is None
        finally:
            instance.close()
