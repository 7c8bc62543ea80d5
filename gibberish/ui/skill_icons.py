"""A skill's icon: the one its folder ships (``icon.svg`` or ``icon.png``), else a letter.

The file is looked up by those two fixed names directly in the skill's folder (a name
read from a file is never a path), must be a regular file of at most ``MAX_BYTES`` and
must load as an image; anything else falls back to the generated icon: the skill's first
letter on a colour chosen from its name, so each skill keeps its colour.
"""

from __future__ import annotations

import zlib
from pathlib import Path

from PySide6.QtCore import QRectF, Qt
from PySide6.QtGui import QColor, QFont, QIcon, QPainter, QPixmap

from gibberish.ui import theme

NAMES = ("icon.svg", "icon.png")
MAX_BYTES = 256 * 1024
SIZE = 64

_cache: dict[tuple[str, str], QIcon] = {}


def shipped(folder: Path) -> Path | None:
    """The icon file the skill's folder ships, when it is a small regular file."""
    for name in NAMES:
        path = folder / name
        try:
            if path.is_file() and not path.is_symlink() and path.stat().st_size <= MAX_BYTES:
                return path
        except OSError:
            continue
    return None


def letter_icon(name: str) -> QIcon:
    """The first letter of ``name`` on a colour of its own."""
    hue = zlib.crc32(name.encode("utf-8")) % 360
    pixmap = QPixmap(SIZE, SIZE)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor.fromHsl(hue, 150, 105))
    painter.setPen(Qt.PenStyle.NoPen)
    painter.drawRoundedRect(QRectF(2, 2, SIZE - 4, SIZE - 4), 14, 14)
    font = QFont()
    font.setPixelSize(SIZE // 2)
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(theme.ICON_INK)
    letter = next((c for c in name if c.isalnum()), "?").upper()
    painter.drawText(QRectF(0, 0, SIZE, SIZE), int(Qt.AlignmentFlag.AlignCenter), letter)
    painter.end()
    return QIcon(pixmap)


def skill_icon(name: str, folder: Path) -> QIcon:
    """The skill's own icon when it ships a good one, else its letter icon (cached)."""
    key = (name, str(folder))
    found = _cache.get(key)
    if found is None:
        path = shipped(folder)
        found = QIcon(str(path)) if path is not None else QIcon()
        if found.isNull() or found.pixmap(SIZE, SIZE).isNull():
            found = letter_icon(name)
        if len(_cache) > 2000:
            _cache.clear()
        _cache[key] = found
    return found
