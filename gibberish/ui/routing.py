"""The seam for asking in your own words: free text in, a proposed tool (and arguments) out.

The command bar hands text it cannot match to ``Controller.route_text``, which asks a
``TextRouter`` for a ``Proposal``. Today that is ``FuzzyRouter`` (best fuzzy match over
the whole request, no arguments). The local function-calling model plugs in here next:
a router whose ``propose`` calls the model and returns the tool it chose with the
arguments it filled in. Whatever the router says is only a *proposal*: the controller
opens the parameter form prefilled with it and then asks the Engine for a decision, so a
model's call goes through exactly the same form and approval as a click (DESIGN §8).

A router that may take long (an HTTP call to a model) sets ``instant = False``; the
controller then runs ``propose`` on a worker thread and comes back to the GUI thread
with a queued signal, so the tray never freezes while a model thinks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from gibberish.ui.command_bar import tool_index

if TYPE_CHECKING:
    from gibberish.app import ToolRef


@dataclass(frozen=True)
class Proposal:
    """A tool to open (``skill.tool``), arguments to prefill, and a note for the person."""

    ref: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""


class TextRouter(Protocol):
    instant: bool

    def propose(self, text: str, tools: Sequence[ToolRef]) -> Proposal | None: ...


class FuzzyRouter:
    """The fallback router: the best fuzzy match of the whole request (function words skipped)."""

    instant = True

    def __init__(self, min_score: float = 0.3) -> None:
        self.min_score = min_score

    def propose(self, text: str, tools: Sequence[ToolRef]) -> Proposal | None:
        matches = tool_index(tools).rank(text, 1, require_all=False)
        if not matches or matches[0].score < self.min_score:
            return None
        return Proposal(matches[0].item.ref, note=f"Best match for “{text}”")
