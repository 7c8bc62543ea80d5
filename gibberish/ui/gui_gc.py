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
unaffected; only cycles wait up to a second longer.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QObject, QTimer

INTERVAL_MS = 1000


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
        """Collect the generation the thresholds call for; returns it (None: nothing due)."""
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
