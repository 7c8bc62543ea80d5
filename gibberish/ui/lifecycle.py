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
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication

from gibberish.logger import logger
from gibberish.ui import gui_gc
from gibberish.ui.errors import fatal_start, guard

if TYPE_CHECKING:
    from gibberish.ui.command_bar.text_requests import TextRequests
    from gibberish.ui.desktop_check import DesktopCheck
    from gibberish.ui.dialogs import Dialogs
    from gibberish.ui.engine_host import EngineHost
    from gibberish.ui.menu.source import MenuSource
    from gibberish.ui.reloading import Reloading
    from gibberish.ui.runs.views import RunViews
    from gibberish.ui.shortcuts import TrayShortcuts
    from gibberish.ui.surface import Surface

log = logger("gibberish.ui")
GIL_SWITCH_INTERVAL_S = 0.001
COMMAND_BAR_WARM_UP_MS = 500
"""After the load, when the command bar and its ranker are made ahead of the first hotkey
press (``TextRequests.warm_up``): still within the start, after its first follow-ups."""
COMMAND_BAR_WARM_UP_RETRY_MS = 1000
WELCOME_MS = 300
"""The welcome waits this long after the load (the tray or launcher is painted first)."""
"""How long the warm-up waits while a menu or a dialog is open."""


class TrayParts(Struct, frozen=True):
    """The parts of the tray that its start and its end act on (the controller makes them)."""

    host: EngineHost
    surface: Surface
    menus: MenuSource
    runs: RunViews
    text: TextRequests
    dialogs: Dialogs
    reloading: Reloading
    shortcuts: TrayShortcuts
    desktop_check: DesktopCheck


class TraySteps(Struct, frozen=True):
    """What the controller does at points of the start: bring the menu up to date (all of
    it, or a diff), reload or watch the skills, show the notices, and say a start failed."""

    rebuild_menu: Callable[[], None]
    update_menu: Callable[[], None]
    reload_in_background: Callable[[], None]
    rewatch: Callable[[], None]
    show_notices: Callable[[], None]
    show_fatal: Callable[[str, str], Any]
    stop_watching_microphone: Callable[[], None]
    welcome_once: Callable[[], None]


class Lifecycle(QObject):
    """Given the tray's parts and the controller's steps; holds whether the tray has shut
    down (``shut_down``), which the other parts ask before they act."""

    def __init__(
        self,
        parts: TrayParts,
        steps: TraySteps,
        *,
        tray_available: bool | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._p = parts
        self._steps = steps
        self._tray_available = tray_available
        self._gc_held = False
        self.shut_down = False
        parts.host.ready.connect(self._engine_ready)
        parts.host.failed.connect(self._engine_failed)

    def start(self, *, no_tray: bool = False) -> None:
        """Show the tray (or the launcher window) with its menu; then load and watch the skills."""
        p = self._p
        # Workers (the Engine's load, reloads, the menu cache) hold the interpreter in
        # turns of this length while the GUI thread waits for it: 1 ms, not 5.
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        p.surface.show(no_tray=no_tray, tray_available=self._tray_available, items=p.menus.items)
        if p.surface.launcher is not None:  # the launcher window is the one window
            p.text.embedded_bar = p.surface.launcher.bar
        if p.surface.tray is not None:
            self._steps.rebuild_menu()
        if p.host.is_ready:
            self._after_load()
        else:
            self.hold_gc(True)  # until the Engine is built: see ``gui_gc.freeze_survivors``
            QTimer.singleShot(0, p.host.start)  # once the event loop runs

    @property
    def gc_held(self) -> bool:
        """Whether the collector is held (until the Engine is built)."""
        return self._gc_held

    @guard
    def quit(self) -> None:
        if self.shut_down:
            return
        self.shutdown()
        app = QApplication.instance()
        if app is not None:
            app.quit()

    def shutdown(self) -> None:
        """Cancel every run and wait until its process tree is gone; close every window."""
        p = self._p
        if self.shut_down:
            return
        self.shut_down = True
        self.hold_gc(False)
        p.reloading.stop()
        p.shortcuts.close()
        p.text.shutdown()
        self._steps.stop_watching_microphone()
        if p.host.is_ready:
            engine = p.host.get()
            try:
                engine.runs.cancel_all(wait=engine.settings.grace_period + 5.0)
            except Exception as exc:  # quitting must go on
                log.warning("cancelling runs on quit failed: %s", exc)
        p.runs.close_all()
        p.dialogs.close_all()
        p.surface.hide()

    def hold_gc(self, hold: bool) -> None:
        if hold and not self._gc_held:
            gui_gc.hold()
        elif not hold and self._gc_held:
            gui_gc.release()
        self._gc_held = hold

    def _engine_ready(self) -> None:
        p = self._p
        self.hold_gc(False)
        if self.shut_down:
            return
        forget_module_sources()  # before the menu is made: it reuses what they held
        p.menus.forget()
        if p.surface.tray is not None:
            self._steps.update_menu()
        p.surface.set_items(p.menus.items)
        self._after_load(background=True)

    def _after_load(self, *, background: bool = False) -> None:
        """Watch the skills folders — listed on the reload worker when ``background`` (the
        Engine was built on a worker: thousands of paths are not listed on this thread)."""
        p = self._p
        p.runs.connect_events()
        if background:
            self._steps.reload_in_background()
        else:
            self._steps.rewatch()
        self._steps.show_notices()
        p.shortcuts.start(p.host.get().settings.pinned_tools)
        p.desktop_check.start()
        gui_gc.freeze_survivors()  # the loaded skills live on: out of the collector's way
        QTimer.singleShot(COMMAND_BAR_WARM_UP_MS, self, self._warm_up)

    def welcome_when_ready(self) -> None:
        """The first start's welcome once the skills are loaded (``welcome_once``)."""
        host, welcome = self._p.host, self._steps.welcome_once
        if host.is_ready:
            QTimer.singleShot(WELCOME_MS, self, welcome)
        else:
            host.ready.connect(lambda: QTimer.singleShot(WELCOME_MS, self, welcome))

    def _warm_up(self) -> None:
        """Make the command bar ahead (a GUI turn of about 90 ms: Qt's enums for its
        widgets), but not while a menu or a dialog is open: then a second later."""
        if self.shut_down:
            return
        if QApplication.activePopupWidget() is not None or QApplication.activeModalWidget():
            QTimer.singleShot(COMMAND_BAR_WARM_UP_RETRY_MS, self, self._warm_up)
            return
        self._p.text.warm_up()
        QTimer.singleShot(0, self, self._p.runs.output_ahead)  # the next run's page, made now
        gui_gc.freeze_survivors()  # the bar lives on: its thousands of objects are not walked
        forget_module_sources()

    def _engine_failed(self, error: BaseException) -> None:
        self.hold_gc(False)
        fatal_start(error, self._steps.show_fatal)
        self.shut_down = True
        QApplication.exit(1)


def forget_module_sources() -> None:
    """Drop the source text of every module imported so far from ``linecache``.

    PySide6 reads the source of each module imported after it (``inspect.getsource``, to
    see whether the module uses its ``__feature__`` switches), and ``linecache`` keeps it:
    about 10 MiB of text in the tray once its modules are in. A traceback reads the lines
    it shows again from the files."""
    linecache.clearcache()
