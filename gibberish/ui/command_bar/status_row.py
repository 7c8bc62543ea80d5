"""The line under the command bar's input: what is happening to the text just entered.

A spinner while a router thinks, or one line saying why the choices below were offered
(unsure, unreachable, cancelled), with an optional link to the settings. It is a widget
of its own so the bar only says *what* to show, never how the row is laid out.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import QHBoxLayout, QLabel, QWidget

from gibberish.ui.formatting import plain_text
from gibberish.ui.spinner import Spinner
from gibberish.ui.widgets import PlainLabel, set_tone

__all__ = ["HINT_BUSY", "StatusRow", "mute"]

HINT_BUSY = "Esc to cancel"


class StatusRow(QWidget):
    """Spinner + one line (busy, unsure, error) + an optional link to the settings."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("command-status")
        row = QHBoxLayout(self)
        row.setContentsMargins(10, 2, 8, 2)  # the spinner lines up with the typed text
        row.setSpacing(8)
        self.spinner = Spinner(18)
        row.addWidget(self.spinner, 0, Qt.AlignmentFlag.AlignVCenter)
        self.label = QLabel()
        self.label.setObjectName("command-status-text")
        self.label.setTextFormat(Qt.TextFormat.PlainText)  # messages quote servers
        self.label.setWordWrap(True)
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.label, 1)
        self.hint = PlainLabel(HINT_BUSY)
        self.hint.setObjectName("command-status-hint")
        mute(self.hint)
        row.addWidget(self.hint, 0, Qt.AlignmentFlag.AlignVCenter)
        self.settings_link = QLabel('<a href="settings">Settings…</a>')
        self.settings_link.setObjectName("command-settings-link")
        self.settings_link.setTextFormat(Qt.TextFormat.RichText)
        row.addWidget(self.settings_link, 0, Qt.AlignmentFlag.AlignTop)
        self.hide()

    def say(
        self, text: str | None, *, spinning: bool = False, failed: bool = False, link: bool = False
    ) -> None:
        """Show ``text`` (None hides the row), with the spinner, as an error, or with the
        link to the settings."""
        self.setVisible(text is not None)
        self.label.setText(plain_text(text or ""))  # a message may quote a `command`
        if failed:
            set_tone(self.label, "error")
        else:
            self.label.setPalette(self.palette())
        self.label.setProperty("failed", failed)
        self.spinner.setVisible(spinning)
        self.hint.setVisible(spinning)
        self.settings_link.setVisible(link)


def mute(label: QLabel) -> None:
    """Draw ``label`` in the placeholder colour: a hint, not something to read first."""
    palette = label.palette()
    palette.setColor(
        QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.PlaceholderText)
    )
    label.setPalette(palette)
