"""Python's cyclic garbage collector, run on the GUI thread only.

A QObject owned by Python and caught in a reference cycle (a window whose signals are
connected to its own methods, say) is freed by the cyclic collector — and the collector
runs on whichever thread happens to allocate when a threshold is crossed: a runner
thread, a model worker in the middle of an HTTP request. A QObject destroyed on a thread
that is not its own cannot unregister its timers and socket notifiers from the GUI
thread's event dispatcher, which then uses freed memory: heap corruption and a crash far
from the cause. (Seen for real: "QSocketNotifier: Socket notifiers cannot be enabled or
disabled from another thread", then ``malloc(): mismatching next->prev_size``.)

So while the app runs, automatic collection is off and a timer on the GUI thread collects
instead, with the interpreter's own thresholds deciding which generation (the recipe
calibre and pyqtgraph use). Reference counting, which frees almost everything, is
unaffected; only cycles wait a little longer.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 250
"""Between checks. Automatic collection is off, so the youngest generation holds whatever
was allocated since the last check: at 1 s, filling a thousand submenus left enough to
make one collection of it take 20 ms. A check that finds nothing due costs a microsecond."""


class GuiGarbageCollector(QObject):
    def __init__(self, parent: QObject | None = None, interval_ms: int = INTERVAL_MS) -> None:
        super().__init__(parent)
        self._was_enabled = gc.isenabled()
        self.threshold = gc.get_threshold()
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(self.check)
        gc.disable()
        self._timer.start()

    def check(self) -> int | None:
        """Collect the generation the thresholds call for; returns it (None: nothing due,
        or collection is on hold)."""
        if _held:
            return None
        counts = gc.get_count()
        if counts[0] <= self.threshold[0]:
            return None
        generation = 0
        if counts[1] > self.threshold[1]:
            generation = 1
            if counts[2] > self.threshold[2]:
                generation = 2
        gc.collect(generation)
        return generation

    def stop(self) -> None:
        """Stop the timer and give collection back to the interpreter (as it was before)."""
        self._timer.stop()
        if self._was_enabled:
            gc.enable()


def freeze_survivors() -> None:
    """Move every object tracked now out of the collector's sight (``gc.freeze``).

    After the skills load, after the menu's submenus are filled and after each reload,
    almost everything alive is long-lived: the parsed skills, their tools, the menu's Qt
    wrappers. A full collection walks all of it — 100 ms and more at 1,000 skills, a
    visible stall each time one is due — and even the young generations hold a whole
    load (90,000 objects at 1,000 skills, 150 ms to walk). Frozen objects are never walked
    again, and ``gc.freeze`` itself only moves list heads. The cost: a cycle that is
    garbage when frozen, or becomes garbage later, is never freed (reference counting
    still frees everything else). Loading 1,000 skills leaves no cyclic garbage
    (``gc.collect`` finds none), so there is nothing to collect first.
    """
    gc.freeze()


_held = 0


def hold() -> None:
    """No scheduled collection until ``release`` (while the Engine loads on a worker: its
    objects, young and alive, would make each collection walk them all)."""
    global _held
    _held += 1


def release() -> None:
    global _held
    _held = max(0, _held - 1)
