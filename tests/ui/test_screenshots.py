"""The screenshot script still runs, and every picture has the committed one's layout.

Both are drawn with the fonts shipped in tests/fonts/; "the same layout" is
tests/helpers/pictures.py: the same size within a few pixels, and no clump of squares
where something appeared or disappeared, so a blank, half-drawn or re-laid-out dialog
fails while another anti-aliasing or hinting of the same glyphs does not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QRect
from PySide6.QtGui import QImage, QPainter

from tests.conftest import REPO_ROOT
from tests.helpers.pictures import compare

COMMITTED = REPO_ROOT / "docs" / "screenshots"
EXPECTED = {
    "launcher",
    "tray-menu",
    "parameter-form",
    "parameter-form-dark",
    "approval-confirm",
    "approval-changed",
    "approval-changed-dark",
    "approval-untrusted",
    "result-success",
    "result-failure",
    "result-failure-dark",
    "result-truncated",
    "command-bar",
    "command-bar-dark",
    "command-bar-asking",
    "command-bar-no-server",
    "export-plugin",
}


def test_a_blank_picture_is_not_like_a_dialog() -> None:
    dialog = QImage(str(COMMITTED / "approval-changed.png"))
    blank = QImage(dialog.size(), QImage.Format.Format_RGB32)
    blank.fill(dialog.pixelColor(2, 2))
    assert not compare(blank, dialog).alike


def test_a_moved_button_is_a_different_layout() -> None:
    """The "Open folder" button drawn over at the right, the left one painted out."""
    dialog = QImage(str(COMMITTED / "approval-confirm.png"))
    moved = dialog.copy()
    painter = QPainter(moved)
    button = QRect(10, dialog.height() - 40, 100, 32)
    painter.drawImage(QPoint(320, button.top()), dialog.copy(button))
    painter.fillRect(button, dialog.pixelColor(2, dialog.height() - 60))
    painter.end()
    assert compare(dialog, dialog).alike
    assert not compare(moved, dialog).alike


@pytest.mark.slow
def test_screenshots_match_the_committed_ones(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    result = subprocess.run(
        [sys.executable, str(REPO_ROOT / "docs" / "screenshots" / "make.py"), str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert {p.stem for p in tmp_path.glob("*.png")} == EXPECTED
    for name in sorted(EXPECTED):
        fresh = QImage(str(tmp_path / f"{name}.png"))
        committed = QImage(str(COMMITTED / f"{name}.png"))
        assert not committed.isNull(), f"{name}.png is not committed"
        result = compare(fresh, committed)
        assert result.size_ok, f"{name}: {fresh.size()} drawn, {committed.size()} committed"
        assert result.alike, f"{name}: moved or changed ({result}); see docs/screenshots/make.py"
