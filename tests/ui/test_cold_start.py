"""The tray's start through the real command: what is imported before its menu shows.

Each start is a real ``python -m gibberish`` process (offscreen, ``GIBBERISH_FORCE_TRAY``)
whose ``announce`` is wrapped so that, at ``shown``, it records ``sys.modules`` and the
tray menu's entries; the test waits for ``loaded`` in ``GIBBERISH_READY_FILE`` and then
quits the process with SIGTERM, as a session ending would.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gibberish.cli.tray_start import TrayRequest, tray_request
from gibberish.ui.menu import cache as menu_cache
from tests.conftest import REPO_ROOT

NOT_BEFORE_THE_MENU = (
    "gibberish.engine.core",
    "gibberish.engine.run_flow",
    "gibberish.skills.library",
    "gibberish.skills.parser",
    "gibberish.runner",
    "gibberish.trust.keys",
    "gibberish.trust.fingerprint",
    "gibberish.assistant",
    "keyring",
    "yaml",
    "click",
    "httpx",
    "ctypes",
    "PySide6.QtNetwork",
    "gibberish.trust.provenance",
    "gibberish.engine",
    "gibberish.settings",
    "gibberish.skills.model",
)
"""The Engine and what it needs (parser, runner, keyring), the click group, Qt's network
module (the single-instance server goes up one turn after the menu shows), and what only
an untrusted skill's tooltip reads."""

CHILD = """
import json, sys
from PySide6.QtWidgets import QApplication
import gibberish.ui.application as application

announce = application.announce
record_path = sys.argv[1]

def spy(stage):
    if stage == "shown":
        menus = [w for w in QApplication.allWidgets() if w.objectName() == "tray-menu"]
        record = {
            "modules": sorted(sys.modules),
            "menu": [a.objectName() for a in menus[0].actions()] if menus else None,
        }
        with open(record_path, "w") as stream:
            json.dump(record, stream)
    announce(stage)

application.announce = spy
sys.argv = ["gibberish", *sys.argv[2:]]
from gibberish.cli import main
main()
"""


def start_tray(tmp_path: Path, *args: str) -> dict:
    """Run the tray until it has loaded; what it had loaded and shown at ``shown``."""
    ready = tmp_path / "ready"
    ready.unlink(missing_ok=True)
    record = tmp_path / "at-shown.json"
    env = {**os.environ, "GIBBERISH_READY_FILE": str(ready), "GIBBERISH_FORCE_TRAY": "1"}
    env["PYTHONPATH"] = str(REPO_ROOT)
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(record), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not (ready.is_file() and "loaded" in ready.read_text().split()):
            if child.poll() is not None:
                pytest.fail(f"the tray stopped ({child.returncode}): {child.stderr.read()}")
            assert time.monotonic() < deadline, "the tray did not load its skills"
            time.sleep(0.05)
        child.send_signal(signal.SIGTERM)
        _, err = child.communicate(timeout=30)
        assert child.returncode == 0, err
        assert "Traceback" not in err
    finally:
        if child.poll() is None:
            child.kill()
            child.communicate()
    assert ready.read_text().split() == ["shown", "loaded"]
    return json.loads(record.read_text())


def test_the_menu_shows_before_the_engine_is_imported_cold_and_warm(
    tmp_path: Path, skills_dir: Path
) -> None:
    args = ("--no-bundled", "--no-user-skills", "--skills-dir", str(skills_dir))
    cold = start_tray(tmp_path, *args)
    early = sorted(m for m in NOT_BEFORE_THE_MENU if m in cold["modules"])
    assert early == [], f"imported before the first menu: {early}"
    assert "no-skills" in cold["menu"] and "quit" in cold["menu"]  # "Loading skills…"
    assert menu_cache.cache_path().is_file()  # written once the Engine had loaded

    warm = start_tray(tmp_path, *args)
    early = sorted(m for m in NOT_BEFORE_THE_MENU if m in warm["modules"])
    assert early == [], f"imported before the first menu: {early}"
    skills = [name for name in warm["menu"] if name.startswith("skill:")]
    assert skills == ["skill:hello", "skill:kinds", "skill:slow"]  # from the menu cache


def test_a_corrupted_menu_cache_still_starts_and_is_rewritten(
    tmp_path: Path, skills_dir: Path
) -> None:
    path = menu_cache.cache_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\x00 not a menu \x00" * 50)
    shown = start_tray(
        tmp_path, "--no-bundled", "--no-user-skills", "--skills-dir", str(skills_dir)
    )
    assert "no-skills" in shown["menu"]  # drawn as on a first start
    cached = menu_cache.load(path)
    assert cached is not None, "the menu cache was not rewritten"
    assert [s.name for s in cached[0].skills()] == ["hello", "kinds", "slow"]


def test_only_the_tray_command_lines_skip_click(tmp_path: Path) -> None:
    folder = tmp_path / "more"
    folder.mkdir()
    a_file = tmp_path / "file"
    a_file.write_text("")
    assert tray_request([]) == TrayRequest()
    assert tray_request(["tray"]) == TrayRequest()
    assert tray_request(["--no-bundled", "--debug", "tray", "--no-tray"]) == TrayRequest(
        include_bundled=False, debug=True, no_tray=True
    )
    assert tray_request(["--skills-dir", str(folder), "--no-user-skills"]) == TrayRequest(
        skills_dirs=(folder,), include_user=False
    )
    assert tray_request([f"--skills-dir={folder}"]) == TrayRequest(skills_dirs=(folder,))
    for other in (
        ["--help"],
        ["tray", "--help"],
        ["tray", "--no-tray", "extra"],
        ["--no-tray"],
        ["skills", "list"],
        ["--skills-dir"],
        ["--skills-dir", str(a_file)],  # click says it is a file
        ["--version", "tray"],
    ):
        assert tray_request(other) is None, other


@pytest.mark.timeout(30)
def test_the_ready_file_never_blocks_nor_fails_the_app(tmp_path: Path, monkeypatch, caplog) -> None:
    from gibberish.ui.application import READY_FILE_VARIABLE, announce

    plain = tmp_path / "ready"
    monkeypatch.setenv(READY_FILE_VARIABLE, str(plain))
    announce("shown")
    announce("loaded")
    assert plain.read_text() == "shown\nloaded\n"

    unread = tmp_path / "pipe"
    os.mkfifo(unread)
    monkeypatch.setenv(READY_FILE_VARIABLE, str(unread))
    started = time.monotonic()
    announce("shown")  # nobody reads the pipe: an open for writing would wait forever
    assert time.monotonic() - started < 5
    monkeypatch.setenv(READY_FILE_VARIABLE, str(tmp_path / "missing" / "ready"))
    announce("shown")
    assert "cannot write GIBBERISH_READY_FILE" in caplog.text


def test_the_start_lock_excludes_a_second_start_and_dies_with_its_holder(tmp_path: Path) -> None:
    from gibberish.ui.single_instance import start_lock

    path = str(tmp_path / "gibberish.sock.lock")
    with start_lock(path) as first:
        assert first is True
        started = time.monotonic()
        with start_lock(path, wait=0.2) as second:
            assert second is False  # held: waited, then went on without it
        assert time.monotonic() - started >= 0.2
    assert oct(os.stat(path).st_mode & 0o777) == "0o600"
    # Held by a process that is killed: the kernel releases it, no stale lock is left.
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import fcntl, os, sys, time; fd = os.open(sys.argv[1], os.O_RDWR);"
            " fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); time.sleep(60)",
            path,
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        with start_lock(path, wait=0.1) as taken:
            assert taken is False
    finally:
        holder.kill()
        holder.wait()
    with start_lock(path, wait=5) as taken:
        assert taken is True
