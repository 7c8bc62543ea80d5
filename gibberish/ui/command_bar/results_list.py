"""The list under the command bar's input: the matching tools, two lines each, no focus.

The rows (``ResultRows``), how each is painted (``ResultDelegate``) and the list that
holds them (``ResultsList``) live apart from the bar so the bar only decides *which*
tools to list; painting at every keystroke stays cheap here.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QSize,
    Qt,
)
from PySide6.QtGui import QFont, QFontMetrics, QPainter, QPalette, QPixmap, QStaticText, QTransform
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QWidget,
)

from gibberish.ui import accessibility
from gibberish.ui.command_bar.ranking import MAX_RESULTS, Row, same_tools
from gibberish.ui.formatting import human_title, plain_text, plain_tooltip
from gibberish.ui.skill_icons import icon_pixmap

if TYPE_CHECKING:
    from gibberish.engine.core import ToolRef
    from gibberish.engine.run_history import PastRun
    from gibberish.skills.model import SkillDefinition, ToolDefinition

__all__ = ["DESCRIPTION_ROLE", "REF_ROLE", "ResultDelegate", "ResultRows", "ResultsList"]

REF_ROLE = Qt.ItemDataRole.UserRole
DESCRIPTION_ROLE = Qt.ItemDataRole.UserRole + 1


class ResultRows(QAbstractListModel):
    """The tools listed under the input: at most ``MAX_RESULTS`` rows. A new list of as
    many rows changes only the rows whose tool changed (the view repaints those alone;
    typing one more letter mostly keeps the top rows); a list of another length is
    replaced as a whole (one model reset)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tools: list[ToolRef] = []
        self.rows: list[Row | None] = []
        self.changed: list[int] = []
        """The rows the last ``show`` changed in place (none after a reset)."""

    def show(self, tools: Sequence[ToolRef], rows: Sequence[Row | None] = ()) -> bool:
        """List ``tools``; False when they are the ones listed already (nothing to redo)."""
        rows = list(rows) or [None] * len(tools)
        if same_tools(tools, self.tools) and not any(rows) and not any(self.rows):
            return False
        before, extras = self.tools, self.rows
        if len(tools) != len(before) or not before:
            self.changed = []
            self.beginResetModel()
            self.tools = list(tools)
            self.rows = rows
            self.endResetModel()
            return True
        self.tools = list(tools)
        self.rows = rows
        self.changed = [
            i
            for i, (new, old) in enumerate(zip(tools, before, strict=True))
            if new.tool is not old.tool or new.skill is not old.skill or rows[i] is not extras[i]
        ]
        for i in self.changed:  # one row at a time: a span would repaint the whole list
            at = self.index(i, 0)
            self.dataChanged.emit(at, at)
        return True

    def row_of(self, row: int) -> Row | None:
        return self.rows[row] if 0 <= row < len(self.rows) else None

    def past_run(self, row: int) -> PastRun | None:
        extra = self.row_of(row)
        return extra.past if extra is not None else None

    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self.tools)

    def data(
        self, index: QModelIndex | QPersistentModelIndex, role: int = Qt.ItemDataRole.DisplayRole
    ) -> object:
        row = index.row()
        if not index.isValid() or not 0 <= row < len(self.tools):
            return None
        ref = self.tools[row]
        extra = self.row_of(row)
        if role == Qt.ItemDataRole.DisplayRole:
            title = human_title(ref.tool.name)
            return f"{title} · {extra.tag}" if extra is not None and extra.tag else title
        if role == REF_ROLE:
            return ref.ref
        if role == DESCRIPTION_ROLE:
            return _subtitle(ref, extra)
        if role == Qt.ItemDataRole.ToolTipRole:
            return plain_tooltip(plain_text(ref.tool.description))
        return None


def _subtitle(ref: ToolRef, extra: Row | None) -> str:
    if extra is not None and extra.subtitle:
        return extra.subtitle
    return plain_text(ref.tool.description)


class ResultDelegate(QStyledItemDelegate):
    """Two lines per result: ``tool`` + skill in bold, the description muted below.

    Each row's two lines are laid out once (``QStaticText``, elided to the row's width)
    and kept, by tool and width, for as long as the font stays: typing repaints every
    row at every letter, and laying text out again (or even asking the model for it)
    was most of a keystroke's cost. ``KEPT`` rows are kept, the oldest half dropped
    when it is reached (dropping all at once made the next letters lay out again the
    rows they had just shown).
    """

    KEPT = 100 * MAX_RESULTS

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._laid_out: dict[
            tuple[int, str, int], tuple[ToolDefinition, QStaticText, QStaticText]
        ] = {}
        self._icons: dict[tuple[int, int, float], tuple[SkillDefinition, QPixmap]] = {}
        self._font: QFont | None = None  # the font the kept rows were laid out in
        self._bold = QFont()
        self._line_spacing = 0

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        metrics = QFontMetrics(option.font)
        return QSize(option.rect.width(), metrics.lineSpacing() * 2 + 12)

    def _icon(self, ref: ToolRef, side: int, ratio: float) -> QPixmap:
        """The skill's icon at ``side`` pixels, made once and kept while the skill is
        the same object (a repaint at every letter only draws it; a reloaded skill is a
        new object, looked up again)."""
        skill = ref.skill
        key = (id(skill), side, ratio)
        found = self._icons.get(key)
        if found is None or found[0] is not skill:
            if len(self._icons) >= self.KEPT:
                _drop_oldest_half(self._icons)
            found = (skill, icon_pixmap(skill.name, skill.directory, side, ratio))
            self._icons[key] = found
        return found[1]

    def _use_font(self, font: QFont) -> None:
        """Lay rows out in ``font`` from now on (the rows kept in another are dropped);
        before anything of a row is drawn, so that its icon's size and its lines follow
        the same font from the very first paint."""
        if self._font is None or font != self._font:  # cheaper than comparing ``key()``s
            self._font = QFont(font)
            self._bold = QFont(font)
            self._bold.setBold(True)
            self._line_spacing = QFontMetrics(font).lineSpacing()
            self._laid_out.clear()

    def _lines(
        self, ref: ToolRef, extra: Row | None, width: int, font: QFont
    ) -> tuple[QStaticText, QStaticText]:
        """The row's two lines laid out, kept by tool object (its title and description
        cannot change under it), the row's own subtitle and the width: at a repaint, no
        text is made or measured."""
        tool = ref.tool
        line_key = (id(tool), extra.subtitle if extra is not None else "", width)
        found = self._laid_out.get(line_key)
        if found is None or found[0] is not tool:
            if len(self._laid_out) >= self.KEPT:
                _drop_oldest_half(self._laid_out)
            title = human_title(tool.name)
            subtitle = _subtitle(ref, extra)
            found = (tool, _laid_out(title, width, self._bold), _laid_out(subtitle, width, font))
            self._laid_out[line_key] = found
        return found[1], found[2]

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        model = index.model()
        if not isinstance(model, ResultRows):
            return
        tools = model.tools
        row = index.row()
        if not 0 <= row < len(tools):
            return
        extra = model.row_of(row)
        self._use_font(option.font)
        painter.save()
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        palette = option.palette
        if selected:
            painter.fillRect(option.rect, palette.color(QPalette.ColorRole.Highlight))
        else:
            QApplication.style().drawPrimitive(
                QStyle.PrimitiveElement.PE_PanelItemViewItem, option, painter
            )
        text_role = QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        rect = option.rect.adjusted(10, 5, -10, -5)
        ref = tools[row]
        side = self._line_spacing * 2 - 4
        ratio = painter.device().devicePixelRatioF()
        painter.drawPixmap(rect.left(), rect.top() + 1, self._icon(ref, side, ratio))
        rect = rect.adjusted(side + 10, 0, 0, 0)
        tag = extra.tag if extra is not None else ""
        tag_width = QFontMetrics(option.font).horizontalAdvance(tag) + 12 if tag else 0
        title, description = self._lines(tools[row], extra, rect.width() - tag_width, option.font)
        painter.setFont(self._bold)
        painter.setPen(palette.color(text_role))
        painter.drawStaticText(rect.topLeft(), title)
        if tag:
            painter.setFont(option.font)
            painter.setPen(
                palette.color(text_role if selected else QPalette.ColorRole.PlaceholderText)
            )
            painter.drawText(
                rect.adjusted(0, 0, 0, -self._line_spacing),
                int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop),
                tag,
            )
        painter.setFont(option.font)
        painter.setPen(palette.color(text_role if selected else QPalette.ColorRole.PlaceholderText))
        painter.drawStaticText(QPoint(rect.left(), rect.top() + self._line_spacing), description)
        painter.restore()


def _drop_oldest_half(kept: dict[Any, Any]) -> None:
    """Forget the older half of ``kept`` (a dict keeps the order things were added in)."""
    for key in list(islice(kept, len(kept) // 2)):
        del kept[key]


def _laid_out(text: str, width: int, font: QFont) -> QStaticText:
    elided = QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideRight, width)
    line = QStaticText(elided)
    line.setTextFormat(Qt.TextFormat.PlainText)
    line.prepare(QTransform(), font)
    return line


class ResultsList(QListView):
    """The matching tools: at most ``MAX_RESULTS`` rows, no scroll bars, no focus of its
    own (the keys stay in the input), as tall as its rows."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows = ResultRows(self)
        self._row_height = 0
        self.setObjectName("command-results")
        self.setModel(self.rows)
        self.setItemDelegate(ResultDelegate(self))
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setUniformItemSizes(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        accessibility.name(self, "Matching tools")
        self.selectionModel().currentRowChanged.connect(self._announce)

    def fill(self, tools: Sequence[ToolRef], rows: Sequence[Row | None] = ()) -> None:
        """List ``tools``; a new list starts with its first row chosen, and said as a
        choice is (also when the first row was chosen already: rows changed in place)."""
        if not self.rows.show(tools, rows) or not tools:
            return
        first = self.rows.index(0, 0)
        if self.currentIndex() != first:
            self.setCurrentIndex(first)
        else:
            self.scrollTo(first)
            self._announce(first, first)

    def move_by(self, step: int) -> None:
        """Choose the row ``step`` rows down (up when negative), stopping at either end."""
        count = len(self.rows.tools)
        if count:
            row = min(max(self.currentIndex().row() + step, 0), count - 1)
            self.setCurrentIndex(self.rows.index(row, 0))

    def current_ref(self) -> str | None:
        """The ``skill.tool`` ref of the chosen row."""
        row = self.currentIndex().row()
        tools = self.rows.tools
        return tools[row].ref if 0 <= row < len(tools) else None

    def fit(self, rows: int, *, scrolls: bool = False) -> bool:
        """Show ``rows`` rows (none hides the list); True when its size changed.
        ``scrolls``: the list sits in a window (the launcher) and may be shorter than its
        rows, so a small screen scrolls it instead of the window growing off-screen."""
        if rows and not self._row_height:
            self._row_height = self.sizeHintForRow(0)
        height = rows * self._row_height + (4 if rows else 0)
        changed = height != self.height() or self.isHidden() == (rows > 0)
        self.setMinimumHeight(0 if scrolls else height)
        self.setMaximumHeight(height)
        self.setVisible(rows > 0)
        return changed

    def _announce(self, current: QModelIndex, _previous: QModelIndex) -> None:
        accessibility.announce(self, current)
