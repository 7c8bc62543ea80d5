"""The tray's ``QMenu``, kept equal to a list of ``MenuItem`` by changing only what differs.

Rebuilding the menu on every open meant deleting and recreating a submenu and five
actions per skill — a second of GUI-thread time at 1,000 skills, and a storm of deferred
deletes after it. ``MenuView.update`` compares each item's ``menu.signature`` with the
entry already shown under the same name instead: an equal one keeps its ``QAction`` (and
its submenu, filled or not), a different one is replaced, a missing one removed, and the
order is fixed with a few moves. A library change where one skill was edited therefore
replaces exactly that skill's submenu.

Skill submenus are filled when they are about to show, or before that on idle turns of
the event loop, a few milliseconds' worth per turn (``IDLE_BUDGET_S``), so menus exported
over D-Bus — whose hosts may read a submenu without asking Qt to show it — end up
complete without a long stall. Volatile submenus (no ``key``: *Context*) fill only when
they show: they read live state, and the first read imports the model feed.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Sequence

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QAction, QActionGroup
from PySide6.QtWidgets import QMenu

from gibberish.ui.menu.dispatch import dispatch_triggers
from gibberish.ui.menu.model import MenuItem, Pending, discard_entry, make_entry, signature

EAGER_ENTRIES = 64
"""New entries an update always makes at once, whatever its budget (a small menu is
never left half-made, not even on a machine too busy to keep to the budget)."""
UPDATE_BUDGET_S = 0.008
"""GUI time an update outside an open may spend making entries (the rest: idle turns)."""
IDLE_BUDGET_S = 0.004
"""GUI time one idle turn may spend making entries and filling submenus ahead of a show."""


class _Entry:
    __slots__ = ("action", "item", "signature")

    def __init__(self, action: QAction, item: MenuItem, sig: tuple) -> None:
        self.action = action
        self.item = item
        self.signature = sig


class MenuView(QObject):
    """Owns the content of ``menu``; ``update`` makes it show ``items``."""

    filled = Signal()
    """Every submenu waiting for its idle fill has been filled."""

    def __init__(self, menu: QMenu, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = menu
        menu.setToolTipsVisible(True)
        dispatch_triggers(menu)
        self._entries: dict[str, _Entry] = {}
        self._order: list[QAction] | None = []  # the menu's actions as last arranged
        self._groups: dict[str, QActionGroup] = {}
        self._unfilled: deque = deque()
        self._deferred: deque = deque()  # (name, item, the action it goes before)
        self._working = False
        self.created = 0
        """Entries made so far (a diff that keeps everything adds nothing here)."""
        self.removed = 0

    def update(self, items: Sequence[MenuItem], *, budget_s: float | None = None) -> None:
        """Show ``items``: keep entries whose signature is unchanged, replace the others.

        ``budget_s``: GUI time to spend making new entries now, once ``EAGER_ENTRIES``
        are made; the rest are made on idle turns, in place (after a load, a thousand new
        submenus would otherwise stall the GUI for a few hundred milliseconds). None — an
        open — makes every one now.
        """
        deadline = None if budget_s is None else time.perf_counter() + budget_s
        eager = EAGER_ENTRIES
        old = self._entries
        new: dict[str, _Entry] = {}
        order: list[QAction] = []
        pending: Pending = []
        deferred: list[tuple[str, MenuItem, int]] = []
        for item in items:
            name = item.name if item.name not in new else f"{item.name}#{len(order)}"
            entry = old.pop(name, None)
            if entry is not None and not self._still_shows(entry, item):
                self._discard(entry)
                entry = None
            if entry is None:
                if deadline is not None and eager <= 0 and time.perf_counter() > deadline:
                    deferred.append((name, item, len(order)))  # goes before order[index]
                    continue
                entry = self._create(item, pending)
                eager -= 1
            new[name] = entry
            order.append(entry.action)
        for entry in old.values():
            self._discard(entry)
        self._entries = new
        self._arrange(order)
        self._deferred = deque(
            (name, item, order[index] if index < len(order) else None)
            for name, item, index in deferred
        )
        self._unfilled.extend(f for f in pending if not f.volatile)
        self._work_later()

    def _still_shows(self, entry: _Entry, item: MenuItem) -> bool:
        """``entry`` shows ``item`` already (the same object, or an equal signature)."""
        if entry.item is item:
            return True
        sig = signature(item)
        if entry.signature != sig:
            return False
        # Keep the new item's signature too: the old one's texts may be the only thing
        # still holding the menu cache's stand-in skills (equal strings, other objects).
        entry.item, entry.signature = item, sig
        return True

    def _create(self, item: MenuItem, pending: Pending) -> _Entry:
        self.created += 1
        return _Entry(make_entry(self.menu, item, self._groups, pending), item, signature(item))

    def action(self, name: str) -> QAction | None:
        entry = self._entries.get(name)
        return entry.action if entry is not None else None

    def _discard(self, entry: _Entry) -> None:
        discard_entry(self.menu, entry.action)
        self.removed += 1

    def _arrange(self, order: list[QAction]) -> None:
        """Put the menu's actions in ``order`` (only those out of place are moved)."""
        current = self._order
        self._order = order
        if (
            current is not None
            and len(current) == len(order)
            and all(a is b for a, b in zip(current, order, strict=True))
        ):
            return
        current = self.menu.actions()  # what discarding left
        at = {id(a) for a in current}
        for index, action in enumerate(order):
            if index < len(current) and current[index] is action:
                continue
            if index < len(current):
                self.menu.insertAction(current[index], action)
            else:
                self.menu.addAction(action)
            if id(action) in at:
                current.remove(action)
            else:
                at.add(id(action))
            current.insert(index, action)

    # ------------------------------------------------------------------ idle work
    def _work_later(self) -> None:
        if (self._deferred or self._unfilled) and not self._working:
            self._working = True
            QTimer.singleShot(0, self._work_some)

    def _work_some(self) -> None:
        """Make deferred entries, then fill submenus, for ``IDLE_BUDGET_S`` at most; then
        yield to the event loop (and come back on its next idle turn)."""
        deadline = time.perf_counter() + IDLE_BUDGET_S
        while self._deferred and time.perf_counter() < deadline:
            name, item, before = self._deferred.popleft()
            pending: Pending = []
            entry = self._create(item, pending)
            self._entries[name] = entry
            self.menu.insertAction(before, entry.action)
            self._order = None  # no longer what ``_arrange`` last left
            self._unfilled.extend(f for f in pending if not f.volatile)
        while self._unfilled and time.perf_counter() < deadline:
            filler = self._unfilled.popleft()
            try:
                filler.fill_once()
            except RuntimeError:  # its submenu was replaced (and deleted) meanwhile
                continue
        self._working = False
        if self._deferred or self._unfilled:
            self._work_later()
        else:
            self.filled.emit()

    @property
    def filling(self) -> bool:
        """Entries or submenus are still waiting to be made on idle turns."""
        return bool(self._deferred or self._unfilled)
