"""Settings files that used to break every command: deep nesting, a FIFO, a huge file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gibberish import paths
from gibberish.settings import MAX_SETTINGS_BYTES, Settings, load_settings

REPO = Path(__file__).resolve().parent.parent
NESTED = "a = " + "[" * 1200 + "]" * 1200 + "\n"  # about 2.4 KB


def _config() -> Path:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gibberish", "--no-user-skills", *args],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=REPO,
        env=os.environ.copy(),
    )


def test_deeply_nested_arrays_are_a_notice_and_the_file_is_kept() -> None:
    path = _config()
    path.write_text(NESTED)
    loaded = load_settings()
    assert loaded.settings == Settings()
    [notice] = loaded.notices
    assert "too deeply" in notice and "kept as" in notice and str(path) in notice
    [kept] = path.parent.glob("config.toml.broken-*")
    assert kept.read_text() == NESTED


def test_every_command_still_works_with_the_nested_file() -> None:
    _config().write_text(NESTED)
    done = _cli("skills", "list")
    assert done.returncode == 0, done.stderr
    assert "RecursionError" not in done.stderr and "too deeply" in done.stderr
    assert "git" in done.stdout


def test_a_fifo_is_refused_at_once_and_left_alone() -> None:
    path = _config()
    os.mkfifo(path)
    loaded = load_settings()
    assert loaded.settings == Settings()
    [notice] = loaded.notices
    assert "not a regular file (a FIFO)" in notice and "Remove it" in notice
    done = _cli("skills", "list")  # used to hang here, waiting for a writer
    assert done.returncode == 0 and "a FIFO" in done.stderr


def test_a_folder_and_a_huge_file_are_refused_with_a_message() -> None:
    path = _config()
    path.mkdir()
    [notice] = load_settings().notices
    assert "(a folder)" in notice
    path.rmdir()
    path.write_bytes(b"# " + b"x" * MAX_SETTINGS_BYTES + b"\n")
    [notice] = load_settings().notices
    assert "larger than" in notice and path.exists()
