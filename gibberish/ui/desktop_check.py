"""Once per problem, tell the person when the focused app cannot be followed here.

Mode detection fails quietly by design (0012): the mode becomes Global. But a person on
Sway whose socket went away, on Plasma without KWin, or on GNOME (no interface at all)
should learn once why the mode never follows the app, and what to do. The check asks the
backend (a socket or a D-Bus call) on a worker thread after the load.
"""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtCore import QObject, Signal


class DesktopCheck(QObject):
    found = Signal(str)

    def __init__(self, controller: Any) -> None:
        super().__init__(controller)
        self._controller = controller
        self.found.connect(self._tell)
        self.worker: threading.Thread | None = None
        """The check's thread, once started (not ``thread``: that is ``QObject.thread()``)."""

    def start(self) -> None:
        self.worker = threading.Thread(target=self._check, name="desktop-check", daemon=True)
        self.worker.start()

    def _check(self) -> None:
        from gibberish.desktop.detect import focus_backend, focus_capability, identify

        desktop = identify()
        if focus_backend() is None and desktop.family in ("x11", "none"):
            return  # no desktop session at all, or X11 without a display: nothing to say
        capability = focus_capability(desktop)
        if not capability.ok:
            self.found.emit(capability.detail)

    def _tell(self, detail: str) -> None:
        from gibberish.desktop.told import first_time
        from gibberish.session import Notice

        if first_time(f"focus: {detail}"):
            text = f"Modes cannot follow the focused app here: {detail}"
            self._controller.notify(Notice("Automatic mode", text, failed=False))
