"""The screenshot script still runs, and every picture looks like the committed one.

"Looks like" within a tolerance: both pictures are shrunk to a small grid and compared
cell by cell, so a blank, black, half-drawn or re-laid-out dialog fails while the few
pixels of a spinner frame or a font's hinting do not.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from tests.conftest import REPO_ROOT

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
}
GRID = (48, 32)
TOLERANCE = 0.03
"""Largest share of grid cells whose grey level differs by more than ``CELL``."""
CELL = 0.04
SIZE_TOLERANCE = 0.1


def grid(image: QImage) -> list[float]:
    small = image.convertToFormat(QImage.Format.Format_Grayscale8).scaled(
        *GRID, Qt.AspectRatioMode.IgnoreAspectRatio, Qt.TransformationMode.SmoothTransformation
    )
    return [small.pixelColor(x, y).valueF() for y in range(GRID[1]) for x in range(GRID[0])]


def difference(fresh: QImage, committed: QImage) -> float:
    """The share of grid cells that differ visibly (0: alike, 1: nothing alike)."""
    a, b = grid(fresh), grid(committed)
    return sum(abs(x - y) > CELL for x, y in zip(a, b, strict=True)) / len(a)


def detail(image: QImage) -> float:
    """Spread of the grey levels: about 0 for a blank picture."""
    cells = grid(image)
    mean = sum(cells) / len(cells)
    return (sum((c - mean) ** 2 for c in cells) / len(cells)) ** 0.5


def test_a_blank_picture_is_not_like_a_dialog() -> None:
    dialog = QImage(str(COMMITTED / "approval-changed.png"))
    blank = QImage(dialog.size(), QImage.Format.Format_RGB32)
    blank.fill(dialog.pixelColor(2, 2))
    assert difference(blank, dialog) > TOLERANCE
    assert detail(blank) < 0.01 < detail(dialog)


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
        for got, want in ((fresh.width(), committed.width()), (fresh.height(), committed.height())):
            assert abs(got - want) <= SIZE_TOLERANCE * want, f"{name}: size {fresh.size()}"
        assert detail(fresh) > detail(committed) / 2, f"{name} is blank or half drawn"
        assert difference(fresh, committed) < TOLERANCE, f"{name} differs from the committed one"
