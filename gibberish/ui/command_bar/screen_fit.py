"""The popup's list on a small screen: the rows there is room for; the rest scroll.

A 2× scale on a 1366×768 screen leaves 384 logical pixels, and the empty query alone
(pinned tools, recent runs, suggestions) lists twelve two-line rows. So when the popup
opens, ``ListFit`` measures the room the screen leaves for its list (the available
height less the input, the status line, the hint and the margins), the list shows the
rows that fit with a scroll bar, the arrow keys scroll it along, and the window stays
inside the screen as the rows change. The launcher window (embedded) never measures:
its list scrolls inside the window already.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from PySide6.QtCore import QEvent, QObject, QRect, Qt, QTimer
from PySide6.QtGui import QResizeEvent
from PySide6.QtWidgets import QFrame, QLayout, QListView, QWidget

SCREEN_MARGIN = 16


class ListFit(QObject):
    """Fits ``window``'s ``results`` list to the screen; ``chrome``: what else is stacked
    over and under it, in ``inner`` (the search page's layout) inside ``outer``."""

    def __init__(
        self,
        window: QFrame,
        results: QListView,
        chrome: Sequence[QWidget],
        inner: QLayout,
        outer: QLayout,
    ) -> None:
        super().__init__(window)
        self.window, self.results, self.chrome = window, results, tuple(chrome)
        self.inner, self.outer = inner, outer
        self.area: QRect | None = None
        self.room: int | None = None
        """Pixels the list may take (``fit_screen``); None: as tall as its rows."""
        self._row_height = 0
        results.viewport().installEventFilter(self)

    def fit_screen(self, area: QRect, refit: Callable[[], None]) -> None:
        """Measure the room ``area`` leaves, ``refit`` the list to it, and make the window
        as tall as that (whatever it showed last)."""
        margins = self.outer.contentsMargins()
        spacing = self.inner.spacing() * max(0, len(self.chrome))
        fixed = margins.top() + margins.bottom() + 2 * self.window.frameWidth() + spacing
        chrome = sum(widget.sizeHint().height() for widget in self.chrome)
        self.area, self.room = area, area.height() - 2 * SCREEN_MARGIN - fixed - chrome
        refit()
        self._relayout()

    def _relayout(self) -> None:
        """The window as tall as its content now: the search page's layout takes the
        list's new height first (its size hint is otherwise only updated on a later turn
        of the event loop)."""
        self.inner.activate()
        self.outer.invalidate()
        self.window.adjustSize()

    def rows(self, rows: int) -> int:
        """How many of ``rows`` to show at once; a scroll bar when some are left out."""
        if not rows or self.room is None:
            return rows
        if not self._row_height:
            self._row_height = self.results.sizeHintForRow(0)
        shown = max(1, min(rows, (self.room - 4) // max(1, self._row_height)))
        policy = (
            Qt.ScrollBarPolicy.ScrollBarAsNeeded
            if shown < rows
            else Qt.ScrollBarPolicy.ScrollBarAlwaysOff
        )
        if self.results.verticalScrollBarPolicy() != policy:
            self.results.setVerticalScrollBarPolicy(policy)
        return shown

    def adjust(self) -> None:
        """The window as tall as its content, moved back inside the screen if it grew
        past it."""
        window = self.window
        self._relayout()
        if self.area is not None and window.isVisible():
            area = self.area
            x = min(max(window.x(), area.left()), area.right() - window.width())
            y = min(max(window.y(), area.top()), area.bottom() - window.height())
            if (x, y) != (window.x(), window.y()):
                window.move(x, y)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if (
            event.type() == QEvent.Type.Resize
            and isinstance(event, QResizeEvent)
            and event.size().width() != event.oldSize().width()
        ):
            # Rows as wide as a scroll bar leaves them, once the resize is through.
            QTimer.singleShot(0, self.results, self.results.doItemsLayout)  # none once gone
        return super().eventFilter(watched, event)
