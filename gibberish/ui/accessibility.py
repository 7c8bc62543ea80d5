"""What a screen reader hears: names for widgets, and announcements of a new selection.

Qt names a widget from its own text (a button's label) or from a ``QLabel`` whose buddy
it is *and that shares its parent*; a field inside a row widget, an icon button and a
list have no name unless given one. ``name`` gives one. ``announce`` tells assistive
technology that the current row of a list changed (a ``QAccessible`` focus and selection
event); ``listeners`` see every announcement too, so tests can hear what a screen reader
would.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QModelIndex
from PySide6.QtGui import QAccessible, QAccessibleEvent
from PySide6.QtWidgets import QAbstractItemView, QWidget

listeners: list[Callable[[QWidget, str], None]] = []
"""Called with (view, spoken text) on every ``announce``."""


def name(widget: QWidget, text: str, description: str = "") -> None:
    """The accessible name (and optional description) of ``widget``."""
    widget.setAccessibleName(text)
    if description:
        widget.setAccessibleDescription(description)


def announce(view: QAbstractItemView, index: QModelIndex) -> None:
    """Say that ``index`` is now the current row of ``view``."""
    if not index.isValid():
        return
    spoken = str(index.data() or "")
    child = index.row()
    for kind in (QAccessible.Event.Focus, QAccessible.Event.Selection):
        event = QAccessibleEvent(view, kind)
        event.setChild(child)
        QAccessible.updateAccessibility(event)
    for listener in list(listeners):
        listener(view, spoken)
