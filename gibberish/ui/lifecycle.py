"""The tray's start and end: the menu first, the Engine on a worker, then what follows
the load; on quit, every run cancelled and every window closed.

``start`` shows the tray (or the launcher) with the menu from ``menu_cache`` while
``EngineHost`` builds the Engine on a worker thread; the collector is held meanwhile
(``gui_gc``). Once the Engine is ready the menu is brought up to date, the skills
folders are watched (listed on the reload worker), the one-time notices shown, and a
moment later the command bar is made ahead of the first hotkey press.
"""

from __future__ import annotations

import linecache
import logging
import sys
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from gibberish.ui import gui_gc
from gibberish.ui.errors import fatal_start, guard

if TYPE_CHECKING:
    from gibberish.ui.controller import Controller

log = logging.getLogger("gibberish.ui")
GIL_SWITCH_INTERVAL_S = 0.001
COMMAND_BAR_WARM_UP_MS = 500
"""After the load, when the command bar and its ranker are made ahead of the first hotkey
press (``TextRequests.warm_up``): still within the start, after its first follow-ups."""
COMMAND_BAR_WARM_UP_RETRY_MS = 1000
WELCOME_MS = 300
"""The welcome waits this long after the load (the tray or launcher is painted first)."""
"""How long the warm-up waits while a menu or a dialog is open."""


class Lifecycle(QObject):
    def __init__(self, controller: Controller) -> None:
        super().__init__(controller)
        self._c = controller
        self._gc_held = False
        controller.host.ready.connect(self._engine_ready)
        controller.host.failed.connect(self._engine_failed)

    def start(self, *, no_tray: bool = False) -> None:
        """Show the tray (or the launcher window) with its menu; then load and watch the skills."""
        c = self._c
        # Workers (the Engine's load, reloads, the menu cache) hold the interpreter in
        # turns of this length while the GUI thread waits for it: 1 ms, not 5.
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        c.surface.show(no_tray=no_tray, tray_available=c.tray_available, items=c.menus.items)
        if c.surface.launcher is not None:  # the launcher window is the one window
            c.text.embedded_bar = c.surface.launcher.bar
        if c.surface.tray is not None:
            c.rebuild_menu()
        if c.host.is_ready:
            self._after_load()
        else:
            self.hold_gc(True)  # until the Engine is built: see ``gui_gc.freeze_survivors``
            QTimer.singleShot(0, c.host.start)  # once the event loop runs

    @property
    def gc_held(self) -> bool:
        """Whether the collector is held (until the Engine is built)."""
        return self._gc_held

    @guard
    def quit(self) -> None:
        if self._c.shut_down:
            return
        self.shutdown()
        app = QApplication.instance()
        if app is not None:
            app.quit()

    def shutdown(self) -> None:
        """Cancel every run and wait until its process tree is gone; close every window."""
        c = self._c
        if c.shut_down:
            return
        c.shut_down = True
        self.hold_gc(False)
        c.reloading.stop()
        c.shortcuts.close()
        c.text.shutdown()
        if c.host.is_ready:
            engine = c.engine
            try:
                engine.runs.cancel_all(wait=engine.settings.grace_period + 5.0)
            except Exception as exc:  # quitting must go on
                log.warning("cancelling runs on quit failed: %s", exc)
        c.runs.close_all()
        c.dialogs.close_all()
        c.surface.hide()

    def hold_gc(self, hold: bool) -> None:
        if hold and not self._gc_held:
            gui_gc.hold()
        elif not hold and self._gc_held:
            gui_gc.release()
        self._gc_held = hold

    def _engine_ready(self) -> None:
        c = self._c
        self.hold_gc(False)
        if c.shut_down:
            return
        forget_module_sources()  # before the menu is made: it reuses what they held
        c.menus.forget()
        if c.surface.tray is not None:
            c.update_menu()
        c.surface.set_items(c.menus.items)
        self._after_load(background=True)

    def _after_load(self, *, background: bool = False) -> None:
        """Watch the skills folders — listed on the reload worker when ``background`` (the
        Engine was built on a worker: thousands of paths are not listed on this thread)."""
        c = self._c
        c.runs.connect_events()
        if background:
            c.reload_in_background()
        else:
            c.rewatch()
        c.show_notices()
        c.shortcuts.start(c.engine.settings.pinned_tools)
        c.desktop_check.start()
        gui_gc.freeze_survivors()  # the loaded skills live on: out of the collector's way
        QTimer.singleShot(COMMAND_BAR_WARM_UP_MS, self, self._warm_up)

    def welcome_when_ready(self) -> None:
        """The first start's welcome once the skills are loaded (``welcome_once``)."""
        c = self._c
        if c.host.is_ready:
            QTimer.singleShot(WELCOME_MS, c, c.welcome_once)
        else:
            c.host.ready.connect(lambda: QTimer.singleShot(WELCOME_MS, c, c.welcome_once))

    def _warm_up(self) -> None:
        """Make the command bar ahead (a GUI turn of about 90 ms: Qt's enums for its
        widgets), but not while a menu or a dialog is open: then a second later."""
        if self._c.shut_down:
            return
        if QApplication.activePopupWidget() is not None or QApplication.activeModalWidget():
            QTimer.singleShot(COMMAND_BAR_WARM_UP_RETRY_MS, self, self._warm_up)
            return
        self._c.text.warm_up()
        gui_gc.freeze_survivors()  # the bar lives on: its thousands of objects are not walked
        forget_module_sources()

    def _engine_failed(self, error: BaseException) -> None:
        self.hold_gc(False)
        fatal_start(error, self._c.seams.show_fatal)
        self._c.shut_down = True
        QApplication.exit(1)


def forget_module_sources() -> None:
    """Drop the source text of every module imported so far from ``linecache``.

    PySide6 reads the source of each module imported after it (``inspect.getsource``, to
    see whether the module uses its ``__feature__`` switches), and ``linecache`` keeps it:
    about 10 MiB of text in the tray once its modules are in. A traceback reads the lines
    it shows again from the files."""
    linecache.clearcache()
