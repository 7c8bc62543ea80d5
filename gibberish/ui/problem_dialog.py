"""The details of a skill that failed to load: each problem as file:line, message, hint.

One row per diagnostic instead of a wall of absolute paths: the location relative to the
skill's folder (``SKILL.md:12``), what is wrong, and — when the message carries one after
a semicolon — what to do, muted below. *Open SKILL.md at that line* opens the person's
editor: ``$VISUAL`` (or ``$EDITOR``) with ``+LINE`` (which vi, Emacs, nano, Kate and
gedit all understand), else the desktop's handler for the file (``xdg-open``).
"""

from __future__ import annotations

import os
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QHBoxLayout, QPushButton, QVBoxLayout

from gibberish.paths import home_short
from gibberish.ui import icons
from gibberish.ui.widgets import (
    MARGIN,
    SPACING,
    PlainLabel,
    heading_label,
    help_label,
    keyboard_buttons,
    mnemonic_buttons,
    set_tone,
)

if TYPE_CHECKING:
    from gibberish.skills.model import Diagnostic, SkillDefinition

Opener = Callable[[Path, int | None], None]


def split_hint(message: str) -> tuple[str, str]:
    """ "'version' 1 is not semantic; write MAJOR.MINOR.PATCH" → (what, what to do)."""
    what, sep, hint = message.partition("; ")
    if not sep:
        return message, ""
    return what + ".", hint[:1].upper() + hint[1:]


def location(diagnostic: Diagnostic, folder: Path) -> str:
    """``SKILL.md:12`` (relative to the skill's folder when it is inside it)."""
    if diagnostic.file is None:
        return "SKILL.md"
    path = Path(diagnostic.file)
    try:
        shown = str(path.relative_to(folder)) if path.is_absolute() else str(path)
    except ValueError:
        shown = str(path)
    return f"{shown}:{diagnostic.line}" if diagnostic.line else shown


def open_in_editor(path: Path, line: int | None) -> None:
    """``$VISUAL +LINE path`` (or ``$EDITOR``); without either, the desktop's handler."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if editor:
        argv = shlex.split(editor) + ([f"+{line}"] if line else []) + [str(path)]
        subprocess.Popen(argv, start_new_session=True)
        return
    QDesktopServices.openUrl(QUrl.fromLocalFile(str(path)))


class ProblemDialog(QDialog):
    """Why ``skill`` did not load, with a button to open its SKILL.md at the first problem."""

    def __init__(self, skill: SkillDefinition, opener: Opener = open_in_editor) -> None:
        super().__init__()
        self.setObjectName("problem-dialog")
        self.setWindowTitle(f"Problem in {skill.name} — gibberish")
        self.setWindowIcon(icons.app_icon())
        self.skill = skill
        self.opener = opener
        folder = skill.directory
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING)
        title = heading_label(f"“{skill.name}” could not be loaded")
        title.setTextFormat(title.textFormat().PlainText)
        layout.addWidget(title)
        layout.addWidget(help_label(f"Fix {location_of_folder(folder)}; it reloads on save."))
        self.rows: list[tuple[str, str, str]] = []
        for diagnostic in skill.diagnostics:
            where = location(diagnostic, folder)
            what, hint = split_hint(diagnostic.message)
            self.rows.append((where, what, hint))
            row = PlainLabel(f"{where}  {what}")
            row.setObjectName("problem-row")
            row.setWordWrap(True)
            set_tone(row, "error" if diagnostic.is_error else "warning")
            layout.addWidget(row)
            if hint:
                layout.addWidget(help_label(hint))
        first = next((d for d in skill.diagnostics if d.line), None)
        self.open_line = first.line if first is not None else None
        buttons = QHBoxLayout()
        at = f" at line {self.open_line}" if self.open_line else ""
        self.open_button = QPushButton(f"Open SKILL.md{at}")
        self.open_button.setObjectName("problem-open")
        self.open_button.clicked.connect(self.open_skill_md)
        buttons.addWidget(self.open_button)
        buttons.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        buttons.addWidget(close)
        layout.addLayout(buttons)
        mnemonic_buttons(self)
        keyboard_buttons(self)
        self.resize(560, self.sizeHint().height())

    def open_skill_md(self) -> None:
        self.opener(self.skill.source_path, self.open_line)


def location_of_folder(folder: Path) -> str:
    return home_short(folder / "SKILL.md")
