"""Loggers are made on request, and a front end's log set-up runs before the first one.

The command line's log file is attached when a module first asks for a logger, so a
command that logs nothing never imports ``logging``; one that does still writes every
line to the file, and a front end that keeps its log elsewhere (the tray) drops the
waiting set-up.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gibberish import logger as logger_module
from tests.conftest import REPO_ROOT


@pytest.fixture
def fresh(monkeypatch):
    monkeypatch.setattr(logger_module, "_waiting", [])
    monkeypatch.setattr(logger_module, "_state", {"asked": False})


def test_a_set_up_waits_for_the_first_logger_and_runs_once(fresh) -> None:
    ran: list[str] = []
    logger_module.when_logging(lambda: ran.append("set up"))
    assert ran == []
    log = logger_module.logger("gibberish.test")
    assert ran == ["set up"] and log.name == "gibberish.test"
    logger_module.logger("gibberish.test.other")
    assert ran == ["set up"]
    logger_module.when_logging(lambda: ran.append("late"))  # a logger was asked: at once
    assert ran == ["set up", "late"]


def test_a_forgotten_set_up_never_runs(fresh) -> None:
    ran: list[str] = []

    def set_up() -> None:
        ran.append("set up")

    logger_module.when_logging(set_up)
    logger_module.when_logging(set_up)  # asked twice: waits once
    logger_module.forget(set_up)
    logger_module.logger("gibberish.test")
    assert ran == []


def _run(code: str) -> subprocess.CompletedProcess[str]:
    """``code`` in a new Python, in this test's HOME and XDG folders (tests/conftest.py)."""
    return subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=os.environ.copy(),
        capture_output=True, text=True, timeout=60, stdin=subprocess.DEVNULL,
    )  # fmt: skip


def test_a_command_that_logs_nothing_imports_no_logging_and_one_that_logs_writes_the_file() -> None:
    quiet = _run(
        "import sys\n"
        "from gibberish.cli import logfile\n"
        "logfile.configure()\n"
        "print('logging' in sys.modules)\n",
    )
    assert quiet.stdout.split() == ["False"], quiet.stderr
    loud = _run(
        "from gibberish.cli import logfile\n"
        "from gibberish.logger import logger\n"
        "print(logfile.configure())\n"
        "logger('gibberish.test').warning('token https://me:s3cret@example.org/x seen')\n",
    )
    assert loud.returncode == 0, loud.stderr
    text = Path(loud.stdout.strip()).read_text(encoding="utf-8")
    assert "WARNING gibberish.test: token" in text
    assert "s3cret" not in text  # the file's lines are scrubbed as before


def test_the_tray_drops_the_command_lines_waiting_log() -> None:
    done = _run(
        "from gibberish.cli import logfile\n"
        "from gibberish.logger import logger\n"
        "print(logfile.configure())\n"
        "logfile.detach()\n"
        "logger('gibberish.test').warning('for the tray log only')\n",
    )
    assert done.returncode == 0, done.stderr
    assert not Path(done.stdout.strip()).exists()
