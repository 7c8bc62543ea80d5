"""Process execution: environment, spawn, capture, timeout, kill, envelope.

Knows nothing of skills or approval: it gets a :class:`RunSpec` (argv, cwd, environment,
limits) and returns a :class:`RunResult` whose :class:`Envelope` is the JSON the rest of
gibberish shows or hands to a model (DESIGN §5).
"""

from gibberish.runner.capture import HEAD_LIMIT, PARSE_LIMIT, TAIL_LIMIT
from gibberish.runner.env import build_environment
from gibberish.runner.envelope import (
    ABSENT,
    EXIT_CANCELLED,
    EXIT_CANNOT_EXECUTE,
    EXIT_NOT_FOUND,
    EXIT_TIMEOUT,
    Envelope,
    RunResult,
    RunStatus,
)
from gibberish.runner.handle import RunHandle, active_runs, run, start
from gibberish.runner.spec import RUN_ID_VAR, RunSpec, new_run_id
from gibberish.runner.workdir import working_directory

__all__ = [
    "ABSENT",
    "EXIT_CANCELLED",
    "EXIT_CANNOT_EXECUTE",
    "EXIT_NOT_FOUND",
    "EXIT_TIMEOUT",
    "HEAD_LIMIT",
    "PARSE_LIMIT",
    "RUN_ID_VAR",
    "TAIL_LIMIT",
    "Envelope",
    "RunHandle",
    "RunResult",
    "RunSpec",
    "RunStatus",
    "active_runs",
    "build_environment",
    "new_run_id",
    "run",
    "start",
    "working_directory",
]
