"""The listening panel: where the person looks while the tray listens.

A 24 px tray icon with a red dot is easy to miss, so while gibberish listens a small
frameless panel stands at the top centre of the screen under the mouse: "Listening…"
with the level meter's bars, "Recognizing…" once the speech has ended, then the words
heard and the tool they propose. It closes when the form opens (or, when nothing was
proposed, after a short moment). Esc cancels: nothing is proposed.

It asks to stay on top of other windows and to be left out of the task bar; X11 window
managers honour that, Wayland compositors decide for themselves (docs/voice.md says what
each allows). It takes the keyboard focus so that Esc reaches it: the form that follows
takes it anyway. Without a tray the launcher window's listening row shows the same.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QRect, Qt, QTimer
from PySide6.QtGui import QCursor, QGuiApplication, QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from gibberish.ui import accessibility, icons
from gibberish.ui.listen.level_meter import BARS, describe, listening_icon

ICON_PIXELS = 32
WIDTH = 420
"""The panel's width in device-independent pixels (narrower on a narrow screen)."""
TOP_MARGIN = 48
"""Distance from the top of the available area: clear of a top bar, where eyes go."""
CLOSE_AFTER_MS = 2500
"""How long the last words stay when nothing opens after them."""
TITLE = "gibberish listening"
LISTENING = "listening"
THINKING = "thinking"


class ListeningPanel(QWidget):
    """``show_state``/``show_level``/``show_heard``/``show_proposal`` update it; ``Esc``
    calls ``cancel`` (given by the listen flow)."""

    def __init__(self, cancel: Callable[[], None], parent: QWidget | None = None) -> None:
        super().__init__(
            parent,
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint,
        )
        self.setObjectName("listening-panel")
        self.setWindowTitle(TITLE)  # what a compositor's window rule matches
        self._cancel = cancel
        self.state = "idle"
        self.bars = 0
        frame = QFrame(self)
        frame.setObjectName("listening-panel-frame")
        frame.setFrameShape(QFrame.Shape.StyledPanel)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(frame)
        row = QHBoxLayout(frame)
        row.setContentsMargins(12, 10, 12, 10)
        self.icon = QLabel()
        self.icon.setFixedSize(ICON_PIXELS, ICON_PIXELS)
        column = QVBoxLayout()
        self.text = QLabel()
        self.text.setObjectName("listening-panel-text")
        self.text.setTextFormat(Qt.TextFormat.PlainText)
        self.text.setWordWrap(True)
        self.detail = QLabel()
        self.detail.setObjectName("listening-panel-detail")
        self.detail.setTextFormat(Qt.TextFormat.PlainText)
        self.detail.setWordWrap(True)
        self.level = QProgressBar()
        self.level.setRange(0, BARS)
        self.level.setTextVisible(False)
        self.level.setFixedHeight(8)
        column.addWidget(self.text)
        column.addWidget(self.level)
        column.addWidget(self.detail)
        row.addWidget(self.icon, 0, Qt.AlignmentFlag.AlignTop)
        row.addLayout(column, 1)
        self._closing = QTimer(self)
        self._closing.setSingleShot(True)
        self._closing.timeout.connect(self.finish)

    # ------------------------------------------------------------------ what it shows
    def show_state(self, state: str) -> None:
        """``listening`` (from quiet), ``thinking``; idle leaves the last words shown."""
        self.state = state
        if state == LISTENING:
            self._closing.stop()
            self.bars = 0
            self.detail.hide()
            self.level.show()
            self._draw_level()
            self._appear()
        elif state == THINKING:
            self.icon.setPixmap(
                icons.tray_icon(icons.TrayState.THINKING).pixmap(ICON_PIXELS, ICON_PIXELS)
            )
            self.level.hide()
            self._say("Recognizing…")

    def show_level(self, bars: int) -> None:
        """The level meter's bars; ignored unless listening."""
        if self.state == LISTENING:
            self.bars = bars
            self._draw_level()

    def show_heard(self, text: str, proposal: str, *, close_soon: bool) -> None:
        """The words heard (``text``) and under them the proposal (a tool's title) or why
        there is none; ``close_soon``: nothing opens after it, so it goes by itself."""
        self.level.hide()
        self._say(f"Heard “{text}”" if text else "Nothing recognized")
        self.detail.setText(proposal)
        self.detail.setVisible(bool(proposal))
        accessibility.name(self, f"{self.text.text()}. {proposal}".strip(". "))
        self._fit()
        if close_soon:
            self._closing.start(CLOSE_AFTER_MS)

    def finish(self) -> None:
        """Close (the form opened, the moment passed, or listening was cancelled)."""
        self._closing.stop()
        self.state = "idle"
        self.hide()

    # ------------------------------------------------------------------ keys
    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() == Qt.Key.Key_Escape:
            self.finish()
            self._cancel()
            event.accept()
            return
        super().keyPressEvent(event)

    # ------------------------------------------------------------------ drawing
    def _draw_level(self) -> None:
        self.icon.setPixmap(listening_icon(self.bars).pixmap(ICON_PIXELS, ICON_PIXELS))
        self.level.setValue(self.bars)
        self._say(f"Listening… ({describe(self.bars)})")

    def _say(self, text: str) -> None:
        self.text.setText(text)
        accessibility.name(self, text)

    def _appear(self) -> None:
        self._fit()
        self.show()
        self.raise_()
        self.activateWindow()  # so that Esc reaches it

    def _fit(self) -> None:
        """Top centre of the screen under the mouse, inside its available area."""
        area = _screen_area()
        width = min(WIDTH, area.width() - 16)
        self.setMinimumSize(0, 0)
        self.setMaximumSize(16777215, 16777215)
        self.setFixedWidth(width)
        self.adjustSize()
        height = min(self.sizeHint().height(), area.height() - TOP_MARGIN)
        top = area.top() + min(TOP_MARGIN, max(0, area.height() - height))
        # A fixed size also makes Sway float it (as a dialog) instead of tiling it.
        self.setFixedSize(width, height)
        self.move(area.left() + (area.width() - width) // 2, top)


def _screen_area() -> QRect:
    screen = QGuiApplication.screenAt(QCursor.pos()) or QGuiApplication.primaryScreen()
    return screen.availableGeometry()
