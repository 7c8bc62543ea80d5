"""The first start's one short welcome, in the one window: what gibberish does, the key
that opens it (or how to bind one on this desktop, with a copy button for the exact
line), and one tool to try.

Shown once (``desktop.told.first_time("welcome")``). What the desktop's portal or
backend lacks is not told here: ``gibberish doctor`` and Settings → Shortcuts say it to
whoever looks.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QDialog, QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from gibberish.ui.widgets import MARGIN, SPACING, PlainLabel, code_box, heading_label, help_label

SUGGESTED = ("system.disk_usage", "system.uptime", "git.git_status")
"""The tool offered to try first: the first of these that is offered here."""


class KeyHelp(Struct, frozen=True):
    """How to get a key for the window: a sentence, and the exact text to copy ("" when
    the key is bound already)."""

    how: str
    copy: str = ""


def key_help(family: str, command: Sequence[str], bound_key: str = "") -> KeyHelp:
    """The key when the desktop bound one; else the steps for ``family``'s desktop."""
    if bound_key:
        return KeyHelp(f"Press {bound_key} anywhere to open this window.")
    program = " ".join(command)
    if family in ("sway", "i3"):
        config = "~/.config/i3/config" if family == "i3" else "~/.config/sway/config"
        return KeyHelp(
            f"To open this window with Ctrl+Alt+Space, add this line to {config} and reload:",
            f"bindsym Ctrl+Alt+space exec {program}",
        )
    if family == "hyprland":
        return KeyHelp(
            "To open this window with Ctrl+Alt+Space, add this line to "
            "~/.config/hypr/hyprland.conf:",
            f"bind = CTRL ALT, SPACE, exec, {program}",
        )
    if family == "gnome":
        return KeyHelp(
            "To open this window with a key: Settings → Keyboard → Custom Shortcuts → Add "
            "Shortcut, with this command and a key such as Ctrl+Alt+Space:",
            program,
        )
    if family == "kde":
        return KeyHelp(
            "To open this window with a key: System Settings → Keyboard → Shortcuts → Add "
            "New → Command, with this command:",
            program,
        )
    return KeyHelp(
        "To open this window with a key, bind one to this command in your desktop's "
        "keyboard settings:",
        program,
    )


class Welcome(QDialog):
    """The welcome step: Enter or Esc closes it; *Try …* runs the suggested tool."""

    def __init__(
        self,
        keys: KeyHelp,
        suggestion: tuple[str, str] | None,
        try_tool: Callable[[str], object],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("welcome")
        self._try = try_tool
        self._suggestion = suggestion
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING + 2)
        title = heading_label("Welcome to gibberish", scale=1.3)
        title.setObjectName("welcome-title")
        layout.addWidget(title)
        about = PlainLabel(
            "gibberish runs small tools from your skills — disk usage, git log, notes — "
            "as real programs, after showing you what will run. Type a few letters to find "
            "one, Enter to run it; the output shows right here."
        )
        about.setWordWrap(True)
        about.setObjectName("welcome-about")
        layout.addWidget(about)
        how = PlainLabel(keys.how)
        how.setWordWrap(True)
        how.setObjectName("welcome-key")
        layout.addWidget(how)
        self.copy_button: QPushButton | None = None
        if keys.copy:
            row = QHBoxLayout()
            line = code_box(keys.copy, max_lines=2)
            line.setObjectName("welcome-command")
            row.addWidget(line, 1)
            self.copy_button = QPushButton("&Copy")
            self.copy_button.setObjectName("welcome-copy")
            self.copy_button.setToolTip("Copy this line to the clipboard")
            self.copy_button.setAutoDefault(False)
            text = keys.copy
            self.copy_button.clicked.connect(lambda: QGuiApplication.clipboard().setText(text))
            row.addWidget(self.copy_button, 0, Qt.AlignmentFlag.AlignTop)
            layout.addLayout(row)
        buttons = QHBoxLayout()
        buttons.addWidget(help_label("Enter to start · Esc to close"), 1)
        self.try_button: QPushButton | None = None
        if suggestion is not None:
            self.try_button = QPushButton(f"&Try {suggestion[1]}")
            self.try_button.setObjectName("welcome-try")
            self.try_button.setAutoDefault(False)
            self.try_button.clicked.connect(self._try_clicked)
            buttons.addWidget(self.try_button)
        start = QPushButton("&Start")
        start.setObjectName("welcome-start")
        start.setDefault(True)
        start.clicked.connect(self.accept)
        buttons.addWidget(start)
        layout.addLayout(buttons)
        layout.addStretch(1)  # a taller window (the launcher's) keeps the text together
        start.setFocus()

    def _try_clicked(self) -> None:
        self.accept()
        if self._suggestion is not None:
            self._try(self._suggestion[0])
