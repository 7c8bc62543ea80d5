"""``run_application``: the desktop app's entry point (called by ``gibberish tray``).

Order matters for a launcher started by a keyboard shortcut: the single-instance check
comes first — before the Engine loads a single skill — so a second ``gibberish`` hands
"open the command bar" to the running one and exits within milliseconds. Only the first
instance installs the error reporter, builds the Engine and shows the tray.

Ctrl+C and SIGTERM quit cleanly (runs are cancelled, no process is left behind): Qt's
event loop does not return to Python for signals, so the signal's number is written to
a pipe watched by a ``QSocketNotifier`` (``signal.set_wakeup_fd``).

Two environment variables exist for benchmarks and desktop automation:

* ``GIBBERISH_READY_FILE=PATH``: append ``shown`` to PATH on the first turn of the event
  loop once the tray icon (or launcher window) is shown with its first menu, and
  ``loaded`` once the Engine has loaded and the menu was rebuilt from it. PATH may be a
  named pipe (``benchmarks/startup.py`` waits on one).
* ``GIBBERISH_FORCE_TRAY=1``: show the tray icon even when the desktop reports no system
  tray (a panel that starts after gibberish; the offscreen platform).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

import shiboken6
from PySide6.QtCore import QSocketNotifier, QTimer
from PySide6.QtWidgets import QApplication

from gibberish.logger import logger
from gibberish.ui import icons
from gibberish.ui.errors import ErrorReporter
from gibberish.ui.gui_gc import GuiGarbageCollector
from gibberish.ui.single_instance import OPEN_COMMAND_BAR, SingleInstance

if TYPE_CHECKING:
    from gibberish.engine.core import Engine
    from gibberish.ui.controller import Controller
    from gibberish.ui.seams import Seams

log = logger("gibberish.ui")

READY_FILE_VARIABLE = "GIBBERISH_READY_FILE"
FORCE_TRAY_VARIABLE = "GIBBERISH_FORCE_TRAY"


def announce(stage: str) -> None:
    """Append ``stage`` to ``$GIBBERISH_READY_FILE`` when it is set (see the module docstring).

    Never fails nor blocks the app: an unwritable path, or a named pipe nobody reads, is
    logged and forgotten.
    """
    path = os.environ.get(READY_FILE_VARIABLE)
    if not path:
        return
    try:
        # Non-blocking: a named pipe nobody reads fails at once (ENXIO) instead of
        # blocking the GUI thread; a regular file is simply appended to.
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK, 0o600)
        try:
            os.write(fd, f"{stage}\n".encode())
        finally:
            os.close(fd)
    except OSError as exc:
        log.warning("cannot write %s=%s: %s", READY_FILE_VARIABLE, path, exc)


def _announce_when_loaded(controller: Controller) -> None:
    """``shown`` on the first turn of the event loop, ``loaded`` once the menu was rebuilt
    from the Engine. Called before ``controller.start()``: the tray and its menu are
    shown by then all the same (``start`` is synchronous), and ``shown`` is written before
    the Engine's worker thread, queued by ``start``, competes for the interpreter."""
    QTimer.singleShot(0, lambda: announce("shown"))
    if controller.host.is_ready:
        QTimer.singleShot(0, lambda: announce("loaded"))
    else:
        controller.host.ready.connect(lambda: announce("loaded"))


def make_application(argv: list[str] | None = None) -> QApplication:
    """The ``QApplication`` (reused when one exists, as under pytest-qt)."""
    existing = QApplication.instance()
    app = existing if isinstance(existing, QApplication) else QApplication(argv or ["gibberish"])
    app.setApplicationName("gibberish")
    app.setApplicationDisplayName("gibberish")
    app.setDesktopFileName("gibberish")
    app.setWindowIcon(icons.app_icon())
    app.setQuitOnLastWindowClosed(False)
    return app


class _SignalWatcher:
    """Turns SIGINT/SIGTERM into a Qt-side call of ``on_signal`` (see the module docstring)."""

    def __init__(self, on_signal: Callable[[], None]) -> None:
        self._read, self._write = os.pipe()
        os.set_blocking(self._read, False)
        os.set_blocking(self._write, False)
        self._notifier = QSocketNotifier(self._read, QSocketNotifier.Type.Read)
        self._notifier.activated.connect(self._drain)
        self._on_signal = on_signal
        self._previous_fd = signal.set_wakeup_fd(self._write)
        self._previous = {
            sig: signal.signal(sig, lambda *_: None) for sig in (signal.SIGINT, signal.SIGTERM)
        }

    def _drain(self) -> None:
        with contextlib.suppress(OSError):
            os.read(self._read, 64)
        self._on_signal()

    def close(self) -> None:
        """Restore the handlers and destroy the notifier *now*, on the GUI thread.

        Left to the garbage collector, the notifier (in a reference cycle through its
        ``activated`` connection) would be destroyed on whichever thread happens to run
        the next collection — a runner or model worker thread. Qt then cannot unregister it
        from the GUI thread's event dispatcher, which keeps polling a freed object on a
        closed (and soon reused) descriptor: heap corruption and a crash much later.
        """
        signal.set_wakeup_fd(self._previous_fd)
        for sig, handler in self._previous.items():
            signal.signal(sig, handler)
        self._notifier.setEnabled(False)
        self._notifier.activated.disconnect(self._drain)
        shiboken6.delete(self._notifier)
        os.close(self._read)
        os.close(self._write)


def run_application(
    engine_factory: Callable[[], Engine],
    *,
    no_tray: bool = False,
    argv: list[str] | None = None,
    tray_available: bool | None = None,
    on_start: Callable[[Controller], None] | None = None,
    seams: Seams | None = None,
) -> int:
    """Run the tray (or the launcher window) until Quit; returns the exit status.

    ``on_start`` receives the controller once the tray is up (benchmarks, tests);
    ``seams`` replace the dialogs and desktop calls (tests).
    """
    from gibberish.ui.controller import Controller

    app = make_application(argv or sys.argv[:1])
    if tray_available is None and os.environ.get(FORCE_TRAY_VARIABLE) == "1":
        tray_available = True
    instance = SingleInstance()
    if not instance.claim(OPEN_COMMAND_BAR):
        print("gibberish is already running: opened its command bar.", file=sys.stderr)
        return 0
    reporter = ErrorReporter()
    reporter.install()
    collector = GuiGarbageCollector(app)  # Qt objects must die on the GUI thread
    try:
        # The Engine is built by the controller's EngineHost on a worker thread once the
        # tray shows; a factory that fails ends the app with a message (exit status 1).
        controller = Controller(
            engine_factory, seams=seams, reporter=reporter, tray_available=tray_available
        )
        instance.message_received.connect(controller.handle_message)
        instance.approval_requested.connect(controller.mcp_approvals.handle)
        watcher = _SignalWatcher(controller.quit)
        app.aboutToQuit.connect(controller.shutdown)
        _announce_when_loaded(controller)
        # The server goes up on the turn after ``shown``: Qt's network module is not
        # loaded before the menu; a second start meanwhile waits on the start lock.
        QTimer.singleShot(0, instance.listen_held)
        controller.start(no_tray=no_tray)
        controller.lifecycle.welcome_when_ready()
        log.info("gibberish started (%s)", "launcher" if controller.surface.launcher else "tray")
        if on_start is not None:
            on_start(controller)
        try:
            return app.exec()
        finally:
            controller.shutdown()
            watcher.close()
    finally:
        collector.stop()
        collector.deleteLater()
        instance.close()
        reporter.uninstall()
