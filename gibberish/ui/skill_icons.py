"""A skill's icon: the one its folder ships (``icon.svg`` or ``icon.png``), else a letter.

The file is looked up by those two fixed names directly in the skill's folder (a name
read from a file is never a path), must be a regular file of at most ``MAX_BYTES`` and
must load as an image; anything else falls back to the generated icon: the skill's first
letter on a colour chosen from its name, so each skill keeps its colour.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
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
    pixmap = QPixmap(SIZE, SIZE)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    paint_letter(painter, SIZE, *letter_and_hue(name))
    painter.end()
    return QIcon(pixmap)


def letter_and_hue(name: str) -> tuple[str, int]:
    """The letter ``name``'s icon shows and the hue of its square (from the name, so
    each skill keeps its colour)."""
    letter = next((c for c in name if c.isalnum()), "?").upper()
    return letter, zlib.crc32(name.encode("utf-8")) % 360


def paint_letter(painter: QPainter, side: int, letter: str, hue: int) -> None:
    """The letter icon in the ``side``-pixel square at the painter's origin: drawn at
    the size it is shown (a list row's icon is not a large one scaled down)."""
    scale = side / SIZE
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setBrush(QColor.fromHsl(hue, 150, 105))
    painter.setPen(Qt.PenStyle.NoPen)
    inner = QRectF(2 * scale, 2 * scale, side - 4 * scale, side - 4 * scale)
    painter.drawRoundedRect(inner, 14 * scale, 14 * scale)
    font = QFont()
    font.setPixelSize(max(1, side // 2))
    font.setBold(True)
    painter.setFont(font)
    painter.setPen(theme.ICON_INK)
    painter.drawText(QRectF(0, 0, side, side), int(Qt.AlignmentFlag.AlignCenter), letter)


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


_letters: dict[tuple[str, int, int, float], QPixmap] = {}


_folders: dict[Path, bool] = {}


def icon_folders_ahead(folders: Iterable[Path]) -> None:
    """Look up which of ``folders`` ship an icon file, off the GUI thread (the thread
    that makes the command bar's index ahead): ``icon_pixmap`` then asks the file system
    nothing for them while the person types."""
    for folder in folders:
        _folders[folder] = shipped(folder) is not None


def icon_pixmap(name: str, folder: Path, side: int, ratio: float = 1.0) -> QPixmap:
    """The skill's icon ``side`` pixels wide (``ratio`` device pixels to a pixel), for a
    list row: its own icon scaled, else its letter drawn at that size, kept per letter,
    hue and size (skills that share them share one pixmap)."""
    ships = _folders.get(folder)
    if ships is None:
        ships = _folders[folder] = shipped(folder) is not None
    if ships:
        return skill_icon(name, folder).pixmap(side, side)
    letter, hue = letter_and_hue(name)
    key = (letter, hue, side, ratio)
    found = _letters.get(key)
    if found is None:
        found = QPixmap(round(side * ratio), round(side * ratio))
        found.setDevicePixelRatio(ratio)
        found.fill(Qt.GlobalColor.transparent)
        painter = QPainter(found)
        paint_letter(painter, side, letter, hue)
        painter.end()
        if len(_letters) > 2000:
            _letters.clear()
        _letters[key] = found
    return found
