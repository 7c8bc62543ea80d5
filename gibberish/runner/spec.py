"""What to run: the immutable description of one run.

A :class:`RunSpec` is everything the runner needs and nothing it has to look up:
the argv (already resolved from a template), the working directory, the complete child
environment, the limits. The Engine builds it; the runner never consults skills or
approvals. Keeping the run id inside the spec *and* inside its environment is what lets
the kill sweep find processes that escaped the process group.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping
from pathlib import Path
from types import MappingProxyType

from msgspec import Struct, field
from msgspec.structs import force_setattr

from gibberish.runner.sandbox import Sandbox

RUN_ID_VAR = "GIBBERISH_RUN_ID"
DEFAULT_TIMEOUT = 30.0
DEFAULT_GRACE = 5.0
DEFAULT_LOG_LIMIT = 64 * 1024 * 1024


def new_run_id() -> str:
    """A fresh run id: 32 lowercase hex digits, unguessable and safe in any env value."""
    return uuid.uuid4().hex


class RunSpec(Struct, frozen=True):
    """One process to start: program + arguments, never a shell command line.

    ``env`` is the *complete* child environment (build it with
    :func:`gibberish.runner.build_environment`); an empty mapping really means an empty
    environment. ``GIBBERISH_RUN_ID`` in it is always forced to ``run_id`` because the
    kill sweep identifies the run's processes by it. When ``run_id`` is not given, the
    one already in ``env`` is adopted, else a new one is made.
    """

    argv: tuple[str, ...]
    cwd: Path
    timeout: float = DEFAULT_TIMEOUT
    env: Mapping[str, str] = field(default_factory=dict)
    grace: float = DEFAULT_GRACE
    run_id: str = ""
    log_path: Path | None = None
    log_limit: int = DEFAULT_LOG_LIMIT
    sandbox: Sandbox | None = None
    """Run inside bubblewrap as this says, when bwrap works here; None: never."""
    inherit_fds: tuple[int, ...] = ()
    """Descriptors the run inherits at the same numbers: the sealed copies of programs it
    executes as ``/proc/self/fd/N``. The runner owns them: it closes them once the run
    has started (or could not), so a spec that carries them is started once."""

    def __post_init__(self) -> None:
        argv = tuple(self.argv)
        if not argv or not all(isinstance(arg, str) for arg in argv):
            raise ValueError("RunSpec.argv must be a non-empty sequence of strings")
        if not isinstance(self.timeout, (int, float)) or math.isnan(self.timeout):
            raise ValueError("RunSpec.timeout must be a number of seconds")
        if self.timeout <= 0:
            raise ValueError(f"RunSpec.timeout must be positive, not {self.timeout}")
        if not isinstance(self.grace, (int, float)) or not self.grace >= 0:
            raise ValueError(f"RunSpec.grace must be zero or more seconds, not {self.grace}")
        if self.log_limit < 0:
            raise ValueError("RunSpec.log_limit must not be negative")
        run_id = self.run_id or self.env.get(RUN_ID_VAR) or new_run_id()
        env = {str(name): str(value) for name, value in self.env.items()}
        env[RUN_ID_VAR] = run_id
        force_setattr(self, "argv", argv)
        force_setattr(self, "cwd", Path(self.cwd))
        force_setattr(self, "run_id", run_id)
        force_setattr(self, "env", MappingProxyType(env))
        if self.log_path is not None:
            force_setattr(self, "log_path", Path(self.log_path))
