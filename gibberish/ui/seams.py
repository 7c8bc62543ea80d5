"""What the controller reaches a person or the desktop through, injected by its maker.

Tests (and any other front end) pass a ``Seams`` with their own answers to
``Controller(seams=...)``; nothing is replaced on a live object. The defaults open the
real dialogs, which are imported on first use (a dialog module's first import of Qt's
enum namespace alone costs ~17 ms at start-up).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from msgspec import Struct

if TYPE_CHECKING:
    from PySide6.QtCore import QUrl

    from gibberish.engine.run_flow import ApprovalPrompt, ArgumentsPrompt
    from gibberish.ui.command_bar.routing import TextRouter


class Lazy:
    """A dialog prompter made on first use (a dialog module's first import costs ~17 ms)."""

    def __init__(self, module: str, name: str) -> None:
        self._where = (module, name)
        self._made: Any = None

    def ask(self, *args: Any, **kwargs: Any) -> Any:
        if self._made is None:
            self._made = getattr(__import__(self._where[0], fromlist=["_"]), self._where[1])()
        return self._made.ask(*args, **kwargs)


def _set_autostart(enabled: bool) -> None:
    from gibberish import desktop

    desktop.set_autostart(enabled)


def _critical(title: str, text: str) -> None:
    from gibberish.ui.widgets import plain_box

    plain_box("critical", title, text).exec()


def _open_url(url: QUrl) -> bool:
    from PySide6.QtGui import QDesktopServices

    return QDesktopServices.openUrl(url)


class Seams(Struct):
    """Every way the controller reaches a person or the desktop; tests pass their own."""

    forms: ArgumentsPrompt | None = None  # None: the parameter form
    approvals: ApprovalPrompt | None = None  # None: the approval dialog
    router: TextRouter | None = None  # None: the model or the fuzzy router, per the settings
    open_url: Callable[[QUrl], Any] = _open_url
    set_autostart: Callable[[bool], None] = _set_autostart
    show_fatal: Callable[[str, str], Any] = _critical
    audio: Callable[[], Any] | None = None  # None: the microphone from the [voice] settings
    speak: Callable[[str], Any] | None = None  # None: spd-say / espeak-ng when enabled
    session_bus: str | None = None  # None: DBUS_SESSION_BUS_ADDRESS (the portal's shortcuts)
    welcome: bool = True  # the first start's welcome in the window (tests may skip it)

    def approval_prompter(self) -> ApprovalPrompt:
        """The approval dialog (made when first asked), or the test's answers."""
        return self.approvals or Lazy("gibberish.ui.approval.dialog", "ApprovalPrompter")
