"""One connection per menu runs the trigger each of its actions carries.

The tray menu at 1,000 skills has some 5,000 tool actions. Connecting each one's
``triggered`` signal to its own Python closure kept 5,000 closures and 5,000 PySide
connections alive for as long as the menu lived (several MiB, docs/adr/0053-lighter-tray-menu.md).
Instead an action carries its trigger as its data (``QAction.setData``), and each menu
connects its ``triggered(QAction)`` signal once to one dispatcher, which calls the
action's trigger.

Qt emits ``QMenu.triggered`` from the menu that holds the action and then again from
each menu above it (its parent widgets, or the menus the click went through), so the
dispatcher runs a trigger only for the emission of the action's own menu: the action's
parent (``menu.addAction`` makes the menu its parent). The connection is direct: the
trigger runs before ``QAction.trigger()`` returns, as a connected closure did.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, Slot
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

_DISPATCHING = "gibberishDispatchesTriggers"
"""A property set on each menu connected to the dispatcher (connected once)."""


class _Dispatcher(QObject):
    @Slot(QAction)
    def dispatch(self, action: QAction) -> None:
        if action.parent() is not self.sender():
            return  # a menu above the action's own one: that one runs it
        trigger = action.data()
        if callable(trigger):
            trigger()


_dispatcher: _Dispatcher | None = None


def dispatch_triggers(menu: QMenu) -> None:
    """Make ``menu`` run the trigger its actions carry when one is triggered (once)."""
    global _dispatcher
    if menu.property(_DISPATCHING):
        return
    if _dispatcher is None:
        _dispatcher = _Dispatcher()
    menu.triggered.connect(_dispatcher.dispatch, Qt.ConnectionType.DirectConnection)
    menu.setProperty(_DISPATCHING, True)


def carry_trigger(action: QAction, trigger: object) -> None:
    """``action`` runs ``trigger`` (a callable of no arguments) when triggered in a menu
    that dispatches (``dispatch_triggers``)."""
    action.setData(trigger)
