"""Where the command line leaves a trace: a rotating log file, and ``--debug`` on stderr.

An internal error (a bug) ends as one line on stderr that names this file; the file holds
the traceback, and ``--debug`` prints it on stderr as well. The trust probes (mode and
focused-app detection) log here why a detection failed, which is otherwise silent by
design: a desktop without X11 simply has no focused-app context.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

from gibberish import paths
from gibberish.logger import forget, logger, when_logging
from gibberish.redaction import scrub

if TYPE_CHECKING:
    import logging

LOG_NAME = "cli.log"
LOG_BYTES = 1_000_000
LOG_BACKUPS = 3
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_state = {"debug": False}


def log_path() -> Path:
    return paths.state_dir() / LOG_NAME


def configure() -> Path:
    """Send the ``gibberish`` loggers to the rotating log file (once per process), from
    the first logger a module asks for (``gibberish.logger``): a command that logs
    nothing never imports ``logging``."""
    when_logging(_attach)
    return log_path()


def _attach() -> None:
    import logging

    from gibberish.log_format import LateRotatingFile, ScrubbingFormatter

    root = logging.getLogger("gibberish")
    if any(getattr(h, "_gibberish_cli", False) for h in root.handlers):
        return
    path = log_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handler: logging.Handler = LateRotatingFile(path, LOG_BYTES, LOG_BACKUPS)
    except OSError:  # an unwritable state folder must not stop the command
        handler = logging.NullHandler()
    handler._gibberish_cli = True  # type: ignore[attr-defined]
    handler.setFormatter(ScrubbingFormatter(_FORMAT))
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def detach() -> None:
    """The tray keeps its own log (``ui.errors``); stop writing this one."""
    forget(_attach)
    if "logging" not in sys.modules:
        return
    import logging

    root = logging.getLogger("gibberish")
    for handler in [h for h in root.handlers if getattr(h, "_gibberish_cli", False)]:
        root.removeHandler(handler)
        handler.close()


def enable_debug() -> None:
    """``--debug``: every ``gibberish`` log line, and tracebacks, on stderr too."""
    if _state["debug"]:
        return
    _state["debug"] = True
    import logging

    from gibberish.log_format import ScrubbingFormatter

    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(ScrubbingFormatter(_FORMAT))
    root = logging.getLogger("gibberish")
    root.addHandler(handler)
    root.setLevel(logging.DEBUG)


def debugging() -> bool:
    return _state["debug"]


def record_internal_error(exc: BaseException) -> str:
    """Log ``exc`` with its traceback; the one-line message for stderr."""
    path = configure()
    logger("gibberish.cli").error("internal error", exc_info=(type(exc), exc, exc.__traceback__))
    hint = "" if debugging() else "; run again with --debug to see it here"
    return scrub(f"internal error: {type(exc).__name__}: {exc} (the traceback is in {path}{hint})")
