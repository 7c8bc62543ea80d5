"""gibberish's loggers, and the set-up of where their lines go, both made when first asked.

``import logging`` (with the ``traceback``, ``string`` and ``threading`` modules it
brings) is about a twentieth of a short command's start, and most commands log nothing:
a folder install, a listing. So a front end says how its log is kept with
:func:`when_logging` instead of setting it up, and a module that logs asks for its
logger with :func:`logger` — the first such request runs the set-up, before any line is
written. A process in which no module asks never imports ``logging`` (docs/adr/0101).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import logging

_waiting: list[Callable[[], None]] = []
_state = {"asked": False}


def when_logging(set_up: Callable[[], None]) -> None:
    """Run ``set_up`` when the first logger is asked for (at once if one was)."""
    if _state["asked"]:
        set_up()
    elif set_up not in _waiting:
        _waiting.append(set_up)


def forget(set_up: Callable[[], None]) -> None:
    """Drop ``set_up`` if it has not run yet (a front end that keeps its log elsewhere)."""
    if set_up in _waiting:
        _waiting.remove(set_up)


def logger(name: str) -> logging.Logger:
    """The logger ``name`` (``gibberish.…``), with every waiting set-up run first."""
    import logging

    _state["asked"] = True
    while _waiting:
        _waiting.pop(0)()
    return logging.getLogger(name)
