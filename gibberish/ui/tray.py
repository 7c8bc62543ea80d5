"""The tray icon: three states (idle, running, failed), the menu, and notifications.

The menu is the one from ``menu.py``, brought up to date by the controller on
``aboutToShow`` (a diff: ``menu_view``).
Some desktops never deliver a left click to a tray icon (GNOME's AppIndicator extension,
many StatusNotifierItem hosts): so a left click only opens the same menu and everything
is reachable from the menu. A middle click opens the command bar where it is delivered.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QCursor
from PySide6.QtWidgets import QMenu, QSystemTrayIcon

from gibberish.ui import icons
from gibberish.ui.icons import TrayState

NOTIFICATION_MS = 8000


TOOLTIP = "gibberish — click to find and run a tool; right-click for the menu"


class Tray(QObject):
    """Owns the ``QSystemTrayIcon``; the controller drives its state and messages."""

    command_bar_requested = Signal()

    def __init__(self, menu: QMenu, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.menu = menu
        self.state = TrayState.NORMAL
        self.icon = QSystemTrayIcon(icons.tray_icon(TrayState.NORMAL), self)
        self.icon.setObjectName("tray-icon")
        self.icon.setContextMenu(menu)
        self.icon.setToolTip(TOOLTIP)
        self.icon.activated.connect(self._activated)

    def show(self) -> None:
        self.icon.show()

    def hide(self) -> None:
        self.icon.hide()

    def set_state(self, state: str, tooltip: str | None = None) -> None:
        if state != self.state:
            self.state = state
            self.icon.setIcon(icons.tray_icon(state))
        self.icon.setToolTip(tooltip or TOOLTIP)

    def set_level(self, bars: int) -> None:
        """While listening: the icon's level bars and the tooltip say how loud it is."""
        if self.state != TrayState.LISTENING:
            return
        from gibberish.ui.listen.level_meter import describe, listening_icon

        self.icon.setIcon(listening_icon(bars))
        self.icon.setToolTip(f"gibberish — listening… ({describe(bars)})")

    def notify(self, title: str, body: str, *, failed: bool = False) -> None:
        kind = (
            QSystemTrayIcon.MessageIcon.Warning
            if failed
            else QSystemTrayIcon.MessageIcon.Information
        )
        self.icon.showMessage(title, body, kind, NOTIFICATION_MS)

    def _activated(self, reason: QSystemTrayIcon.ActivationReason) -> None:
        if reason is QSystemTrayIcon.ActivationReason.Trigger:
            self.menu.popup(QCursor.pos())
        elif reason is QSystemTrayIcon.ActivationReason.MiddleClick:
            self.command_bar_requested.emit()
