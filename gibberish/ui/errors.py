"""The last line of defence: an exception in a slot must not take the tray down.

A tray app has no terminal. An exception escaping a Qt slot is printed by PySide6 through
``sys.excepthook`` and then forgotten, and one escaping a runner thread goes to
``threading.excepthook``. ``ErrorReporter`` replaces both: it writes the traceback to
``paths.state_dir()/gibberish.log`` and shows the person one short message the first
time a given kind of error happens (repeats are only logged, so a bug in a timer cannot
open a hundred dialogs). The application keeps running.

``guard`` wraps the controller's entry points as well, so an error in a menu action is
reported the same way even when Qt would not call the hook (pytest-qt, for example,
installs its own).
"""

from __future__ import annotations

import functools
import logging
import os
import sys
import threading
import traceback
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any, TypeVar

from PySide6.QtCore import QObject, Signal

from gibberish import paths
from gibberish.log_format import ScrubbingFormatter
from gibberish.logger import logger

LOG_FILE_NAME = "gibberish.log"
log = logger("gibberish.ui")

F = TypeVar("F", bound=Callable[..., Any])


def log_path() -> Path:
    return paths.state_dir() / LOG_FILE_NAME


LOG_LIMIT = 1_000_000
"""When the log is bigger than this at start-up it is moved to ``gibberish.log.1``."""


def configure_logging() -> Path:
    """Send the ``gibberish`` loggers to a small file in the state folder.

    Rotation is done once, here (one old generation kept), rather than with
    ``RotatingFileHandler``: the tray logs little, and ``logging.handlers`` is a
    noticeable part of start-up time.
    """
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger("gibberish")
    for handler in list(root.handlers):
        if getattr(handler, "_gibberish_file", None) == str(path):
            return path
        if getattr(handler, "_gibberish_file", None) is not None:
            root.removeHandler(handler)
            handler.close()
    try:
        if path.stat().st_size > LOG_LIMIT:
            os.replace(path, path.with_name(path.name + ".1"))
    except OSError:
        pass
    handler = logging.FileHandler(path, encoding="utf-8", delay=True)
    handler._gibberish_file = str(path)  # type: ignore[attr-defined]
    handler.setFormatter(ScrubbingFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    return path


def _show_dialog(title: str, text: str) -> None:
    from PySide6.QtCore import Qt

    from gibberish.ui.widgets import plain_box

    box = plain_box("warning", title, text)
    box.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
    box.setObjectName("error-dialog")
    box.open()


class ErrorReporter(QObject):
    """Logs every uncaught exception and shows the first one of each kind."""

    _show_requested = Signal(str, str)

    def __init__(self, show: Callable[[str, str], None] | None = None) -> None:
        super().__init__()
        self.show: Callable[[str, str], None] = show or _show_dialog
        self.shown: list[str] = []
        self.reported = 0
        self._seen: set[tuple[str, str]] = set()
        self._previous: tuple[Any, Any] | None = None
        # Reports from runner threads reach the GUI thread through this signal: the
        # reporter lives in the GUI thread, so Qt's automatic connection queues every
        # emission from another thread (and this avoids loading the ``Qt`` namespace,
        # ~17 ms, before the tray shows).
        self._show_requested.connect(self._show)

    def install(self) -> None:
        global _active
        configure_logging()
        self._previous = (sys.excepthook, threading.excepthook)
        sys.excepthook = self._excepthook
        threading.excepthook = self._thread_hook
        _active = self

    def uninstall(self) -> None:
        global _active
        if self._previous is not None:
            sys.excepthook, threading.excepthook = self._previous
            self._previous = None
        if _active is self:
            _active = None

    def _excepthook(
        self, kind: type[BaseException], exc: BaseException, tb: TracebackType | None
    ) -> None:
        if issubclass(kind, KeyboardInterrupt):
            if self._previous is not None:
                self._previous[0](kind, exc, tb)
            return
        self.report(exc, where="slot")

    def _thread_hook(self, args: threading.ExceptHookArgs) -> None:
        if args.exc_value is not None:
            name = args.thread.name if args.thread is not None else "thread"
            self.report(args.exc_value, where=name)

    def report(self, exc: BaseException, *, where: str = "") -> None:
        """Log ``exc`` with its traceback; show it if this kind was not shown yet."""
        self.reported += 1
        configure_logging()
        text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
        log.error("Unexpected error%s:\n%s", f" in {where}" if where else "", text.rstrip())
        frames = traceback.extract_tb(exc.__traceback__)
        origin = f"{frames[-1].filename}:{frames[-1].lineno}" if frames else ""
        key = (type(exc).__name__, origin)
        if key in self._seen:
            return
        self._seen.add(key)
        message = (
            f"Something went wrong inside gibberish: {type(exc).__name__}: {exc}\n\n"
            f"gibberish keeps running. The details were written to {log_path()}."
        )
        if threading.current_thread() is threading.main_thread():
            self._show("gibberish: unexpected error", message)
        else:
            self._show_requested.emit("gibberish: unexpected error", message)

    def _show(self, title: str, message: str) -> None:
        self.shown.append(message)
        try:
            self.show(title, message)
        except Exception:  # the reporter itself must never raise
            log.exception("Could not show an error message")


_active: ErrorReporter | None = None


def report_exception(exc: BaseException, *, where: str = "") -> None:
    """Report through the installed reporter; without one, log only."""
    if _active is not None:
        _active.report(exc, where=where)
    else:
        configure_logging()
        log.error("Unexpected error in %s", where or "slot", exc_info=exc)


def guard(fn: F) -> F:
    """Decorate a slot: an exception is reported and swallowed, the event loop goes on."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            report_exception(exc, where=getattr(fn, "__qualname__", "slot"))
            return None

    return wrapper  # type: ignore[return-value]


def fatal_start(error: BaseException, show: Callable[[str, str], Any]) -> None:
    """The Engine could not be built: log it and tell the person where the details are."""
    from gibberish import paths

    report_exception(error, where="loading the skills")
    show(
        "gibberish could not start",
        f"{type(error).__name__}: {error}\n\nDetails are in the log in {paths.state_dir()}.",
    )
