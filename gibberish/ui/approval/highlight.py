"""Syntax colours for the script shown in the approval dialog, so a person can read it.

Shell is what skills' scripts are written in; the rules are few on purpose (comments,
quoted strings, ``$`` expansions, the words that shape a script): enough to tell code
from text at a glance, never a parser. Colours come from the palette (``theme``).
"""

from __future__ import annotations

import re

from PySide6.QtGui import QFont, QPalette, QSyntaxHighlighter, QTextCharFormat, QTextDocument

from gibberish.ui import theme

KEYWORDS = [
    "if",
    "then",
    "else",
    "elif",
    "fi",
    "for",
    "while",
    "until",
    "do",
    "done",
    "case",
    "esac",
    "in",
    "function",
    "return",
    "exit",
    "set",
    "local",
    "export",
    "readonly",
    "shift",
]

RULES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("keyword", re.compile(r"\b(?:" + "|".join(KEYWORDS) + r")\b")),
    ("expansion", re.compile(r"\$(?:\{[^}]*\}|\w+|[@*#?$!0-9])")),
    ("string", re.compile(r"'[^']*'|\"(?:\\.|[^\"\\])*\"")),
    ("comment", re.compile(r"(?:^|(?<=\s))#.*$")),
)
"""Applied in order; a later rule wins where two overlap (a ``#`` inside a string is
coloured as a comment only when it starts a word, as the shell reads it)."""

KIND_OF = {"keyword": "info", "expansion": "warning", "string": "success", "comment": "muted"}


class ShellHighlighter(QSyntaxHighlighter):
    """Colours shell syntax in ``document`` with tones of the widget's palette."""

    def __init__(self, document: QTextDocument, palette: QPalette) -> None:
        super().__init__(document)
        self.formats: dict[str, QTextCharFormat] = {}
        for rule, kind in KIND_OF.items():
            fmt = QTextCharFormat()
            if kind == "muted":
                fmt.setForeground(theme.mix(palette.text().color(), palette.base().color(), 0.45))
                fmt.setFontItalic(True)
            else:
                fmt.setForeground(theme.foreground(palette, kind))
            if rule == "keyword":
                fmt.setFontWeight(QFont.Weight.Bold)
            self.formats[rule] = fmt

    def highlightBlock(self, text: str) -> None:
        for rule, pattern in RULES:
            for match in pattern.finditer(text):
                self.setFormat(match.start(), match.end() - match.start(), self.formats[rule])
