"""The screenshot script still runs and produces every picture (into a temporary folder)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtGui import QImage

from tests.conftest import REPO_ROOT

EXPECTED = {
    "launcher",
    "tray-menu",
    "parameter-form",
    "approval-confirm",
    "approval-changed",
    "approval-untrusted",
    "result-success",
    "result-failure",
    "result-truncated",
    "command-bar",
    "command-bar-asking",
    "command-bar-no-server",
}
SHORT = {"command-bar-asking"}
"""Pictures that are one line high on purpose (the bar while the model thinks)."""


@pytest.mark.slow
def test_screenshot_script_makes_every_picture(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "docs" / "screenshots" / "make.py"), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=90,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    made = {p.stem for p in tmp_path.glob("*.png")}
    assert made == EXPECTED
    for name in EXPECTED:
        image = QImage(str(tmp_path / f"{name}.png"))
        assert image.width() >= 150 and image.height() >= (60 if name in SHORT else 100), name
