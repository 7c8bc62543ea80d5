"""What a test may expect of the sandbox on this machine, with bubblewrap or without.

Many people run gibberish without bubblewrap (not installed, or user namespaces turned
off), and the suite runs a second time in CI with ``bwrap`` hidden from PATH and
``GIBBERISH_SANDBOX=off``. A test either says it needs the sandbox (``requires_sandbox``:
skipped, with the reason, where there is none) or holds on both kinds of machine, using
:func:`approved_read_only_runs` for the one rule that differs between them.
"""

from __future__ import annotations

import pytest

from gibberish.runner import sandbox
from gibberish.trust.decision import Decision


def active() -> bool:
    """True when runs here are wrapped in a working bubblewrap."""
    return sandbox.status().active


requires_sandbox = pytest.mark.skipif(
    not sandbox.status().active,
    reason=f"no working bubblewrap here ({sandbox.status().detail.rstrip('.')}); apt install bubblewrap",
)
"""For a test of what only a sandbox gives (a read-only tool that never asks, EROFS...)."""


def approved_read_only_runs(decision: Decision) -> bool:
    """Whether ``decision`` is what an approved user skill's read-only tool gets here.

    With a sandbox it runs without asking. Without one it asks before each run — not as
    a first run (the approval was found) — and the reason names the missing sandbox.
    """
    if active():
        return decision.runs
    return decision.asks and not decision.first_run and "sandbox" in decision.reason


def confirm_flags() -> tuple[str, ...]:
    """``gibberish run`` flags for an approved read-only tool to run on this machine.

    None with a sandbox (it runs unasked); ``--yes`` without one (it asks every time).
    """
    return () if active() else ("--yes",)
