"""Where gibberish lives on the desktop: a tray icon with its menu, or the launcher window.

Exactly one of ``tray`` and ``launcher`` exists after ``show``. Both show the same menu
items (``menu.build_menu``), the same messages (a tray balloon, or the launcher's status
line) and the state of the runs (the tray icon; the launcher lists recent runs).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from gibberish.desktop.tray import no_tray_message
from gibberish.ui.icons import TrayState

if TYPE_CHECKING:
    from gibberish.ui.menu.launcher import LauncherWindow
    from gibberish.ui.runs.views import RunSession

FORCED_REASON = ""
"""Started with ``--no-tray``: the person asked for this window, nothing to explain."""


class Surface(QObject):
    command_bar_requested = Signal()
    install_requested = Signal(str)  # a source dropped on the launcher
    closed = Signal()  # the launcher window was closed: quit

    def __init__(self, menu: QMenu, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = menu
        self.tray: Any = None
        self.launcher: LauncherWindow | None = None

    def show(
        self, *, no_tray: bool, tray_available: bool | None, items: Callable[[], list]
    ) -> None:
        """The tray when the desktop has one (and ``--no-tray`` was not given), else the
        launcher window; ``items`` draws the menu."""
        if tray_available is None:
            tray_available = QSystemTrayIcon.isSystemTrayAvailable()
        if no_tray or not tray_available:
            from gibberish.ui.menu.launcher import LauncherWindow

            self.launcher = LauncherWindow(
                FORCED_REASON if no_tray else no_tray_message(), menu=self.menu
            )
            self.launcher.closed.connect(self.closed)
            self.launcher.dropped.connect(self.install_requested)
            self.launcher.set_items(items())
            from gibberish.ui.placement import place

            place(self.launcher)
            self.launcher.show()
        else:
            from gibberish.ui.tray import Tray

            self.tray = Tray(self.menu, self)
            self.tray.command_bar_requested.connect(self.command_bar_requested)
            self.tray.show()

    def set_items(self, items: Callable[[], list]) -> None:
        """Redraw the launcher's items (the tray menu redraws itself when opened)."""
        if self.launcher is not None:
            self.launcher.set_items(items())

    def message(self, title: str, body: str, *, failed: bool = False) -> None:
        if self.tray is not None:
            self.tray.notify(title, body, failed=failed)
        elif self.launcher is not None:
            self.launcher.show_status(title, body, failed=failed)

    def tray_messages(self, texts: Sequence[str]) -> bool:
        """Show each of ``texts`` as a tray message, or on the launcher's status line:
        never a modal box out of nowhere. False when neither exists yet."""
        for text in texts if self.tray is not None else ():
            self.tray.notify("gibberish", text, failed=True)
        if self.tray is None and self.launcher is not None and texts:
            self.launcher.show_status("gibberish", "  ".join(texts), failed=True)
        return self.tray is not None or self.launcher is not None

    def raise_launcher(self) -> bool:
        """Bring the launcher window to the front; False when there is none (tray mode)."""
        if self.launcher is None:
            return False
        self.launcher.showNormal()
        self.launcher.raise_()
        self.launcher.activateWindow()
        return True

    def show_runs(self, running: Sequence[RunSession], failed: bool) -> None:
        if self.tray is None:
            return
        if running:
            names = ", ".join(sorted({s.prepared.ref for s in running}))
            self.tray.set_state(TrayState.RUNNING, f"gibberish — running {names}")
        elif failed:
            self.tray.set_state(TrayState.FAILED, "gibberish — the last run failed")
        else:
            self.tray.set_state(TrayState.NORMAL)

    def show_voice(self, state: str) -> bool:
        """The tray icon (or the launcher's listening row) while listening / thinking;
        False for ``idle`` (show the runs)."""
        if self.tray is None:
            if self.launcher is not None:
                self.launcher.listening.show_state(state)
            return state != "idle"
        if state == "listening":
            self.tray.set_state(TrayState.LISTENING, "gibberish — listening…")
        elif state == "thinking":
            self.tray.set_state(TrayState.THINKING, "gibberish — recognizing…")
        else:
            return False
        return True

    def show_level(self, bars: int) -> None:
        """The microphone's level while listening (``level_meter``), on the tray icon or
        the launcher's listening row."""
        if self.tray is not None:
            self.tray.set_level(bars)
        elif self.launcher is not None:
            self.launcher.listening.show_level(bars)

    def hide(self) -> None:
        if self.tray is not None:
            self.tray.hide()
        if self.launcher is not None:
            self.launcher.close()  # its ``closed`` -> quit() is a no-op by then
