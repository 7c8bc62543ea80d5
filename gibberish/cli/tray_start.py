"""The tray's start path from the command line, without click.

``gibberish`` with no command is how a person (or their session's autostart) starts the
tray, and the time until its icon and menu show is what they feel. Click and the command
modules cost tens of milliseconds before Qt has even started, and none of them is needed
to read ``gibberish [--no-user-skills] [--no-bundled] [--debug] [--skills-dir DIR]
[tray [--no-tray]]``. So :func:`tray_request` reads exactly those command lines and
:func:`start_tray` starts the application; anything else (``--help``, a typo, an option
this does not know) returns ``None`` and goes through the click group as usual, which
says what is wrong. ``gibberish tray`` in the click group starts the tray through the
same :func:`start_tray`.

The Engine is imported by its factory, which the tray calls on a worker thread once its
icon and menu are shown (see ``gibberish.ui.engine_host``).
"""

from __future__ import annotations

import gc
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from gibberish.engine.core import Engine

_FLAGS = {"--no-user-skills", "--no-bundled", "--debug"}


class TrayRequest(NamedTuple):
    """A command line that starts the tray, as the click group would have read it."""

    skills_dirs: tuple[Path, ...] = ()
    include_user: bool = True
    include_bundled: bool = True
    debug: bool = False
    no_tray: bool = False

    def engine_factory(self) -> Callable[[], Engine]:
        """Builds the Engine these options ask for (called on the tray's worker thread)."""

        def build() -> Engine:
            from gibberish.engine.core import Engine, EngineOptions

            return Engine(
                EngineOptions(
                    extra_skills_dirs=self.skills_dirs,
                    include_user=self.include_user,
                    include_bundled=self.include_bundled,
                )
            )

        return build


def tray_request(argv: Sequence[str]) -> TrayRequest | None:
    """What ``argv`` asks of the tray, or None when it is anything else (or doubtful)."""
    flags: set[str] = set()
    dirs: list[Path] = []
    rest = list(argv)
    while rest and rest[0].startswith("--"):
        head = rest.pop(0)
        if head in _FLAGS:
            flags.add(head)
        elif head.startswith("--skills-dir=") and len(head) > len("--skills-dir="):
            dirs.append(Path(head.partition("=")[2]))
        elif head == "--skills-dir" and rest and not rest[0].startswith("-"):
            dirs.append(Path(rest.pop(0)))
        else:
            return None
    if rest[:1] == ["tray"]:
        rest.pop(0)
        if rest == ["--no-tray"]:
            flags.add("--no-tray")
            rest.clear()
    if rest or any(d.exists() and not d.is_dir() for d in dirs):
        return None  # the click group names what is wrong
    return TrayRequest(
        skills_dirs=tuple(dirs),
        include_user="--no-user-skills" not in flags,
        include_bundled="--no-bundled" not in flags,
        debug="--debug" in flags,
        no_tray="--no-tray" in flags,
    )


def start_tray(factory: Callable[[], Engine], *, no_tray: bool) -> None:
    """Start the tray (or the launcher window) and exit with its status.

    A session where Qt cannot start gets one sentence saying why (exit status 1).
    Automatic garbage collection is off from here on: the tray runs the collector on its
    GUI thread only (``gibberish.ui.gui_gc``), and the imports and the first menu, which
    make hundreds of thousands of objects and no garbage, need no collection passes.
    """
    gc.disable()
    from gibberish.cli.display import display_problem

    problem = display_problem()
    if problem:
        from gibberish.cli.common import fail

        fail(problem, 1)
    from gibberish.ui.application import run_application

    sys.exit(run_application(factory, no_tray=no_tray))


def start_if_tray(argv: Sequence[str]) -> None:
    """Start the tray when ``argv`` asks for it (never returns then); else return."""
    request = tray_request(argv)
    if request is None:
        return
    if request.debug:
        from gibberish.cli import logfile

        logfile.enable_debug()
    try:
        start_tray(request.engine_factory(), no_tray=request.no_tray)
    except KeyboardInterrupt:
        print("Interrupted.", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:  # the last guard, as in ``gibberish.cli.root.run_main``
        from gibberish.cli import logfile
        from gibberish.cli.common import fail

        fail(logfile.record_internal_error(exc))
