"""The result of a run, as the UI, the CLI and a model see it (docs/adr/0008-running-a-tool.md).

The envelope is deliberately small and JSON-shaped: ``success, exit_code, output,
truncated, duration_ms`` always, ``error`` only on failure, ``parsed`` only when the
output was a JSON document. Exit codes follow the shell conventions people already know
(124 timeout, 126 cannot execute, 127 not found, 128+N killed by signal N), so a model or
a script reading the envelope needs no gibberish-specific table.
"""

from __future__ import annotations

import signal
from enum import StrEnum
from pathlib import Path
from typing import Any, Final

from msgspec import Struct

EXIT_TIMEOUT: Final = 124
EXIT_CANNOT_EXECUTE: Final = 126
EXIT_NOT_FOUND: Final = 127
#: A cancelled run reports 130, the shell's "interrupted by the user" code (128 + SIGINT),
#: whatever signal finally ended the process: it tells a person's cancel apart from a
#: timeout (124) and from a process that was really killed by someone else (143, 137).
EXIT_CANCELLED: Final = 130


class _Absent:
    """Marker for "no parsed value" — distinct from a parsed JSON ``null``."""

    _instance: _Absent | None = None

    def __new__(cls) -> _Absent:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "<absent>"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "ABSENT"


ABSENT: Final = _Absent()


class RunStatus(StrEnum):
    """Where a run is in its life; the last four are final."""

    PENDING = "pending"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    TIMED_OUT = "timed_out"
    CANCELLED = "cancelled"

    @property
    def is_final(self) -> bool:
        return self not in (RunStatus.PENDING, RunStatus.RUNNING)


class Envelope(Struct, frozen=True):
    """The JSON result of one run (see :meth:`to_dict`)."""

    success: bool
    exit_code: int | None
    output: str
    truncated: bool
    duration_ms: int
    error: str | None = None
    parsed: Any = ABSENT

    @property
    def has_parsed(self) -> bool:
        return self.parsed is not ABSENT

    def to_dict(self) -> dict[str, Any]:
        """Exactly the docs/adr/0008-running-a-tool.md keys; ``error`` on failure, ``parsed`` when present."""
        data: dict[str, Any] = {
            "success": self.success,
            "exit_code": self.exit_code,
            "output": self.output,
            "truncated": self.truncated,
            "duration_ms": self.duration_ms,
        }
        if not self.success:
            data["error"] = self.error or "Command failed"
        if self.has_parsed:
            data["parsed"] = self.parsed
        return data

    @classmethod
    def before_start(cls, error: str) -> Envelope:
        """A run that never got a process: bad parameter, refused approval, cancelled early."""
        return cls(
            success=False, exit_code=None, output="", truncated=False, duration_ms=0, error=error
        )


class RunResult(Struct, frozen=True):
    """An envelope plus what the caller needs to show or log about the run."""

    envelope: Envelope
    status: RunStatus
    argv: tuple[str, ...]
    cwd: Path
    run_id: str
    log_path: Path | None
    log_truncated: bool

    @property
    def success(self) -> bool:
        return self.envelope.success


def exit_code_from_returncode(returncode: int) -> int:
    """``Popen.returncode`` to a shell exit code: a negative value -N becomes 128+N."""
    return 128 - returncode if returncode < 0 else returncode


def signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def failure_message(returncode: int) -> str:
    """The ``error`` text for a process that ended on its own but not with 0."""
    if returncode < 0:
        number = -returncode
        return (
            f"Command was killed by signal {number} ({signal_name(number)}),"
            f" exit code {128 + number}"
        )
    return f"Command failed with exit code {returncode}"


def timeout_message(timeout: float) -> str:
    """``Timed out after 5 s`` — whole seconds without a decimal point, else as given."""
    return f"Timed out after {timeout:g} s"
