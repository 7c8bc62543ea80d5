"""How gibberish writes log lines: without credentials, to a file made when needed.

Used by the command line's log and the tray's. Kept apart from
:mod:`gibberish.redaction` (which a folder install imports to show a source without its
token) and from :mod:`gibberish.logger`, so that neither imports ``logging``."""

from __future__ import annotations

import logging
from pathlib import Path

from gibberish.redaction import scrub


class ScrubbingFormatter(logging.Formatter):
    """Log lines and tracebacks with every URL's credentials removed (a source typed as
    ``https://user:TOKEN@host/…`` may appear in an exception's message)."""

    def format(self, record: logging.LogRecord) -> str:
        return scrub(super().format(record))


class LateRotatingFile(logging.Handler):
    """A rotating log file, made when the first record comes: most commands log nothing,
    and ``logging.handlers`` (with the socket and pickle modules it imports) is a
    noticeable part of a short command's start."""

    def __init__(self, path: Path, max_bytes: int, backups: int) -> None:
        super().__init__()
        self._path = path
        self._limits = (max_bytes, backups)
        self._file: logging.Handler | None = None

    def emit(self, record: logging.LogRecord) -> None:
        if self._file is None:
            from logging.handlers import RotatingFileHandler

            max_bytes, backups = self._limits
            self._file = RotatingFileHandler(
                self._path, maxBytes=max_bytes, backupCount=backups, encoding="utf-8", delay=True
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
