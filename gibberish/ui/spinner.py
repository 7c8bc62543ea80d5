"""A small busy spinner: a ring of spokes that fade, drawn with the palette's text colour.

Qt has no spinner widget, and an indeterminate ``QProgressBar`` looks like a download in
most styles. This one is painted (no image files, crisp at any scale), follows the
palette in light and dark themes, and animates only while it is visible, so a hidden
command bar costs no timer ticks.
"""

from __future__ import annotations

import math

from PySide6.QtCore import QPointF, QSize, Qt, QTimer
from PySide6.QtGui import QColor, QHideEvent, QPainter, QPaintEvent, QPalette, QPen, QShowEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

DOTS = 12
INTERVAL_MS = 80


class Spinner(QWidget):
    def __init__(self, size: int = 18, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("spinner")
        self.setFixedSize(QSize(size, size))
        self.setSizePolicy(QSizePolicy.Policy.Fixed, QSizePolicy.Policy.Fixed)
        self.setAttribute(Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self._step = 0
        self._timer = QTimer(self)
        self._timer.setInterval(INTERVAL_MS)
        self._timer.timeout.connect(self._advance)

    @property
    def spinning(self) -> bool:
        return self._timer.isActive()

    def showEvent(self, event: QShowEvent) -> None:
        self._timer.start()
        super().showEvent(event)

    def hideEvent(self, event: QHideEvent) -> None:
        self._timer.stop()
        super().hideEvent(event)

    def _advance(self) -> None:
        self._step = (self._step + 1) % DOTS
        self.update()

    def paintEvent(self, event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        side = min(self.width(), self.height())
        centre = QPointF(self.width() / 2, self.height() / 2)
        outer = side / 2 - 1.5
        inner = outer * 0.5
        colour = self.palette().color(QPalette.ColorRole.Text)
        for i in range(DOTS):
            # The dot at ``_step`` is the head: fully opaque; the tail fades behind it.
            age = (self._step - i) % DOTS
            faded = QColor(colour)
            faded.setAlphaF(max(1.0 - age / DOTS, 0.12))
            pen = QPen(faded, max(side / 10, 1.5))
            pen.setCapStyle(Qt.PenCapStyle.RoundCap)
            painter.setPen(pen)
            angle = 2 * math.pi * i / DOTS - math.pi / 2
            direction = QPointF(math.cos(angle), math.sin(angle))
            painter.drawLine(centre + direction * inner, centre + direction * outer)
        painter.end()
