"""Where the command line leaves a trace: a rotating log file, and ``--debug`` on stderr.

An internal error (a bug) ends as one line on stderr that names this file; the file holds
the traceback, and ``--debug`` prints it on stderr as well. The trust probes (mode and
focused-app detection) log here why a detection failed, which is otherwise silent by
design: a desktop without X11 simply has no focused-app context.
"""

from __future__ import annotations

import logging
import sys
from pathlib import Path

from gibberish import paths
from gibberish.redaction import ScrubbingFormatter, scrub

LOG_NAME = "cli.log"
LOG_BYTES = 1_000_000
LOG_BACKUPS = 3
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"

_state = {"debug": False}


class _LogFile(logging.Handler):
    """The rotating log file, made when the first record comes: most commands log
    nothing, and ``logging.handlers`` (with the socket and pickle modules it imports)
    is a noticeable part of a short command's start."""

    def __init__(self, path: Path) -> None:
        super().__init__()
        self._path = path
        self._file: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self._file is None:
            from logging.handlers import RotatingFileHandler

            self._file = RotatingFileHandler(
                self._path,
                maxBytes=LOG_BYTES,
                backupCount=LOG_BACKUPS,
                encoding="utf-8",
                delay=True,
            )
            self._file.setFormatter(self.formatter)
        self._file.emit(record)

    def flush(self) -> None:
        if self._file is not None:
            self._file.flush()

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
        super().close()


def log_path() -> Path:
    return paths.state_dir() / LOG_NAME


def configure() -> Path:
    """Send the ``gibberish`` loggers to the rotating log file (once per process)."""
    path = log_path()
    root = logging.getLogger("gibberish")
    if not any(getattr(h, "_gibberish_cli", False) for h in root.handlers):
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handler: logging.Handler = _LogFile(path)
        except OSError:  # an unwritable state folder must not stop the command
            handler = logging.NullHandler()
        handler._gibberish_cli = True  # type: ignore[attr-defined]
        handler.setFormatter(ScrubbingFormatter(_FORMAT))
        root.addHandler(handler)
        root.setLevel(logging.INFO)
    return path


def detach() -> None:
    """The tray keeps its own log (``ui.errors``); stop writing this one."""
    root = logging.getLogger("gibberish")
    for handler in [h for h in root.handlers if getattr(h, "_gibberish_cli", False)]:
        root.removeHandler(handler)
        handler.close()


def enable_debug() -> None:
    """``--debug``: every ``gibberish`` log line, and tracebacks, on stderr too."""
    if _state["debug"]:
        return
    _state["debug"] = True
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
    logging.getLogger("gibberish.cli").error(
        "internal error", exc_info=(type(exc), exc, exc.__traceback__)
    )
    hint = "" if debugging() else "; run again with --debug to see it here"
    return scrub(f"internal error: {type(exc).__name__}: {exc} (the traceback is in {path}{hint})")
