"""The command bar: a small frameless box that finds a tool as you type.

Typing filters every tool offered in the current mode by name and description, ranked by
``assistant.fuzzy.FuzzyIndex`` (the same ranker the model router falls back on). Up and
Down move through the results, Enter opens the chosen tool's form, Esc closes.

Free text — Enter when nothing matches, or Ctrl+Enter whatever matches — is emitted as
``text_submitted(text)`` and the bar stays open. The controller then shows what happens
to it here: with a local model configured, a spinner and "Asking functiongemma…" while
the model thinks (Esc cancels; the late answer is ignored), then either the proposed
tool's form (the bar hides) or *choices*: a line saying the model was unsure or could not
be reached, and the closest tools to pick from. Without a model the choices are the fuzzy
matches of the whole sentence, under "No model configured — Settings → Model".

It is a ``Qt.Tool`` frameless window that hides when it loses focus, rather than a
``Qt.Popup``: a popup needs a parent window on Wayland, and the bar is usually opened
by a second ``gibberish`` process (a desktop shortcut) with no window of ours around.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import (
    QAbstractListModel,
    QEvent,
    QModelIndex,
    QObject,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    Signal,
)
from PySide6.QtGui import (
    QFont,
    QFontMetrics,
    QGuiApplication,
    QHideEvent,
    QKeyEvent,
    QPainter,
    QPalette,
    QPixmap,
    QShowEvent,
    QStaticText,
    QTransform,
)
from PySide6.QtWidgets import (
    QApplication,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gibberish.paths import home_short
from gibberish.ui import accessibility
from gibberish.ui.command_bar.steps import Steps
from gibberish.ui.formatting import arguments_text, human_title, plain_text, plain_tooltip
from gibberish.ui.skill_icons import skill_icon
from gibberish.ui.spinner import Spinner
from gibberish.ui.widgets import PlainLabel, set_tone

if TYPE_CHECKING:
    from gibberish.assistant.fuzzy import FuzzyIndex, FuzzyMatch
    from gibberish.engine.core import ToolRef
    from gibberish.engine.run_history import PastRun

_WORD = re.compile(r"[^\W_]+")
REF_ROLE = Qt.ItemDataRole.UserRole
DESCRIPTION_ROLE = Qt.ItemDataRole.UserRole + 1
MAX_RESULTS = 12
RECENT_SHOWN = 5
WEAK_BESIDE_STRONG = 0.5
"""A match on no word of the title or description is listed beside word matches only
from this score (its name holds the letters closely)."""
WEAK_ALONE = 0.3
"""... and alone (nothing matched on a word: a typo, letters of a name) from this one."""
WIDTH = 600
STEP_WIDTH = 760
STEP_HEIGHT = 520
SCREEN_MARGIN = 16
HINT_CHOOSE = "↑↓ to choose · Enter to open · Esc to close"
HINT_BUSY = "Esc to cancel"
HINT_EDIT = "Edit the text and press Enter to try again · Esc to close"

_SHOWN: set[CommandBar] = set()
"""Bars on screen. A shown bar is held here so that Python's cycle collector can never
delete it: a collection may start in the middle of painting it (any allocation in the
delegate's ``paint``), and a widget deleted while it is painted crashes Qt."""


class Row:
    """What a row says besides its tool: a tag ("Pinned", "Recent") and, for a recent
    run, the run to start again with its arguments in words."""

    __slots__ = ("past", "subtitle", "tag")

    def __init__(self, tag: str = "", subtitle: str = "", past: PastRun | None = None) -> None:
        self.tag = tag
        self.subtitle = subtitle
        self.past = past


class _Results(QAbstractListModel):
    """The tools listed under the input: at most ``MAX_RESULTS`` rows, replaced as a whole
    when the text changes (one model reset; the view paints only these rows)."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.tools: list[ToolRef] = []
        self.rows: list[Row | None] = []

    def show(self, tools: Sequence[ToolRef], rows: Sequence[Row | None] = ()) -> bool:
        """List ``tools``; False when they are the ones listed already (nothing to redo)."""
        rows = list(rows) or [None] * len(tools)
        if _same_tools(tools, self.tools) and not any(rows) and not any(self.rows):
            return False
        self.beginResetModel()
        self.tools = list(tools)
        self.rows = rows
        self.endResetModel()
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


class _ResultDelegate(QStyledItemDelegate):
    """Two lines per result: ``tool`` + skill in bold, the description muted below.

    Each row's two lines are laid out once (``QStaticText``, elided to the row's width)
    and kept, by tool and width, for as long as the font stays: typing repaints every
    row at every letter, and laying text out again (or even asking the model for it)
    was most of a keystroke's cost.
    """

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._laid_out: dict[tuple[str, str, int], tuple[QStaticText, QStaticText]] = {}
        self._icons: dict[tuple[str, str, int], QPixmap] = {}
        self._font_key = ""
        self._bold = QFont()
        self._line_spacing = 0

    def sizeHint(
        self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex
    ) -> QSize:
        metrics = QFontMetrics(option.font)
        return QSize(option.rect.width(), metrics.lineSpacing() * 2 + 12)

    def _icon(self, ref: ToolRef, side: int) -> QPixmap:
        """The skill's icon at ``side`` pixels, scaled once and kept (a repaint at every
        letter only draws it)."""
        key = (ref.skill.name, str(ref.skill.directory), side)
        found = self._icons.get(key)
        if found is None:
            if len(self._icons) > 4 * MAX_RESULTS * 40:
                self._icons.clear()
            found = skill_icon(ref.skill.name, ref.skill.directory).pixmap(side, side)
            self._icons[key] = found
        return found

    def _lines(
        self, ref: ToolRef, extra: Row | None, width: int, font: QFont
    ) -> tuple[QStaticText, QStaticText]:
        key = font.key()
        if key != self._font_key:
            self._font_key = key
            self._bold = QFont(font)
            self._bold.setBold(True)
            self._line_spacing = QFontMetrics(font).lineSpacing()
            self._laid_out.clear()
        subtitle = _subtitle(ref, extra)
        line_key = (ref.ref, subtitle, width)
        found = self._laid_out.get(line_key)
        if found is None:
            if len(self._laid_out) >= 40 * MAX_RESULTS:
                self._laid_out.clear()
            title = human_title(ref.tool.name)
            found = (_laid_out(title, width, self._bold), _laid_out(subtitle, width, font))
            self._laid_out[line_key] = found
        return found

    def paint(
        self,
        painter: QPainter,
        option: QStyleOptionViewItem,
        index: QModelIndex | QPersistentModelIndex,
    ) -> None:
        model = index.model()
        if not isinstance(model, _Results):
            return
        tools = model.tools
        row = index.row()
        if not 0 <= row < len(tools):
            return
        extra = model.row_of(row)
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
        side = self._line_spacing * 2 - 4 if self._line_spacing else 28
        painter.drawPixmap(rect.left(), rect.top() + 1, self._icon(ref, side))
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


def _laid_out(text: str, width: int, font: QFont) -> QStaticText:
    elided = QFontMetrics(font).elidedText(text, Qt.TextElideMode.ElideRight, width)
    line = QStaticText(elided)
    line.setTextFormat(Qt.TextFormat.PlainText)
    line.prepare(QTransform(), font)
    return line


def most_used(
    history: Sequence[str], tools: Sequence[ToolRef], position: Callable[[], dict[str, int]]
) -> list[ToolRef]:
    """With no text typed: the tools run most often lately first (ties: the most recent),
    then the rest of ``tools`` (sorted by name) up to ``MAX_RESULTS``. ``position`` gives
    each ref's place in ``tools`` (made only when something was run)."""
    counts: dict[str, int] = {}
    newest: dict[str, int] = {}
    for place, name in enumerate(history):
        counts[name] = counts.get(name, 0) + 1
        newest.setdefault(name, place)
    positions = position() if counts else {}
    used = sorted(
        (positions[ref] for ref in counts if ref in positions),
        key=lambda i: (-counts[tools[i].ref], newest[tools[i].ref], i),
    )
    chosen = [tools[i] for i in used[:MAX_RESULTS]]
    taken = set(used)
    for i, ref in enumerate(tools):
        if len(chosen) >= MAX_RESULTS:
            break
        if i not in taken:
            chosen.append(ref)
    return chosen


def _prepared_index(offered: list[ToolRef]) -> tuple[list[ToolRef], FuzzyIndex[ToolRef]]:
    """``offered`` sorted by name and a prepared index over them (run on a worker)."""
    from gibberish.assistant.fuzzy import FuzzyIndex  # loaded on that thread

    ordered = _by_name(offered)
    index = FuzzyIndex.for_tools(ordered)
    index.prepare()
    return ordered, index


class CommandBar(QFrame):
    """Type to find a tool; Enter chooses it (``tool_chosen``) or hands the text on (``text_submitted``).

    Three states: *filtering* (the default: the list follows the text), *busy* (a slow
    router is thinking: a spinner and ``set_busy``'s text, the text read-only, Esc emits
    ``cancel_requested``) and *choices* (``show_choices``: a line saying why, and the
    tools the person may pick from; typing goes back to filtering).
    """

    tool_chosen = Signal(str)
    run_chosen = Signal(object)  # a run_history.PastRun: the same call again, through its form
    text_submitted = Signal(str)
    cancel_requested = Signal()
    settings_requested = Signal()
    searching = Signal()
    """Back at the search after a step (the recent runs may have changed)."""

    def __init__(self, parent: QWidget | None = None, *, embedded: bool = False) -> None:
        super().__init__(
            parent,
            Qt.WindowType.Widget
            if embedded
            else Qt.WindowType.Tool
            | Qt.WindowType.FramelessWindowHint
            | Qt.WindowType.WindowStaysOnTopHint,
        )
        self.embedded = embedded
        """Part of the launcher window (no tray): never hides itself, Esc clears."""
        self.setObjectName("command-bar")
        self.setWindowTitle("gibberish")
        self.setFrameShape(QFrame.Shape.StyledPanel)
        self.setStyleSheet(
            "#command-bar { border: 1px solid palette(mid); border-radius: 10px; }"
            "#command-input { font-size: 15pt; padding: 6px 8px; border: none; }"
        )
        self._index: FuzzyIndex[ToolRef] | None = None
        self._ahead: tuple[list[ToolRef], list[ToolRef], FuzzyIndex[ToolRef]] | None = None
        self._tools: list[ToolRef] = []
        self._index_of: list[ToolRef] = []  # the tools as given, to tell a change
        self._positions: dict[str, int] | None = None  # ref → place in ``_tools``
        self._row_height = 0
        self._words: dict[int, tuple[str, ...]] = {}  # a tool's title and description words
        self.pinned: Sequence[str] = ()
        """``skill.tool`` refs pinned in the settings (first with an empty query)."""
        self.past_runs: Sequence[PastRun] = ()
        """Recent runs kept across restarts, newest first (``engine.run_history``)."""
        self._busy = False
        self._choices: tuple[str, ...] | None = None
        self.history: Sequence[str] = ()
        """``skill.tool`` refs of recent runs, newest first (orders the empty query)."""
        self.ask_hint = "Enter to ask in your own words"
        """The hint's action for unmatched text (the controller names the model here)."""

        self.search_page = QWidget()
        self.search_page.setObjectName("command-search")
        layout = QVBoxLayout(self.search_page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(6)
        layout.addWidget(self._input_line())
        layout.addWidget(self._status_row())
        layout.addWidget(self._results_list())
        self.hint = PlainLabel(HINT_CHOOSE)
        self.hint.setObjectName("command-hint")
        _mute(self.hint)
        layout.addWidget(self.hint)
        self.steps = Steps(self)
        self.steps.changed.connect(self._step_changed)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(10, 10, 10, 10)
        outer.setSpacing(0)
        outer.addWidget(self.search_page)
        outer.addWidget(self.steps.stack)
        self.steps.stack.hide()
        self._width = WIDTH
        if not embedded:
            self.setFixedWidth(WIDTH)

    def _input_line(self) -> QLineEdit:
        """Where the person types; it filters the list at every letter."""
        self.input = QLineEdit()
        self.input.setObjectName("command-input")
        self.input.setPlaceholderText("Find a tool, or say what you want to do…")
        self.input.setClearButtonEnabled(True)
        accessibility.name(self.input, "Find a tool", "Type a tool's name or what you want to do")
        for button in self.input.findChildren(QToolButton):
            accessibility.name(button, "Clear the text")
        self.input.textChanged.connect(self._filter)
        self.input.installEventFilter(self)
        return self.input

    def _results_list(self) -> QListView:
        """The matching tools: at most ``MAX_RESULTS`` rows, no scroll bars, no focus of
        its own (the keys stay in the input)."""
        self.model = _Results(self)
        self.results = QListView()
        self.results.setObjectName("command-results")
        self.results.setModel(self.model)
        self.results.setItemDelegate(_ResultDelegate(self.results))
        self.results.setFrameShape(QFrame.Shape.NoFrame)
        self.results.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.results.setUniformItemSizes(True)
        self.results.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.results.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        accessibility.name(self.results, "Matching tools")
        self.results.selectionModel().currentRowChanged.connect(self._announce)
        self.results.activated.connect(self._choose_index)
        self.results.clicked.connect(self._choose_index)
        return self.results

    def _status_row(self) -> QWidget:
        """Spinner + one line (busy, unsure, error) + an optional link to the settings."""
        self.status = QWidget()
        self.status.setObjectName("command-status")
        row = QHBoxLayout(self.status)
        row.setContentsMargins(10, 2, 8, 2)  # the spinner lines up with the typed text
        row.setSpacing(8)
        self.spinner = Spinner(18)
        row.addWidget(self.spinner, 0, Qt.AlignmentFlag.AlignVCenter)
        self.status_label = QLabel()
        self.status_label.setObjectName("command-status-text")
        self.status_label.setTextFormat(Qt.TextFormat.PlainText)  # messages quote servers
        self.status_label.setWordWrap(True)
        self.status_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.status_label, 1)
        self.status_hint = PlainLabel(HINT_BUSY)
        self.status_hint.setObjectName("command-status-hint")
        _mute(self.status_hint)
        row.addWidget(self.status_hint, 0, Qt.AlignmentFlag.AlignVCenter)
        self.settings_link = QLabel('<a href="settings">Settings…</a>')
        self.settings_link.setObjectName("command-settings-link")
        self.settings_link.setTextFormat(Qt.TextFormat.RichText)
        self.settings_link.linkActivated.connect(self._settings_clicked)
        row.addWidget(self.settings_link, 0, Qt.AlignmentFlag.AlignTop)
        self.status.hide()
        return self.status

    # ------------------------------------------------------------------ content
    def set_tools(self, tools: Sequence[ToolRef]) -> None:
        """Offer ``tools``. The same tools as before (the same skills and tool objects)
        keep the index; other tools get a new one once per library change, patched from
        the last one (unchanged skills' entries are reused, see ``FuzzyIndex.patched``).
        A new index splits its texts into words on a thread of its own
        (``FuzzyIndex.prepare``): the letters typed meanwhile are ranked the same, only
        slower."""
        ahead, self._ahead = self._ahead, None
        if self._index is None and ahead is not None and _same_tools(tools, ahead[0]):
            self._index_of, self._tools, self._index = ahead
            self._positions = None
        elif self._index is None or not _same_tools(tools, self._index_of):
            from gibberish.assistant.fuzzy import FuzzyIndex  # the model feed loads only when used

            self._index_of = list(tools)
            self._tools = _by_name(tools)
            self._positions = None  # made when first needed (history, choices)
            if self._index is None:
                self._index = FuzzyIndex.for_tools(self._tools)
            else:
                self._index = self._index.patched(self._tools)
            if not self._index.prepared:
                threading.Thread(target=self._index.prepare, name="command-bar-words").start()
        if self._busy:
            return
        if self._choices is not None:
            self._show_refs(self._choices)
        else:
            self._filter(self.input.text())

    def index_ahead(self, tools: Sequence[ToolRef]) -> threading.Thread:
        """Make the index over ``tools`` on a thread of its own, for the first
        ``set_tools`` of the very same tools to take (about 50 ms at 5,000 tools, that
        the first open would otherwise spend on this thread)."""
        offered = list(tools)

        def make() -> None:
            self._ahead = (offered, *_prepared_index(offered))

        thread = threading.Thread(target=make, name="command-bar-index")
        thread.start()
        return thread

    @property
    def index_made_ahead(self) -> bool:
        """An index made by ``index_ahead`` waits for its tools' ``set_tools``."""
        return self._ahead is not None

    @property
    def index(self) -> FuzzyIndex[ToolRef] | None:
        """The ranker over the tools offered (kept while they stay the same)."""
        return self._index

    def ranked(self, text: str) -> list[ToolRef]:
        """The tools matching ``text``, best first; with no text, the tools run most
        often lately first (ties: the most recent), then the rest by name."""
        if not text.strip() or self._index is None:
            return self._most_used()
        return self._filtered(text, self._index.rank(text, 3 * MAX_RESULTS))

    def _filtered(self, text: str, matches: Sequence[FuzzyMatch[ToolRef]]) -> list[ToolRef]:
        """A match on a word of the title, the description or the skill's name first; a
        weaker match (letters in order, a word of the skill's description) only when it
        is close, or when nothing matches on a word: "disk" offers Disk usage, not Memory
        usage (whose skill's description speaks of disks)."""
        terms = [t for t in _WORD.findall(text.lower()) if t]
        strong = [m for m in matches if self._on_a_word(m.item, terms)]
        floor = WEAK_BESIDE_STRONG if strong else WEAK_ALONE
        taken = {id(m) for m in strong}
        weak = [m for m in matches if id(m) not in taken and m.score >= floor]
        return [m.item for m in (strong + weak)[:MAX_RESULTS]]

    def _on_a_word(self, ref: ToolRef, terms: Sequence[str]) -> bool:
        words = self._words.get(id(ref.tool))
        if words is None:
            if len(self._words) > 20_000:
                self._words.clear()
            text = f"{human_title(ref.tool.name)} {ref.tool.description} {ref.skill.name}".lower()
            words = self._words[id(ref.tool)] = tuple(set(_WORD.findall(text)))
        return bool(terms) and all(any(w.startswith(t) for w in words) for t in terms)

    @property
    def _position(self) -> dict[str, int]:
        """Each tool's ``skill.tool`` ref → its place in ``_tools`` (by name)."""
        if self._positions is None:
            self._positions = {r.ref: i for i, r in enumerate(self._tools)}
        return self._positions

    def _most_used(self) -> list[ToolRef]:
        return most_used(self.history, self._tools, lambda: self._position)

    def refs(self) -> list[str]:
        """The ``skill.tool`` refs listed now, top first."""
        return [ref.ref for ref in self.model.tools]

    def current_ref(self) -> str | None:
        """The ``skill.tool`` ref of the selected row."""
        row = self.results.currentIndex().row()
        return self.model.tools[row].ref if 0 <= row < len(self.model.tools) else None

    def _filter(self, text: str) -> None:
        if self._busy:
            return
        self._choices = None
        self._set_status(None)
        if not text.strip() and (self.pinned or self.past_runs):
            self._fill(*self._home())
        else:
            self._fill(self.ranked(text))

    def _home(self) -> tuple[list[ToolRef], list[Row | None]]:
        """The empty query: pinned tools, recent runs (by title and arguments), then
        suggestions (the tools used most lately, then the rest by name)."""
        tools: list[ToolRef] = []
        rows: list[Row | None] = []
        position = self._position
        for pinned in self.pinned:
            if pinned in position and len(tools) < MAX_RESULTS:
                tools.append(self._tools[position[pinned]])
                rows.append(Row("Pinned"))
        for past in self.past_runs[:RECENT_SHOWN]:
            if past.ref in position and len(tools) < MAX_RESULTS:
                tool = self._tools[position[past.ref]]
                said = arguments_text(tool.tool, past.arguments)
                where = home_short(past.folder) if past.folder else ""
                subtitle = " · ".join(p for p in (said, f"in {where}" if where else "") if p)
                tools.append(tool)
                rows.append(Row("Recent", subtitle or plain_text(tool.tool.description), past))
        shown = {t.ref for t, r in zip(tools, rows, strict=True) if r is not None and not r.past}
        for ref in self._most_used():
            if len(tools) >= MAX_RESULTS:
                break
            if ref.ref not in shown:
                tools.append(ref)
                rows.append(Row("Suggested"))
                shown.add(ref.ref)
        return tools, rows

    def _fill(self, refs: Sequence[ToolRef], rows: Sequence[Row | None] = ()) -> None:
        if self.model.show(refs, rows) and refs:
            self.results.setCurrentIndex(self.model.index(0, 0))
        self._fit()

    def _fit(self) -> None:
        rows = 0 if self._busy else len(self.model.tools)
        if rows and not self._row_height:
            self._row_height = self.results.sizeHintForRow(0)
        height = rows * self._row_height + (4 if rows else 0)
        changed = height != self.results.height() or self.results.isHidden() == (rows > 0)
        self.results.setMinimumHeight(0 if self.embedded else height)  # a window's scrolls
        self.results.setMaximumHeight(height)
        self.results.setVisible(rows > 0)
        if self._busy:
            hint = HINT_BUSY
        elif self._choices is not None:
            hint = HINT_CHOOSE if rows else HINT_EDIT
        elif rows or not self.input.text().strip():
            hint = HINT_CHOOSE
        else:
            hint = f"No tool matches · {self.ask_hint} · Esc to close"
        if hint != self.hint.text():
            self.hint.setText(hint)
            changed = True
        if self.hint.isHidden() != self._busy:
            self.hint.setVisible(not self._busy)  # busy: "Esc to cancel" sits in the status row
            changed = True
        if changed:
            self.adjustSize()

    def _set_status(
        self, text: str | None, *, spinning: bool = False, failed: bool = False, link: bool = False
    ) -> None:
        self.status.setVisible(text is not None)
        self.status_label.setText(text or "")
        if failed:
            set_tone(self.status_label, "error")
        else:
            self.status_label.setPalette(self.palette())
        self.status_label.setProperty("failed", failed)
        self.spinner.setVisible(spinning)
        self.status_hint.setVisible(spinning)
        self.settings_link.setVisible(link)

    # ------------------------------------------------------------------ states
    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def status_text(self) -> str:
        """The line under the input ("" when there is none)."""
        return self.status_label.text() if self.status.isVisibleTo(self) else ""

    def set_busy(self, text: str | None) -> None:
        """``text`` (e.g. "Asking functiongemma…") with a spinner; None ends the busy state."""
        self._busy = text is not None
        self.input.setReadOnly(self._busy)
        self.input.setClearButtonEnabled(not self._busy)
        if self._busy:
            self._choices = None
            self._set_status(text, spinning=True)
        else:
            self._set_status(None)
        self._fit()

    def show_choices(
        self,
        message: str,
        refs: Sequence[str] = (),
        *,
        failed: bool = False,
        settings_link: bool = False,
    ) -> None:
        """Say ``message`` and list the tools ``refs`` (those still known) to pick from."""
        self._busy = False
        self.input.setReadOnly(False)
        self.input.setClearButtonEnabled(True)
        self._choices = tuple(refs)
        self._set_status(message, failed=failed, link=settings_link)
        self._show_refs(self._choices)

    def _show_refs(self, refs: Sequence[str]) -> None:
        self._fill([self._tools[self._position[r]] for r in refs if r in self._position])

    def cancel(self) -> None:
        """Stop waiting (Esc while busy): the answer, when it comes, is ignored."""
        if not self._busy:
            return
        self.set_busy(None)
        self._set_status("Cancelled. Press Enter to ask again.")
        self.cancel_requested.emit()

    # ------------------------------------------------------------------ showing
    def popup(self, text: str = "") -> None:
        """Show centred near the top of the screen under the mouse, holding ``text``."""
        self._busy = False
        self.input.setReadOnly(False)
        self.input.setClearButtonEnabled(True)
        self._choices = None
        self.input.setText(text)
        self._filter(text)
        if self.steps.active:
            self.show_step()
            return
        if self.embedded:
            self.show_step()
            self.input.setFocus()
            return
        self._place()
        self.show()
        self.raise_()
        self.activateWindow()
        self.input.setFocus()

    def _place(self) -> None:
        """Centred near the top of the screen under the mouse."""
        area = _area(self)
        top = area.top() + area.height() // (8 if self.steps.active else 4)
        self.move(area.center().x() - self.width() // 2, top)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.input and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            return self._key(event)
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if self.steps.active:  # a key that reached the frame, not the step: never the search's
            super().keyPressEvent(event)
            return
        if not self._key(event):
            super().keyPressEvent(event)

    def _key(self, event: QKeyEvent) -> bool:
        key = event.key()
        if key == Qt.Key.Key_Escape:
            if self._busy:
                self.cancel()
            elif self.embedded:
                self.input.clear()
            else:
                self.hide()
            return True
        if key in (Qt.Key.Key_Down, Qt.Key.Key_Up, Qt.Key.Key_PageDown, Qt.Key.Key_PageUp):
            count = len(self.model.tools)
            if count and not self._busy:
                step = {
                    Qt.Key.Key_Down: 1,
                    Qt.Key.Key_Up: -1,
                    Qt.Key.Key_PageDown: 5,
                    Qt.Key.Key_PageUp: -5,
                }[Qt.Key(key)]
                row = min(max(self.results.currentIndex().row() + step, 0), count - 1)
                self.results.setCurrentIndex(self.model.index(row, 0))
            return True
        if key in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.submit(free_text=bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier))
            return True
        return False

    def submit(self, *, free_text: bool = False) -> None:
        """Enter: the selected tool, or the typed text when nothing matches (or Ctrl+Enter).

        Free text leaves the bar open: the controller shows the busy state, the choices,
        or hides the bar when a proposal opens.
        """
        if self._busy:
            return
        text = self.input.text().strip()
        current = self.results.currentIndex()
        if current.isValid() and not free_text:
            self._choose_index(current)
        elif text:
            self.text_submitted.emit(text)

    def _choose_index(self, index: QModelIndex) -> None:
        if self._busy:
            return
        ref = index.data(REF_ROLE)
        if not ref:
            return
        past = self.model.past_run(index.row())
        if past is not None:
            self.run_chosen.emit(past)
        else:
            self.tool_chosen.emit(str(ref))

    def _announce(self, current: QModelIndex, _previous: QModelIndex) -> None:
        accessibility.announce(self.results, current)

    def _settings_clicked(self, _link: str) -> None:
        if not self.embedded:
            self.hide()
        self.settings_requested.emit()

    # ------------------------------------------------------------------ steps
    def _step_changed(self) -> None:
        """A step (form, approval, output) came or went: show it or the search, and fit."""
        active = self.steps.active
        self.search_page.setVisible(not active)
        self.steps.stack.setVisible(active)
        if active:
            self._fit_step()
        else:
            if not self.embedded:
                self.setFixedWidth(self._width)
            self.setMinimumHeight(0)
            self.setMaximumHeight(16777215)
            self.searching.emit()
            self._fit()
            self.adjustSize()
            self.input.setFocus()

    def _fit_step(self) -> None:
        """A step's size: wide enough to read, never past the screen (it scrolls)."""
        if self.embedded:
            return
        area = _area(self)
        width = min(STEP_WIDTH, area.width() - 2 * SCREEN_MARGIN)
        page = self.steps.stack.currentWidget()
        if getattr(page, "tall", False):
            wanted = STEP_HEIGHT
        else:
            wanted = page.sizeHint().height() + 24 if page is not None else 200
        height = min(wanted, area.height() - 2 * SCREEN_MARGIN)
        self.setFixedWidth(width)
        self.setFixedHeight(height)
        self._keep_on_screen()

    def _keep_on_screen(self) -> None:
        area = _area(self)
        x = min(max(self.x(), area.left()), area.right() - self.width())
        y = min(max(self.y(), area.top()), area.bottom() - self.height())
        if (x, y) != (self.x(), self.y()):
            self.move(x, y)

    def show_step(self) -> None:
        """Bring the window up on its current step (a tray click opens it at a tool)."""
        if self.embedded:
            window = self.window()
            window.showNormal()
            window.raise_()
            window.activateWindow()
            return
        if not self.isVisible():
            self._place()
            self.show()
        self.raise_()
        self.activateWindow()

    def hideEvent(self, event: QHideEvent) -> None:
        """Hidden while a router thinks (focus lost, quit): the question is cancelled, so
        no form pops up later for a bar the person no longer sees."""
        if self._busy:
            self.set_busy(None)
            self.cancel_requested.emit()
        _SHOWN.discard(self)
        super().hideEvent(event)

    def showEvent(self, event: QShowEvent) -> None:
        _SHOWN.add(self)
        super().showEvent(event)

    def changeEvent(self, event: QEvent) -> None:
        if (
            event.type() == QEvent.Type.ActivationChange
            and not self.embedded
            and not self.steps.active
            and self.isVisible()
            and not self.isActiveWindow()
        ):
            self.hide()
        super().changeEvent(event)


def _area(widget: QWidget) -> QRect:
    """The available geometry of the screen under the mouse (or the primary one)."""
    screen = QGuiApplication.screenAt(widget.cursor().pos()) or QGuiApplication.primaryScreen()
    return screen.availableGeometry()


def _by_name(tools: Sequence[ToolRef]) -> list[ToolRef]:
    """``tools`` sorted by tool name, then skill name. One string per key, made in one
    pass (names hold no NUL, which sorts before every other character, so this orders
    like the pair): a third faster than a key function returning tuples."""
    keys = [f"{r.tool.name}\0{r.skill.name}" for r in tools]
    return [tools[i] for i in sorted(range(len(keys)), key=keys.__getitem__)]


def _same_tools(tools: Sequence[ToolRef], before: Sequence[ToolRef]) -> bool:
    """The same skill and tool objects in the same order (a reloaded skill is a new object)."""
    return len(tools) == len(before) and all(
        a.skill is b.skill and a.tool is b.tool for a, b in zip(tools, before, strict=True)
    )


def _mute(label: QLabel) -> None:
    palette = label.palette()
    palette.setColor(
        QPalette.ColorRole.WindowText, palette.color(QPalette.ColorRole.PlaceholderText)
    )
    label.setPalette(palette)
