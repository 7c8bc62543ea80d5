"""The command bar: a small frameless box that finds a tool as you type.

Typing filters every tool offered in the current mode by name and description, ranked by
``assistant.fuzzy.FuzzyIndex`` (the same ranker the model router falls back on). Up and
Down move through the results, Enter opens the chosen tool's form, Esc closes.

The seam for natural-language routing: when Enter is pressed and nothing matches (or
with Ctrl+Enter, whatever matches), the bar emits ``text_submitted(text)`` instead of a
tool. The controller hands that text to its ``TextRouter`` — today a fuzzy fallback,
next the local function-calling model — which proposes a tool and arguments that then go
through the parameter form and the approval dialog like any click.

It is a ``Qt.Tool`` frameless window that hides when it loses focus, rather than a
``Qt.Popup``: a popup needs a parent window on Wayland, and the bar is usually opened
by a second ``gibberish`` process (a desktop shortcut) with no window of ours around.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, QPersistentModelIndex, QRect, QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontMetrics, QGuiApplication, QKeyEvent, QPainter, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

if TYPE_CHECKING:
    from gibberish.app import ToolRef
    from gibberish.assistant.fuzzy import FuzzyIndex

REF_ROLE = Qt.ItemDataRole.UserRole
DESCRIPTION_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_RESULTS = 12
WIDTH = 600


def tool_index(tools: Sequence[ToolRef]) -> FuzzyIndex[ToolRef]:
    """Index tools by their name; the description also covers the skill's name and description."""
    from gibberish.assistant.fuzzy import FuzzyIndex  # the model feed loads only when used

    return FuzzyIndex(
        (ref, ref.tool.name, f"{ref.tool.description} {ref.skill.name} {ref.skill.description}")
        for ref in tools
    )


class _ResultDelegate(QStyledItemDelegate):
    """Two lines per result: ``tool`` + skill in bold, the description muted below."""

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        metrics = QFontMetrics(option.font)
        return QSize(option.rect.width(), metrics.lineSpacing() * 2 + 12)

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        painter.save()
        style = option.widget.style() if option.widget else None
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        if selected:
            painter.fillRect(option.rect, option.palette.color(QPalette.ColorRole.Highlight))
        elif style is not None:
            style.drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter, option.widget
            )
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        rect = option.rect.adjusted(10, 5, -10, -5)
        metrics = QFontMetrics(option.font)
        line = metrics.lineSpacing()
        bold = QFont(option.font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(option.palette.color(text_role))
        title = str(index.data(Qt.ItemDataRole.DisplayRole))
        painter.drawText(
            QRect(rect.left(), rect.top(), rect.width(), line), Qt.AlignmentFlag.AlignLeft, title
        )
        painter.setFont(option.font)
        muted = option.palette.color(text_role if selected else QPalette.ColorRole.PlaceholderText)
        painter.setPen(muted)
        description = str(index.data(DESCRIPTION_ROLE) or "")
        elided = metrics.elidedText(description, Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(
            QRect(rect.left(), rect.top() + line, rect.width(), line),
            Qt.AlignmentFlag.AlignLeft,
            elided,
        )
        painter.restore()


class CommandBar(QFrame):
    """Type to find a tool; Enter chooses it (``tool_chosen``) or hands the text on (``text_submitted``)."""

    tool_chosen = Signal(str)
    text_submitted = Signal(str)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            parent,
            Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint,
        )
        self.setObjectName("command-bar")
        self.setWindowTitle("gibberish")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "#command-bar { border: 1px solid palette(mid); border-radius: 10px; }"
            "#command-input { font-size: 15pt; padding: 6px 8px; border: none; }"
        )
        self._index: FuzzyIndex[ToolRef] | None = None
        self._tools: list[ToolRef] = []

        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 10, 10, 10)
        layout.setSpacing(6)
        self.input = QLineEdit()
        self.input.setObjectName("command-input")
        self.input.setPlaceholderText("Find a tool…")
        self.input.setClearButtonEnabled(True)
        self.input.textChanged.connect(self._filter)
        self.input.installEventFilter(self)
        layout.addWidget(self.input)
        self.results = QListWidget()
        self.results.setObjectName("command-results")
        self.results.setItemDelegate(_ResultDelegate(self.results))
        self.results.setFrameShape(QFrame.Shape.NoFrame)
        self.results.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.results.setUniformItemSizes(True)
        self.results.itemActivated.connect(self._choose_item)
        self.results.itemClicked.connect(self._choose_item)
        layout.addWidget(self.results)
        self.hint = QLabel("↑↓ to choose · Enter to open · Esc to close")
        self.hint.setObjectName("command-hint")
        palette = self.hint.palette()
        palette.setColor(
            QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.PlaceholderText)
        )
        self.hint.setPalette(palette)
        layout.addWidget(self.hint)
        self.setFixedWidth(WIDTH)

    # ------------------------------------------------------------------ content
    def set_tools(self, tools: Sequence[ToolRef]) -> None:
        self._tools = sorted(tools, key=lambda r: (r.tool.name, r.skill.name))
        self._index = tool_index(self._tools)
        self._filter(self.input.text())

    def ranked(self, text: str) -> list[ToolRef]:
        """The tools matching ``text``, best first (all tools, by name, when it is empty)."""
        if not text.strip() or self._index is None:
            return list(self._tools[:MAX_RESULTS])
        return [m.item for m in self._index.rank(text, MAX_RESULTS)]

    def _filter(self, text: str) -> None:
        self.results.clear()
        for ref in self.ranked(text):
            item = QListWidgetItem(f"{ref.tool.name}   ·   {ref.skill.name}")
            item.setData(REF_ROLE, ref.ref)
            item.setData(DESCRIPTION_ROLE, ref.tool.description)
            item.setToolTip(ref.tool.description)
            self.results.addItem(item)
        if self.results.count():
            self.results.setCurrentRow(0)
        self._fit()

    def _fit(self) -> None:
        rows = self.results.count()
        row_height = self.results.sizeHintForRow(0) if rows else 0
        self.results.setFixedHeight(max(rows, 0) * row_height + (4 if rows else 0))
        self.results.setVisible(rows > 0)
        self.hint.setText(
            "↑↓ to choose · Enter to open · Esc to close"
            if rows or not self.input.text().strip()
            else "No tool matches · Enter to ask in your own words · Esc to close"
        )
        self.adjustSize()

    # ------------------------------------------------------------------ showing
    def popup(self) -> None:
        """Show centred near the top of the screen under the mouse, with the text cleared."""
        self.input.clear()
        self._filter("")
        screen = QGuiApplication.screenAt(self.cursor().pos()) or QGuiApplication.primaryScreen()
        if screen is not None:
            area = screen.availableGeometry()
            self.move(area.center().x() - self.width() // 2, area.top() + area.height() // 4)
        self.show()
        self.raise_()
        self.activateWindow()
        self.input.setFocus()

    def eventFilter(self, watched: object, event: QEvent) -> bool:
        if watched is self.input and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            return self._key(event)
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self._key(event):
            super().keyPressEvent(event)

    def _key(self, event: QKeyEvent) -> bool:
        key = event.key()
        if key == Qt.Key.Key_Escape:
            self.hide()
            return True
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
            count = self.results.count()
            if count:
                step = {
                    Qt.Key.Key_Down: 1,
                    Qt.Key.Key_Up: -1,
                    Qt.Key.Key_PageDown: 5,
                    Qt.Key.Key_PageUp: -5,
                }[Qt.Key(key)]
                row = min(max(self.results.currentRow() + step, 0), count - 1)
                self.results.setCurrentRow(row)
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.submit(free_text=bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier))
            return True
        return False

    def submit(self, *, free_text: bool = False) -> None:
        """Enter: the selected tool, or the typed text when nothing matches (or Ctrl+Enter)."""
        text = self.input.text().strip()
        item = self.results.currentItem()
        if item is not None and not free_text:
            self._choose_item(item)
        elif text:
            self.hide()
            self.text_submitted.emit(text)

    def _choose_item(self, item: QListWidgetItem) -> None:
        ref = item.data(REF_ROLE)
        self.hide()
        if ref:
            self.tool_chosen.emit(str(ref))

    def changeEvent(self, event: QEvent) -> None:
        if (
            event.type() == QEvent.Type.ActivationChange
            and self.isVisible()
            and not self.isActiveWindow()
        ):
            self.hide()
        super().changeEvent(event)
