"""Socket squatting: another user binding our name first, or talking to our socket.

The cross-user tests need root (to run a process as ``nobody``) and skip otherwise.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from gibberish import paths
from gibberish.ui.single_instance import SingleInstance, send_message, server_name

NOBODY = 65534
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run a process as nobody")


@pytest.fixture
def no_runtime_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.delenv("XDG_RUNTIME_DIR")
    shared = tmp_path / "shared-tmp"
    shared.mkdir(mode=0o777)
    shared.chmod(0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    return shared


@pytest.fixture
def open_folder():
    """A world-writable folder under /tmp that ``nobody`` can reach."""
    folder = Path(tempfile.mkdtemp(prefix="gibberish-squat-", dir="/tmp"))
    folder.chmod(0o777)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def test_without_runtime_dir_the_socket_is_in_a_private_folder(no_runtime_dir: Path) -> None:
    name = Path(server_name())
    assert name.parent == no_runtime_dir / f"gibberish-{os.getuid()}"
    info = name.parent.stat()
    assert info.st_uid == os.getuid() and info.st_mode & 0o777 == 0o700


def test_our_folder_left_open_is_closed_again(no_runtime_dir: Path) -> None:
    folder = no_runtime_dir / f"gibberish-{os.getuid()}"
    folder.mkdir(mode=0o777)
    folder.chmod(0o777)
    assert Path(server_name()).parent == folder
    assert folder.stat().st_mode & 0o777 == 0o700


@as_root
def test_a_folder_made_by_someone_else_is_not_used(qtbot, no_runtime_dir: Path) -> None:
    squatted = no_runtime_dir / f"gibberish-{os.getuid()}"
    squatted.mkdir(mode=0o777)
    os.chown(squatted, NOBODY, NOBODY)
    name = Path(server_name())
    assert name.parent == paths.cache_dir() / "run"
    instance = SingleInstance()
    try:
        assert instance.acquire() is True  # we are the first: nobody's folder changes nothing
    finally:
        instance.close()


SQUATTER = """
import os, socket, sys
os.setgid(65534); os.setuid(65534)
server = socket.socket(socket.AF_UNIX)
server.bind(sys.argv[1]); server.listen(1)
print("ready", flush=True)
server.settimeout(10)
try:
    conn, _ = server.accept()
    conn.sendall(b"ok\\n")
    conn.settimeout(2)
    print("received", repr(conn.recv(4096)), flush=True)
except OSError as exc:
    print("received nothing", type(exc).__name__, flush=True)
"""


@as_root
def test_a_server_of_another_user_is_told_nothing(qtbot, open_folder: Path) -> None:
    name = str(open_folder / "gibberish.sock")
    squatter = subprocess.Popen(
        [sys.executable, "-c", SQUATTER, name], stdout=subprocess.PIPE, text=True
    )
    try:
        assert squatter.stdout.readline().strip() == "ready"
        assert send_message(name, "ask read my mail") is False
        rest = squatter.communicate(timeout=30)[0]
    finally:
        squatter.kill()
        squatter.wait()
    assert "read my mail" not in rest
    assert "received b''" in rest or "received nothing" in rest, rest


CLIENT = """
import os, socket, sys
os.setgid(65534); os.setuid(65534)
client = socket.socket(socket.AF_UNIX)
client.settimeout(5)
client.connect(sys.argv[1])
client.sendall(b"show\\n")
try:
    print("reply", repr(client.recv(16)))
except OSError as exc:
    print("no reply", type(exc).__name__)
"""


@as_root
def test_a_client_of_another_user_is_ignored(qtbot, open_folder: Path) -> None:
    instance = SingleInstance(str(open_folder / "gibberish.sock"))
    assert instance.listen()
    os.chmod(instance.name, 0o777)  # let nobody connect, so the uid check is what stops it
    received: list[str] = []
    instance.message_received.connect(received.append)
    try:
        client = subprocess.Popen(
            [sys.executable, "-c", CLIENT, instance.name], stdout=subprocess.PIPE, text=True
        )
        qtbot.waitUntil(lambda: client.poll() is not None, timeout=20_000)
        output = client.stdout.read()
    finally:
        instance.close()
    assert received == []
    assert "ok" not in output, output
