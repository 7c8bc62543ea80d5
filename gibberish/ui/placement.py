"""Where a new window appears and how big it may be.

A window manager left to itself may put a new window anywhere (Openbox: the bottom-left
corner). ``place`` centres a window on the screen the person is working on (the one
under the mouse, else the primary) and shrinks it to that screen's *available* area
(without panels), so at 2× scale no button ends up off-screen.
"""

from __future__ import annotations

from PySide6.QtGui import QCursor, QGuiApplication, QScreen
from PySide6.QtWidgets import QWidget

FILL = 0.9
"""At most this share of the available width and height."""


def active_screen() -> QScreen | None:
    return QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()


def place(window: QWidget) -> None:
    """Fit ``window`` to the active screen's available area and centre it there."""
    screen = active_screen()
    if screen is None:
        return
    area = screen.availableGeometry()
    width = min(window.width(), int(area.width() * FILL))
    height = min(window.height(), int(area.height() * FILL))
    if (width, height) != (window.width(), window.height()):
        window.setMinimumSize(
            min(window.minimumWidth(), width), min(window.minimumHeight(), height)
        )
        window.resize(width, height)
    frame = window.frameGeometry()
    extra_w, extra_h = frame.width() - window.width(), frame.height() - window.height()
    x = area.x() + (area.width() - width - extra_w) // 2
    y = area.y() + (area.height() - height - extra_h) // 2
    window.move(max(x, area.x()), max(y, area.y()))
