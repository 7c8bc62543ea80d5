"""Small building blocks every dialog shares, so they look like one application.

One monospace font, one warning banner, one status "pill", one read-only code box and
one help-text style. Colours are chosen to be readable on both light and dark palettes
(the pills and the banner carry their own background; help text uses the palette's
placeholder colour instead of a fixed grey).
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics, QPalette
from PySide6.QtWidgets import QFrame, QLabel, QPlainTextEdit, QSizePolicy, QWidget

from gibberish.runner.envelope import RunStatus

SPACING = 8
MARGIN = 14

STATUS_STYLE: dict[str, tuple[str, str]] = {
    # status: (label, background colour); text is white on every one of them.
    RunStatus.PENDING.value: ("starting", "#6b7280"),
    RunStatus.RUNNING.value: ("running", "#2563eb"),
    RunStatus.SUCCEEDED.value: ("succeeded", "#15803d"),
    RunStatus.FAILED.value: ("failed", "#c02626"),
    RunStatus.TIMED_OUT.value: ("timed out", "#b45309"),
    RunStatus.CANCELLED.value: ("cancelled", "#4b5563"),
}


def mono_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font


def help_label(text: str, parent: QWidget | None = None) -> QLabel:
    """Secondary text under a field: smaller, muted, wrapped, selectable."""
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    font = label.font()
    font.setPointSizeF(max(font.pointSizeF() * 0.9, 7.5))
    label.setFont(font)
    palette = label.palette()
    palette.setColor(
        QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.PlaceholderText)
    )
    label.setPalette(palette)
    return label


def heading_label(text: str, parent: QWidget | None = None, *, scale: float = 1.25) -> QLabel:
    label = QLabel(text, parent)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(True)
    label.setFont(font)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def field_label(text: str, parent: QWidget | None = None) -> QLabel:
    """A label for a value in a details grid ("Working folder", "Timeout" …)."""
    label = QLabel(text, parent)
    label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
    palette = label.palette()
    palette.setColor(
        QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.PlaceholderText)
    )
    label.setPalette(palette)
    return label


def value_label(text: str, parent: QWidget | None = None, *, mono: bool = False) -> QLabel:
    label = QLabel(text, parent)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    if mono:
        label.setFont(mono_font())
    return label


def banner(text: str, parent: QWidget | None = None, *, kind: str = "warning") -> QLabel:
    """A full-width coloured message: ``warning`` (amber), ``error`` (red), ``info`` (blue)."""
    colours = {
        "warning": ("#fff4d6", "#7a4b00", "#e8b339"),
        "error": ("#fde8e8", "#8a1c1c", "#e59a9a"),
        "info": ("#e7f0fd", "#1e3a6e", "#9dbcf0"),
    }
    background, foreground, border = colours.get(kind, colours["info"])
    label = QLabel(text, parent)
    label.setObjectName(f"banner-{kind}")
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setStyleSheet(
        f"QLabel {{ background: {background}; color: {foreground}; border: 1px solid {border};"
        " border-radius: 6px; padding: 8px 10px; }"
    )
    return label


def status_pill(status: str, parent: QWidget | None = None) -> QLabel:
    label = QLabel(parent)
    label.setObjectName("status-pill")
    set_status_pill(label, status)
    return label


def set_status_pill(label: QLabel, status: str) -> None:
    text, colour = STATUS_STYLE.get(status, (status, "#6b7280"))
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    label.setText(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setProperty("status", status)
    label.setStyleSheet(
        f"QLabel {{ background: {colour}; color: white; border-radius: 10px; padding: 0 10px; }}"
    )
    metrics = QFontMetrics(font)
    label.setFixedSize(metrics.horizontalAdvance(text) + 26, metrics.height() + 8)


def command_label(text: str, parent: QWidget | None = None) -> QLabel:
    """The argv of a run, shown as code (selectable, wrapped, on a subtle background)."""
    label = QLabel(text, parent)
    label.setFont(mono_font())
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setStyleSheet(
        "QLabel { background: palette(base); border: 1px solid palette(mid);"
        " border-radius: 4px; padding: 5px 8px; }"
    )
    return label


def code_box(text: str, parent: QWidget | None = None, *, max_lines: int = 6) -> QPlainTextEdit:
    """Read-only monospace text sized to its content (up to ``max_lines``, then it scrolls)."""
    box = QPlainTextEdit(parent)
    box.setReadOnly(True)
    box.setFont(mono_font())
    box.setPlainText(text)
    box.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
    box.setFrameShape(QFrame.Shape.StyledPanel)
    fit_code_box(box, text, max_lines=max_lines)
    return box


def fit_code_box(box: QPlainTextEdit, text: str, *, max_lines: int = 6, width: int = 520) -> None:
    """Height for the number of visual lines ``text`` needs at roughly ``width`` pixels."""
    metrics = QFontMetrics(box.font())
    per_line = max(1, width // max(metrics.horizontalAdvance("M"), 1))
    lines = sum(max(1, -(-len(line) // per_line)) for line in (text.splitlines() or [""]))
    shown = min(max(lines, 1), max_lines)
    margins = box.contentsMargins()
    height = shown * metrics.lineSpacing() + 2 * box.document().documentMargin()
    box.setFixedHeight(int(height + margins.top() + margins.bottom() + 4))


def separator(parent: QWidget | None = None) -> QFrame:
    line = QFrame(parent)
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line
