"""Global shortcuts in the tray: the portal session on a worker, its keys as Qt signals.

``gibberish.desktop.portal`` talks to the desktop; this module only moves its answers to
the GUI thread (signals emitted on other threads are queued to the receiver's) and says
what a key means: the command bar, listen while held (the release ends the recording),
listen on/off, or one pinned tool — launched through the same form and approval as a
click. A desktop without the portal is told once, with the command to bind by hand.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from msgspec import Struct
from PySide6.QtCore import QObject, Signal

from gibberish.desktop import shortcuts as wanted_shortcuts
from gibberish.desktop.autostart import launch_command
from gibberish.logger import logger

if TYPE_CHECKING:
    from gibberish.engine.run_flow import Notice
    from gibberish.ui.settings.shortcuts_tab import ShortcutStatus

log = logger("gibberish.ui")


class GlobalShortcuts(QObject):
    pressed = Signal(str)
    released = Signal(str)
    ready = Signal(object)  # gibberish.desktop.portal.Bound
    failed = Signal(str, bool)  # what to do, and whether the portal is simply missing

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._portal: Any = None  # a gibberish.desktop.portal.PortalShortcuts
        self._thread: threading.Thread | None = None
        self.bound: Any = None
        self.done = False
        self.closing = False
        """True once the start finished, bound or not (its signal is then queued)."""

    def start(self, pinned_tools: Sequence[str], *, address: str | None = None) -> None:
        """Open the session on a worker thread (a first bind may wait for the person)."""
        if self._portal is not None:
            return
        from gibberish.desktop.portal import PortalShortcuts  # jeepney: after the start-up

        self._portal = PortalShortcuts(self.pressed.emit, self.released.emit, address=address)
        shortcuts = wanted_shortcuts.wanted(pinned_tools)
        self._thread = threading.Thread(
            target=self._open, args=(self._portal, shortcuts), name="portal-start", daemon=True
        )
        self._thread.start()

    def _open(self, portal: Any, shortcuts: Sequence[Any]) -> None:
        from gibberish.desktop.portal import PortalError, PortalMissing

        try:
            self.bound = portal.start(shortcuts)
        except PortalError as exc:
            if not self.closing:  # closed while waiting for the desktop: nothing to say
                self.failed.emit(str(exc), isinstance(exc, PortalMissing))
        except Exception as exc:  # a bug must not kill the tray silently
            log.exception("global shortcuts failed")
            self.failed.emit(f"Global shortcuts failed: {type(exc).__name__}: {exc}", False)
        else:
            self.ready.emit(self.bound)
        finally:
            self.done = True

    def configure(self) -> None:
        """The desktop's own dialog for changing the keys (raises ``PortalError``)."""
        from gibberish.desktop.portal import PortalError

        if self._portal is None or self.bound is None:
            raise PortalError("Global shortcuts are not active, so there is nothing to change.")
        self._portal.configure()

    def wait(self, timeout: float = 10.0) -> None:
        if self._thread is not None:
            self._thread.join(timeout)

    def close(self) -> None:
        self.closing = True
        portal, self._portal = self._portal, None
        if portal is not None:
            portal.close()  # wakes a start still waiting for the portal
        self.wait()


class ShortcutTargets(Struct, frozen=True):
    """The controller's entry points a shortcut may reach: one bundle, handed to the tray's
    shortcuts and on to the actions, so neither repeats the list."""

    command_bar: Callable[[], None]
    listen: Callable[[bool], None]
    """Listen as the shortcut asks: held down (True) or pressed once (False)."""
    stop_listening: Callable[[], None]
    listening: Callable[[], bool]
    launch: Callable[[str], object]


class ShortcutActions:
    """What each shortcut id does, given the controller's entry points."""

    def __init__(
        self, targets: ShortcutTargets, pinned: Callable[[], Sequence[str]] = tuple
    ) -> None:
        self._command_bar = targets.command_bar
        self._listen = targets.listen
        self._stop = targets.stop_listening
        self._listening = targets.listening
        self._launch = targets.launch
        self._pinned = pinned
        self._held = False

    def pressed(self, ident: str) -> None:
        if ident == wanted_shortcuts.COMMAND_BAR:
            self._command_bar()
        elif ident == wanted_shortcuts.LISTEN_HOLD:
            if not self._listening():  # a repeat of the held key must not stop it
                self._held = True
                self._listen(True)
        elif ident == wanted_shortcuts.LISTEN_TOGGLE:
            if self._listening():
                self._stop()
            else:
                self._listen(False)
        elif ident.startswith(wanted_shortcuts.TOOL_PREFIX):
            ref = ident[len(wanted_shortcuts.TOOL_PREFIX) :]
            if ref in self._pinned():  # only what the person pinned, whatever the bus says
                self._launch(ref)
            else:
                log.info("shortcut for a tool that is not pinned ignored: %r", ref[:200])
        else:
            log.info("unknown shortcut %r ignored", ident)

    def released(self, ident: str) -> None:
        """Letting go of listen-while-held ends the recording: what was said is decoded."""
        if ident == wanted_shortcuts.LISTEN_HOLD and self._held:
            self._held = False
            self._stop()


class TrayShortcuts(QObject):
    """The tray's global shortcuts: started after the load, restarted when the pinned
    tools change, closed on quit. Keys arrive here on the GUI thread."""

    def __init__(
        self,
        targets: ShortcutTargets,
        *,
        notify: Callable[[Notice], None],
        session_bus: str | None = None,
        parent: QObject | None = None,
    ) -> None:
        """``session_bus``: the bus to bind on (None: the environment's)."""
        super().__init__(parent)
        self._notify = notify
        self._session_bus = session_bus
        self._pinned: tuple[str, ...] | None = None
        self.problem = ""
        """Why the portal's shortcuts are not active (empty while none was tried)."""
        self.actions = ShortcutActions(targets, pinned=lambda: self._pinned or ())
        self.portal = self._new_portal()

    def _new_portal(self) -> GlobalShortcuts:
        portal = GlobalShortcuts(self)
        portal.pressed.connect(self.actions.pressed)
        portal.released.connect(self.actions.released)
        portal.failed.connect(self._failed)
        return portal

    def start(self, pinned_tools: Sequence[str]) -> None:
        """Bind (or find bound) every shortcut; nothing to do without a session bus."""
        address = self._session_bus or os.environ.get("DBUS_SESSION_BUS_ADDRESS")
        if address is None:
            log.info("no session bus: global shortcuts through the portal are not tried")
            return
        self._pinned = tuple(pinned_tools)
        self.portal.start(self._pinned, address=address)

    def follow(self, pinned_tools: Sequence[str]) -> None:
        """New pinned tools: a new session binds them (with every other shortcut)."""
        if self._pinned is None or tuple(pinned_tools) == self._pinned:
            return
        self.close()
        self.portal = self._new_portal()
        self.start(pinned_tools)

    def close(self) -> None:
        self.portal.close()

    def status(self) -> ShortcutStatus:
        """For the settings dialog: bound through the portal, or how to bind by hand here."""
        from gibberish.desktop.detect import identify
        from gibberish.desktop.shortcuts import manual_setup
        from gibberish.ui.settings.shortcuts_tab import ShortcutStatus

        bound = self.portal.bound
        if bound is not None:
            return ShortcutStatus(True, bound.version, dict(bound.triggers))
        manual = manual_setup(identify().family, launch_command())
        return ShortcutStatus(False, manual=manual, problem=self.problem)

    def change_keys(self) -> str | None:
        """Open the desktop's dialog for the keys; a sentence when it cannot."""
        from gibberish.desktop.portal import PortalError

        try:
            self.portal.configure()
        except PortalError as exc:
            return str(exc)
        return "The desktop's shortcut settings are open."

    def _failed(self, message: str, missing: bool) -> None:
        """Kept for Settings → Shortcuts and ``gibberish doctor``; no balloon when the
        desktop simply has no portal (the first start's welcome says how to bind a key
        here). A portal that failed is said once, in a sentence."""
        from gibberish.engine.run_flow import Notice

        self.problem = message
        if missing:
            return
        self._notify(
            Notice(
                "Keyboard shortcuts",
                "The desktop did not bind gibberish's keys. "
                "Settings → Shortcuts says why and what to do.",
                failed=True,
            )
        )
