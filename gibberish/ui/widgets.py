"""Small building blocks every dialog shares, so they look like one application.

One monospace font, one warning banner, one status "pill", one read-only code box, one
help-text style and one keyboard focus ring. Every colour comes from the palette
(``theme``): the banner and the pills tint the palette's own colours, help text uses the
palette's placeholder colour, so a dark theme gets dark banners.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QSize, Qt
from PySide6.QtGui import (
    QFont,
    QFontDatabase,
    QFontMetrics,
    QPalette,
    QResizeEvent,
    QSyntaxHighlighter,
    QTextOption,
)
from PySide6.QtWidgets import QFrame, QLabel, QMessageBox, QPlainTextEdit, QSizePolicy, QWidget

from gibberish.ui import theme
from gibberish.ui.formatting import NBSP, inline_markdown

SPACING = 8
MARGIN = 14

STATUS_STYLE: dict[str, tuple[str, str]] = {
    # RunStatus value: (label, meaning: a ``theme`` hue, or "neutral" for the palette's grey).
    "pending": ("starting", "neutral"),
    "running": ("running", "info"),
    "succeeded": ("succeeded", "success"),
    "failed": ("failed", "error"),
    "timed_out": ("timed out", "warning"),
    "cancelled": ("cancelled", "neutral"),
}

FOCUS_RING = (
    "QPushButton:focus { border: 2px solid palette(highlight); border-radius: 4px;"
    " padding: 4px 14px; }"
)
"""A focused button gets a thick ring in the highlight colour: unlike the thin dark
outline of the default button, so "what Enter presses" and "where the focus is" never
look alike."""


class PlainLabel(QLabel):
    """A label that shows its text as it is: never as rich text.

    QLabel's default (``Qt.AutoText``) renders any string that looks like HTML, so a
    skill description, a folder name or a model's value such as
    ``<h2 style='color:green'>✔ verified</h2>`` would draw as a green heading. Every label
    that shows data is one of these (``widgets`` builds all of them).
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setTextFormat(Qt.TextFormat.PlainText)
        self.setText(text)


class WrappedLabel(PlainLabel):
    """A word-wrapped label whose size hint is its height *at its current width*.

    QLabel's own hint for wrapped text is computed at a width Qt picks for a pleasing
    shape, not the width the layout gives it, so rows come out too tall (a gap) or too
    short (clipped text). Reporting ``heightForWidth(width())`` and re-asking the layout
    after every width change fixes both.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setWordWrap(True)
        self.setAlignment(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop)

    def sizeHint(self) -> QSize:
        hint = super().sizeHint()
        if self.wordWrap() and self.width() > 1:
            height = self.heightForWidth(self.width())
            if height > 0:
                return QSize(hint.width(), height)
        return hint

    def minimumSizeHint(self) -> QSize:
        hint = super().minimumSizeHint()
        if self.wordWrap() and self.width() > 1:
            height = self.heightForWidth(self.width())
            if height > 0:
                return QSize(hint.width(), height)
        return hint

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self.updateGeometry()


def mono_font() -> QFont:
    font = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    font.setStyleHint(QFont.StyleHint.Monospace)
    return font


def help_label(text: str, parent: QWidget | None = None) -> QLabel:
    """Secondary text under a field: smaller, muted, wrapped, selectable."""
    label = WrappedLabel(text, parent)
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
    label = PlainLabel(text, parent)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * scale)
    font.setBold(True)
    label.setFont(font)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    return label


def field_label(text: str, parent: QWidget | None = None) -> QLabel:
    """A label for a value in a details grid ("Working folder", "Timeout" …)."""
    label = PlainLabel(text, parent)
    label.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
    palette = label.palette()
    palette.setColor(
        QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.PlaceholderText)
    )
    label.setPalette(palette)
    return label


def value_label(
    text: str, parent: QWidget | None = None, *, mono: bool = False, wrap: bool = True
) -> QLabel:
    label = WrappedLabel(text, parent)
    label.setWordWrap(wrap)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
    if mono:
        label.setFont(mono_font())
    return label


def banner(text: str, parent: QWidget | None = None, *, kind: str = "warning") -> QLabel:
    """A full-width message tinted ``warning``, ``error`` or ``info`` over the palette."""
    label = WrappedLabel(text, parent)
    label.setObjectName(f"banner-{kind}")
    label.setProperty("kind", kind)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    palette = label.palette()
    text_colour = palette.color(QPalette.ColorRole.Text)
    label.setStyleSheet(
        f"QLabel {{ background: {theme.css(theme.background(palette, kind))};"
        f" color: {theme.css(text_colour)};"
        f" border: 1px solid {theme.css(theme.border(palette, kind))};"
        " border-radius: 6px; padding: 8px 10px; }"
    )
    return label


def status_pill(status: str, parent: QWidget | None = None) -> QLabel:
    label = PlainLabel("", parent)
    label.setObjectName("status-pill")
    set_status_pill(label, status)
    return label


def set_status_pill(label: QLabel, status: str) -> None:
    text, kind = STATUS_STYLE.get(status, (status, "neutral"))
    fill, ink = theme.pill(app_palette(), kind)  # its own palette holds its last colours
    font = label.font()
    font.setBold(True)
    label.setFont(font)
    label.setText(text)
    label.setAlignment(Qt.AlignmentFlag.AlignCenter)
    label.setProperty("status", status)
    label.setStyleSheet(
        f"QLabel {{ background: {theme.css(fill)}; color: {theme.css(ink)};"
        " border-radius: 10px; padding: 0 10px; }"
    )
    metrics = QFontMetrics(font)
    label.setFixedSize(metrics.horizontalAdvance(text) + 26, metrics.height() + 8)


def command_label(text: str, parent: QWidget | None = None) -> QLabel:
    """The argv of a run, shown as code (selectable, wrapped, on a subtle background)."""
    label = PlainLabel(text, parent)
    label.setFont(mono_font())
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    label.setStyleSheet(
        "QLabel { background: palette(base); border: 1px solid palette(mid);"
        " border-radius: 4px; padding: 5px 8px; }"
    )
    return label


class CodeBox(QPlainTextEdit):
    """Read-only monospace text that grows with its content up to ``max_lines``, then scrolls.

    The height follows the text *at the box's current width* (recomputed on resize and
    on every ``setPlainText``), so a long argv wraps onto as many lines as it needs and
    never hides behind a scroll bar while there is room.
    """

    def __init__(
        self, text: str = "", parent: QWidget | None = None, *, max_lines: int = 6
    ) -> None:
        super().__init__(parent)
        self.max_lines = max_lines
        self.highlighter: QSyntaxHighlighter | None = None
        """Colours the text when set; kept here so it lives as long as the box."""
        self.setReadOnly(True)
        self.setFont(mono_font())
        self.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        self.setWordWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        self.textChanged.connect(self._fit)
        self.setPlainText(text)

    def visual_lines(self, width: int) -> int:
        metrics = QFontMetrics(self.font())
        usable = max(width - 2 * int(self.document().documentMargin()) - 4, 40)
        total = 0
        for line in self.toPlainText().split("\n"):
            advance = metrics.horizontalAdvance(line)
            total += max(1, -(-advance // usable))
        return total

    def _fit(self) -> None:
        width = self.viewport().width() if self.isVisible() else max(self.width(), 480)
        lines = min(max(self.visual_lines(width), 1), self.max_lines)
        metrics = QFontMetrics(self.font())
        frame = 2 * self.frameWidth()
        height = lines * metrics.lineSpacing() + 2 * self.document().documentMargin() + frame + 2
        self.setFixedHeight(int(height))

    def resizeEvent(self, event: QResizeEvent) -> None:
        super().resizeEvent(event)
        if event.oldSize().width() != event.size().width():
            self._fit()

    def createMimeDataFromSelection(self) -> QMimeData:
        """Copied text has plain spaces (``formatting.command_text`` shows non-breaking ones)."""
        data = QMimeData()
        data.setText(self.textCursor().selectedText().replace(NBSP, " ").replace("\u2029", "\n"))
        return data


def code_box(text: str, parent: QWidget | None = None, *, max_lines: int = 6) -> CodeBox:
    return CodeBox(text, parent, max_lines=max_lines)


def fit_to_width(window: QWidget, width: int) -> None:
    """Size a window with wrapped text to ``width`` and exactly the height that text needs.

    Qt sizes a new top-level window from its size hint, which for word-wrapped labels is
    computed at some other width: rows come out too tall or too short. Asking the layout
    for its height at the real width avoids both.
    """
    layout = window.layout()
    width = max(width, window.minimumWidth())
    if layout is not None and layout.hasHeightForWidth():
        height = layout.totalHeightForWidth(width)
    else:
        height = window.sizeHint().height()
    window.resize(width, max(height, window.minimumSizeHint().height()))


def separator(parent: QWidget | None = None) -> QFrame:
    line = QFrame(parent)
    line.setFrameShape(QFrame.Shape.HLine)
    line.setFrameShadow(QFrame.Shadow.Sunken)
    return line


def plain_box(icon: str, title: str, text: str, details: str = "") -> QMessageBox:
    """A non-modal message box that shows ``text`` and ``details`` as plain text.

    QMessageBox guesses rich text from the string (``Qt.AutoText``), and its informative
    label ignores ``setTextFormat``: a skill or folder named ``<h2>…`` would render as a
    heading. Both labels are pinned to plain text here.
    """
    kind = {
        "warning": QMessageBox.Icon.Warning,
        "information": QMessageBox.Icon.Information,
        "critical": QMessageBox.Icon.Critical,
    }[icon]
    box = QMessageBox(kind, title, text)
    box.setTextFormat(Qt.TextFormat.PlainText)
    if details:
        box.setInformativeText(details)
    for label in box.findChildren(QLabel):
        label.setTextFormat(Qt.TextFormat.PlainText)
    return box


def set_tone(label: QLabel, kind: str | None) -> None:
    """Colour ``label``'s text for ``kind`` (``error`` …) from the palette; None: muted."""
    palette = label.palette()
    if kind is None:
        colour = app_palette().color(QPalette.ColorRole.PlaceholderText)
    else:
        colour = theme.foreground(app_palette(), kind)
    palette.setColor(QPalette.ColorRole.WindowText, colour)
    label.setPalette(palette)
    label.setProperty("tone", kind or "muted")


def app_palette() -> QPalette:
    from PySide6.QtWidgets import QApplication

    return QApplication.palette()


def keyboard_buttons(window: QWidget) -> None:
    """Give ``window``'s push buttons the focus ring (``FOCUS_RING``)."""
    window.setStyleSheet(window.styleSheet() + FOCUS_RING)


def with_mnemonic(text: str, taken: set[str]) -> str:
    """``text`` with an ``&`` before its first letter not in ``taken`` (which it joins).

    Texts that already have a mnemonic are returned as they are."""
    if "&" in text:
        taken.add(text[text.index("&") + 1 : text.index("&") + 2].lower())
        return text
    for i, char in enumerate(text):
        if char.isalnum() and char.lower() not in taken:
            taken.add(char.lower())
            return f"{text[:i]}&{text[i:]}"
    return text


def mnemonic_buttons(window: QWidget) -> None:
    """Give every push button of ``window`` a mnemonic (standard buttons have none on
    some platforms); the letters already used by other buttons are kept."""
    from PySide6.QtWidgets import QPushButton

    buttons = window.findChildren(QPushButton)
    taken: set[str] = set()
    for button in buttons:
        if "&" in button.text():
            with_mnemonic(button.text(), taken)
    for button in buttons:
        if button.text():
            button.setText(with_mnemonic(button.text(), taken))


class MarkdownLabel(WrappedLabel):
    """The one label that shows data as rich text: a description written in Markdown.

    The HTML is made by ``formatting.inline_markdown``, which escapes the text *first*
    and then adds only ``<code>``, ``<b>`` and ``<i>``: what a person reads is the
    skill's text, literally, with its backticks rendered. ``source`` is that text.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__("", parent)
        self.source = text
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setOpenExternalLinks(False)
        self.setText(inline_markdown(text))


def markdown_label(text: str, parent: QWidget | None = None) -> QLabel:
    """Secondary text (like ``help_label``) written in Markdown: see ``MarkdownLabel``."""
    label = MarkdownLabel(text, parent)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    font = label.font()
    font.setPointSizeF(max(font.pointSizeF() * 0.9, 7.5))
    label.setFont(font)
    set_tone(label, None)
    return label
