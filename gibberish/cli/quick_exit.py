"""Ending a command whose work is done without the interpreter's teardown.

When ``gibberish prompt`` or ``gibberish ask --dry-run`` at 1,000 skills has printed its
answer, an orderly shutdown of the interpreter frees each of the 100,000 or so objects
the parsed skills and the tool index are made of, collects once more and clears every
module: some 80 ms, a third of the command, spent after its output is complete. Such a
command ends with :func:`finish`: standard output, standard error and the log are
flushed, then the process leaves with ``os._exit`` (docs/performance.md).

Only when nothing is left to do: only in the ``gibberish`` program itself (``enable``,
called by ``run_main``; the click group invoked in-process, as tests do, gets a plain
``SystemExit``), only when the main thread is the only thread, only when no run of the
runner is still going and the sandbox has no file of its own to remove at exit, and only
when the flushes succeed. Otherwise :func:`finish` raises ``SystemExit`` as before.
"""

from __future__ import annotations

import os
import sys
import threading
from typing import NoReturn

_enabled = False


def enable() -> None:
    """Let :func:`finish` end this process at once (the ``gibberish`` program only)."""
    global _enabled
    _enabled = True


def finish(code: int = 0) -> NoReturn:
    """End the command with ``code``: at once when nothing is left to do, else through
    ``SystemExit`` and the interpreter's usual shutdown."""
    if _enabled and _nothing_left() and _flushed():
        if "logging" in sys.modules:  # imported only by a command that logged
            sys.modules["logging"].shutdown()
        os._exit(code)
    raise SystemExit(code)


def _nothing_left() -> bool:
    if threading.active_count() != 1:
        return False
    handle = sys.modules.get("gibberish.runner.handle")
    if handle is not None and handle.active_runs():
        return False
    mounts = sys.modules.get("gibberish.runner.sandbox_mounts")
    return mounts is None or not mounts.leaves_files()


def _flushed() -> bool:
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: the usual shutdown reports it
        return False
    return True
