"""One connection per menu runs the trigger each of its actions carries.

The tray menu at 1,000 skills has some 5,000 tool actions. Connecting each one's
``triggered`` signal to its own Python closure kept 5,000 closures and 5,000 PySide
connections alive for as long as the menu lived (several MiB, docs/performance.md).
Instead an action carries its trigger as its data (``QAction.setData``), and each menu
connects its ``triggered(QAction)`` signal once, to a closure that calls the action's
trigger.

Qt emits ``QMenu.triggered`` from the menu that holds the action and then again from
each menu above it (its parent widgets, or the menus the click went through), so the
dispatcher runs a trigger only for the emission of the action's own menu: the action's
parent (``menu.addAction`` makes the menu its parent). The trigger runs before
``QAction.trigger()`` returns, as a closure connected to the action did.
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

_DISPATCHING = "gibberishDispatchesTriggers"
"""A property set on each menu connected to the dispatcher (connected once)."""


def _dispatch(action: QAction, owner: QAction) -> None:
    """Run ``action``'s trigger if the emitting menu, whose ``menuAction`` is ``owner``,
    holds it; a menu above the action's own one passes."""
    if action.parent() is not owner.menu():
        return
    trigger = action.data()
    if callable(trigger):
        trigger()


def dispatch_triggers(menu: QMenu) -> None:
    """Make ``menu`` run the trigger its actions carry when one is triggered (once).

    A plain closure, not a ``QObject`` slot: defining a slot class costs 14 ms of PySide's
    start-up on the way to the first menu. It holds the menu's own action, never the
    menu (as ``model._LazyFill`` does), so no last reference to the menu dies in its
    destructor."""
    if menu.property(_DISPATCHING):
        return
    owner = menu.menuAction()
    menu.triggered.connect(lambda action, owner=owner: _dispatch(action, owner))
    menu.setProperty(_DISPATCHING, True)


def carry_trigger(action: QAction, trigger: object) -> None:
    """``action`` runs ``trigger`` (a callable of no arguments) when triggered in a menu
    that dispatches (``dispatch_triggers``)."""
    action.setData(trigger)
