"""The details of a skill that failed to load, so that a person can fix it.

One card per diagnostic: where (``SKILL.md, line 12``), the cause in one line in the
project's own words (a YAML parser's message is kept, muted, as the detail), the
offending line itself, and what to do. A full-width *Open SKILL.md at line N* opens the
person's editor: ``$VISUAL`` (or ``$EDITOR``) with ``+LINE`` (which vi, Emacs, nano, Kate
and gedit all understand), else the desktop's handler for the file (``xdg-open``). The
cards scroll when there are many, so the buttons stay on the screen.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFrame,
    QHBoxLayout,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from gibberish.paths import home_short
from gibberish.ui import icons
from gibberish.ui.widgets import (
    MARGIN,
    SPACING,
    PlainLabel,
    code_box,
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


CAUSES = {
    "E-YAML": "The settings at the top (between the two --- lines) are not valid YAML.",
    "W-YAML-LENIENT": "A value at the top holds “: ”; gibberish read it as quoted text.",
    "E-YAML-ALIAS": "The settings at the top use YAML anchors or aliases, which are not allowed.",
    "E-NO-FRONTMATTER": "The file does not start with the settings block (a line ---).",
    "E-UNTERMINATED-FRONTMATTER": "The settings block at the top has no closing --- line.",
    "E-FRONTMATTER-NOT-MAPPING": "The settings at the top are not a list of name: value lines.",
    "E-NO-TOOLS": "The skill has no tools: add a ### heading for each one.",
    "E-UNTERMINATED-FENCE": "A code block is opened with ``` and never closed.",
}
"""One-line causes for the codes whose messages quote a parser; the rest of the
diagnostics already say their cause in the project's words."""


def plain(text: str) -> str:
    """Markdown headings and quoted names in a message as a person reads them:
    ``'#### Parameters'`` → “Parameters”, ``'do_thing'`` → “do_thing”."""
    text = re.sub(r"'#{1,6}\s*([^']+)'", r"“\1”", text)
    text = re.sub(r"'([^'\s]+)'", r"“\1”", text)
    return text[:1].upper() + text[1:]


def cause(diagnostic: Diagnostic) -> tuple[str, str]:
    """(the cause in one line, the detail): the project's sentence for a parser's error,
    with the parser's own words as the detail."""
    what, hint = split_hint(diagnostic.message)
    what, hint = plain(what), plain(hint) if hint else hint
    known = CAUSES.get(diagnostic.code)
    if known is None:
        return what, hint
    return known, " ".join(p for p in (what, hint) if p)


def location(diagnostic: Diagnostic, folder: Path) -> str:
    """``SKILL.md, line 12`` (relative to the skill's folder when it is inside it)."""
    if diagnostic.file is None:
        return "SKILL.md"
    path = Path(diagnostic.file)
    try:
        shown = str(path.relative_to(folder)) if path.is_absolute() else str(path)
    except ValueError:
        shown = home_short(path)
    return f"{shown}, line {diagnostic.line}" if diagnostic.line else shown


def line_of(path: Path, line: int | None, limit: int = 200) -> str:
    """Line ``line`` of ``path`` (cut at ``limit`` characters), or "" when unreadable."""
    if not line or line < 1:
        return ""
    try:
        with path.open(encoding="utf-8", errors="replace") as handle:
            for number, text in enumerate(handle, 1):
                if number == line:
                    text = text.rstrip("\r\n")
                    return text if len(text) <= limit else text[:limit] + "…"
                if number > line:
                    break
    except OSError:
        return ""
    return ""


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
        title.setWordWrap(True)
        layout.addWidget(title)
        layout.addWidget(
            help_label(f"Fix {location_of_folder(folder)}; gibberish reloads it when you save.")
        )
        self.rows: list[tuple[str, str, str]] = []
        cards = QWidget()
        cards_layout = QVBoxLayout(cards)
        cards_layout.setContentsMargins(0, 0, 0, 0)
        cards_layout.setSpacing(SPACING + 4)
        for diagnostic in skill.diagnostics:
            cards_layout.addWidget(self._card(diagnostic, folder))
        cards_layout.addStretch(1)
        scroll = QScrollArea()
        scroll.setObjectName("problem-cards")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setWidget(cards)
        layout.addWidget(scroll, 1)
        first = next((d for d in skill.diagnostics if d.line), None)
        self.open_line = first.line if first is not None else None
        at = f" at line {self.open_line}" if self.open_line else ""
        self.open_button = QPushButton(f"&Open SKILL.md{at}")
        self.open_button.setObjectName("problem-open")
        self.open_button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.open_button.setMinimumHeight(self.open_button.sizeHint().height() + 8)
        self.open_button.clicked.connect(self.open_skill_md)
        layout.addWidget(self.open_button)
        buttons = QHBoxLayout()
        buttons.addStretch(1)
        close = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        close.rejected.connect(self.reject)
        buttons.addWidget(close)
        layout.addLayout(buttons)
        mnemonic_buttons(self)
        keyboard_buttons(self)
        self.open_button.setDefault(True)
        self.open_button.setFocus()
        wanted = cards.sizeHint().height() + 200
        self.resize(620, wanted)

    def _card(self, diagnostic: Diagnostic, folder: Path) -> QWidget:
        """Where, the cause in one line, the offending line, and the detail."""
        where = location(diagnostic, folder)
        what, hint = cause(diagnostic)
        self.rows.append((where, what, hint))
        card = QWidget()
        card.setObjectName("problem-card")
        box = QVBoxLayout(card)
        box.setContentsMargins(0, 0, 0, 0)
        box.setSpacing(3)
        head = PlainLabel(where)
        head.setObjectName("problem-where")
        bold = head.font()
        bold.setBold(True)
        head.setFont(bold)
        box.addWidget(head)
        row = PlainLabel(what)
        row.setObjectName("problem-row")
        row.setWordWrap(True)
        set_tone(row, "error" if diagnostic.is_error else "warning")
        box.addWidget(row)
        path = Path(diagnostic.file) if diagnostic.file else self.skill.source_path
        text = line_of(path, diagnostic.line)
        if text.strip():
            shown = code_box(f"{diagnostic.line}  {text}", max_lines=2)
            shown.setObjectName("problem-line")
            box.addWidget(shown)
        if hint:
            detail = help_label(hint)
            detail.setObjectName("problem-detail")
            box.addWidget(detail)
        return card

    def open_skill_md(self) -> None:
        self.opener(self.skill.source_path, self.open_line)


def location_of_folder(folder: Path) -> str:
    return home_short(folder / "SKILL.md")
