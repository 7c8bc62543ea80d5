"""The command bar: a small frameless box that finds a tool as you type.

Typing filters every tool offered in the current mode by name and description, ranked by
a ``ranking.ToolRanker`` (``assistant.fuzzy.FuzzyIndex`` underneath, the same ranker the
model router falls back on) and listed by a ``results_list.ResultsList``. Up and Down
move through the results, Enter opens the chosen tool's form, Esc closes.

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

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QModelIndex, QObject, QRect, Qt, Signal
from PySide6.QtGui import QGuiApplication, QHideEvent, QKeyEvent, QShowEvent
from PySide6.QtWidgets import QFrame, QLineEdit, QToolButton, QVBoxLayout, QWidget

from gibberish.ui import accessibility
from gibberish.ui.command_bar.ranking import Row, ToolRanker
from gibberish.ui.command_bar.results_list import DESCRIPTION_ROLE, REF_ROLE, ResultsList
from gibberish.ui.command_bar.screen_fit import SCREEN_MARGIN, ListFit
from gibberish.ui.command_bar.status_row import HINT_BUSY, StatusRow, mute
from gibberish.ui.command_bar.steps import Steps
from gibberish.ui.widgets import PlainLabel

if TYPE_CHECKING:
    from gibberish.assistant.fuzzy import FuzzyIndex
    from gibberish.engine.core import ToolRef
    from gibberish.engine.run_history import PastRun

__all__ = ["DESCRIPTION_ROLE", "REF_ROLE", "CommandBar"]

WIDTH = 600
STEP_WIDTH = 760
STEP_HEIGHT = 520
HINT_CHOOSE = "↑↓ to choose · Enter to open · Esc to close"
HINT_EDIT = "Edit the text and press Enter to try again · Esc to close"

_MOVES = {Qt.Key.Key_Down: 1, Qt.Key.Key_Up: -1, Qt.Key.Key_PageDown: 5, Qt.Key.Key_PageUp: -5}
"""Rows the arrow and page keys move the choice by."""

_SHOWN: set[CommandBar] = set()
"""Bars on screen. A shown bar is held here so that Python's cycle collector can never
delete it: a collection may start in the middle of painting it (any allocation in the
delegate's ``paint``), and a widget deleted while it is painted crashes Qt."""


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
        self.ranking = ToolRanker()
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
        mute(self.hint)
        layout.addWidget(self.hint)
        self.steps = Steps(self)
        self.steps.changed.connect(self._step_changed)
        outer = QVBoxLayout(self)
        self.list_fit = ListFit(
            self, self.results, (self.input, self.status, self.hint), layout, outer
        )
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

    def _results_list(self) -> ResultsList:
        """The matching tools; choosing one (Enter, a click) opens it."""
        self.results = ResultsList()
        self.model = self.results.rows
        self.results.activated.connect(self._choose_index)
        self.results.clicked.connect(self._choose_index)
        return self.results

    def _status_row(self) -> StatusRow:
        """The line under the input; its parts keep their names on the bar."""
        self.status = StatusRow()
        self.spinner = self.status.spinner
        self.status_label = self.status.label
        self.status_hint = self.status.hint
        self.settings_link = self.status.settings_link
        self.settings_link.linkActivated.connect(self._settings_clicked)
        return self.status

    # ------------------------------------------------------------------ content
    def set_tools(self, tools: Sequence[ToolRef]) -> None:
        """Offer ``tools`` (``ToolRanker.offer`` keeps or patches the index) and list
        them again unless a router is thinking."""
        self.ranking.offer(tools)
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
        return self.ranking.index_ahead(tools)

    @property
    def index_made_ahead(self) -> bool:
        """An index made by ``index_ahead`` waits for its tools' ``set_tools``."""
        return self.ranking.index_made_ahead

    @property
    def index(self) -> FuzzyIndex[ToolRef] | None:
        """The ranker over the tools offered (kept while they stay the same)."""
        return self.ranking.index

    def ranked(self, text: str) -> list[ToolRef]:
        """The tools matching ``text``, best first; with no text, the tools run most
        often lately first (ties: the most recent), then the rest by name."""
        return self.ranking.ranked(text, self.history)

    def refs(self) -> list[str]:
        """The ``skill.tool`` refs listed now, top first."""
        return [ref.ref for ref in self.model.tools]

    def current_ref(self) -> str | None:
        """The ``skill.tool`` ref of the selected row."""
        return self.results.current_ref()

    def _filter(self, text: str) -> None:
        if self._busy:
            return
        self._choices = None
        self.status.say(None)
        if not text.strip() and (self.pinned or self.past_runs):
            self._fill(*self.ranking.home(self.pinned, self.past_runs, self.history))
        else:
            self._fill(self.ranked(text))

    def _fill(self, refs: Sequence[ToolRef], rows: Sequence[Row | None] = ()) -> None:
        self.results.fill(refs, rows)
        self._fit()

    def _fit(self) -> None:
        rows = 0 if self._busy else len(self.model.tools)
        shown = self.list_fit.rows(rows)  # the popup: those the screen has room for
        changed = self.results.fit(shown, scrolls=self.embedded)  # a window's list scrolls
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
            self.list_fit.adjust()

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
            self.status.say(text, spinning=True)
        else:
            self.status.say(None)
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
        self.status.say(message, failed=failed, link=settings_link)
        self._show_refs(self._choices)

    def _show_refs(self, refs: Sequence[str]) -> None:
        self._fill(self.ranking.known(refs))

    def cancel(self) -> None:
        """Stop waiting (Esc while busy): the answer, when it comes, is ignored."""
        if not self._busy:
            return
        self.set_busy(None)
        self.status.say("Cancelled. Press Enter to ask again.")
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
        if not self.embedded:
            self.list_fit.fit_screen(_area(self), self._fit)
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
        top = max(area.top(), min(top, area.bottom() + 1 - SCREEN_MARGIN - self.height()))
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
        if key in _MOVES:
            if not self._busy:
                self.results.move_by(_MOVES[Qt.Key(key)])
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
        _keep_on_screen(self)

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


def _keep_on_screen(widget: QWidget) -> None:
    """Move ``widget`` back inside the screen's available area when it reaches past it."""
    area = _area(widget)
    x = min(max(widget.x(), area.left()), area.right() - widget.width())
    y = min(max(widget.y(), area.top()), area.bottom() - widget.height())
    if (x, y) != (widget.x(), widget.y()):
        widget.move(x, y)
