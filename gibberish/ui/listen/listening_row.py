"""The launcher window's listening row: what the tray icon says while it listens.

Without a tray there is no icon to turn into a microphone, so the launcher shows a row
while it listens — the same icon with its level bars, and the level in words — and
"Recognizing…" once the speech has ended. A person sees their voice arrive (or not:
bars that stay dark mean a muted or wrong microphone) without a tray.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from gibberish.ui import accessibility, icons
from gibberish.ui.listen.level_meter import describe, listening_icon

ICON_PIXELS = 32
LISTENING = "listening"
THINKING = "thinking"


class ListeningRow(QWidget):
    """Hidden unless listening or recognizing; ``show_state`` and ``show_level`` update it."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("launcher-listening")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.icon = QLabel()
        self.icon.setFixedSize(ICON_PIXELS, ICON_PIXELS)
        self.text = QLabel()
        self.text.setObjectName("launcher-listening-text")
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.text, 1, Qt.AlignmentFlag.AlignVCenter)
        self.state = "idle"
        self.bars = 0
        self.hide()

    def show_state(self, state: str) -> None:
        """``listening``, ``thinking`` or anything else (idle: hidden)."""
        self.state = state
        self.bars = 0
        if state == LISTENING:
            self._draw()
        elif state == THINKING:
            self._set(icons.tray_icon(icons.TrayState.THINKING), "Recognizing…")
        else:
            self.hide()

    def show_level(self, bars: int) -> None:
        """The level meter's bars; ignored unless listening."""
        if self.state == LISTENING:
            self.bars = bars
            self._draw()

    def _draw(self) -> None:
        self._set(listening_icon(self.bars), f"Listening… ({describe(self.bars)})")

    def _set(self, icon: QIcon, text: str) -> None:
        self.icon.setPixmap(icon.pixmap(ICON_PIXELS, ICON_PIXELS))
        self.text.setText(text)
        accessibility.name(self, text)
        self.show()
