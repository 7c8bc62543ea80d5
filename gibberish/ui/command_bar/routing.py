"""The seam for asking in your own words: free text in, a proposed tool (or a choice) out.

Free text reaches ``TextRequests.route`` (the command bar's, or a second ``gibberish
ask``), which asks a ``TextRouter``. The answer is
one of:

* a ``Proposal`` — a tool (``skill.tool``) and the arguments to prefill. It is only a
  proposal: the controller opens the parameter form prefilled with it (missing fields
  marked) and then asks the Engine for a decision, so a model's call goes through exactly
  the same form and approval as a click (docs/adr/0013-model-feed.md);
* ``Choices`` — the router could not or would not decide (the model was unsure, the model
  server is down, nothing is offered in this mode): a line for the person and the tools
  they might have meant, shown in the command bar to pick from;
* ``None`` — nothing matches at all.

Two routers exist. ``FuzzyRouter`` (no model configured) is instant: the best fuzzy match
of the whole sentence. ``ModelRouter`` (``[model] enabled = true``) asks the local
function-calling model through ``engine.feed.route``; it sets ``instant = False``, so the
controller calls it on a worker thread with a cancel event and comes back to the GUI
thread with a queued signal (``asking.py``) — the tray never freezes while a model thinks.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from operator import is_
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from gibberish.app import Engine, ToolRef
    from gibberish.assistant import RouteResult
    from gibberish.assistant.fuzzy import FuzzyIndex
    from gibberish.settings import ModelSettings
    from gibberish.skills.model import Mode

NO_MODEL = "No model configured — Settings → Model"
MAX_CHOICES = 5


@dataclass(frozen=True)
class Proposal:
    """A tool to open (``skill.tool``), arguments to prefill, and a note for the person."""

    ref: str
    arguments: Mapping[str, Any] = field(default_factory=dict)
    note: str = ""
    missing: tuple[str, ...] = ()
    """Required parameters the router could not fill (the form marks them)."""
    then: tuple[Proposal, ...] = ()
    """Further calls proposed with this one, in order: each is opened after this one,
    through its own form and its own decision (a model may propose several)."""


@dataclass(frozen=True)
class Choices:
    """No proposal: ``message`` says why, ``refs`` are tools the person may pick from."""

    message: str
    refs: tuple[str, ...] = ()
    failed: bool = False
    """The router could not be asked (an error, shown as one); False when it was unsure."""
    settings_link: bool = False
    """Offer a link to the settings (no model configured, model server unreachable …)."""


Outcome = Proposal | Choices | None


class TextRouter(Protocol):
    @property
    def instant(self) -> bool:
        """False: ``propose`` may take long; the controller calls it on a worker thread."""
        ...

    @property
    def busy_text(self) -> str:
        """What the command bar says while a slow router works ("Asking functiongemma…")."""
        ...

    def propose(
        self,
        text: str,
        tools: Sequence[ToolRef],
        *,
        mode: Mode | None = None,
        cancel: threading.Event | None = None,
    ) -> Outcome: ...


class _FuzzyCache:
    """The fuzzy index of the last tool list, rebuilt only when the list holds other skill
    or tool definitions (compared by identity: the library makes a new definition object
    whenever a skill's files change), so typing in the command bar does not re-index
    every tool on every request."""

    def __init__(self) -> None:
        self._key: list[object] = []
        self._index: FuzzyIndex[ToolRef] | None = None

    def index(self, tools: Sequence[ToolRef]) -> FuzzyIndex[ToolRef]:
        from gibberish.assistant.fuzzy import FuzzyIndex  # the model feed loads only when used

        key: list[object] = [x for t in tools for x in (t.skill, t.tool)]
        if self._index is None or len(key) != len(self._key) or not all(map(is_, key, self._key)):
            self._index = FuzzyIndex.for_tools(tools)
            self._key = key
        return self._index


class FuzzyRouter:
    """The router without a model: the best fuzzy match of the whole request."""

    instant = True
    busy_text = ""

    def __init__(self, min_score: float = 0.3) -> None:
        self.min_score = min_score
        self._fuzzy = _FuzzyCache()

    def propose(
        self,
        text: str,
        tools: Sequence[ToolRef],
        *,
        mode: Mode | None = None,
        cancel: threading.Event | None = None,
    ) -> Outcome:
        matches = self._fuzzy.index(tools).rank(text, 1, require_all=False)
        if not matches or matches[0].score < self.min_score:
            return None
        return Proposal(matches[0].item.ref, note=f"Best match for “{text}”")

    def choices(self, text: str, tools: Sequence[ToolRef]) -> Choices:
        """What the command bar offers for free text when no model is configured."""
        matches = self._fuzzy.index(tools).rank(text, MAX_CHOICES, require_all=False)
        refs = tuple(m.item.ref for m in matches)
        message = NO_MODEL if refs else f"{NO_MODEL}. Nothing is close to “{text}”."
        return Choices(message, refs, settings_link=True)


class ModelRouter:
    """Asks the configured local model (``engine.feed.route``) and turns its answer into an outcome.

    Built by the controller from ``settings.model`` while ``enabled`` is true; a new one is
    made when those settings change. ``propose`` runs on a worker thread: it touches the
    Engine only through ``route`` (thread-safe reads of the library) and no Qt object.
    """

    instant = False

    def __init__(self, engine: Engine, settings: ModelSettings) -> None:
        self.engine = engine
        self.settings = settings

    @property
    def name(self) -> str:
        return self.settings.model

    @property
    def busy_text(self) -> str:
        return f"Asking {self.name}…"

    def propose(
        self,
        text: str,
        tools: Sequence[ToolRef],
        *,
        mode: Mode | None = None,
        cancel: threading.Event | None = None,
    ) -> Outcome:
        result = self.engine.feed.route(text, mode=mode, cancel=cancel)
        return outcome_of(result, self.name, mode)


def outcome_of(result: RouteResult, model: str, mode: Mode | None = None) -> Outcome:
    """A router result as what the UI does next, through the one mapping every front end
    shares (``gibberish.assistant.outcome.advise``): a proposal opens the form with the
    first call (missing fields marked, the note naming any further calls), anything else
    becomes ``Choices`` with the same sentence the command line prints. Several calls
    become one proposal per call, in order (``Proposal.then``)."""
    from gibberish.assistant.outcome import Next, advise, ref_of

    where = f"{mode.value} mode" if mode is not None else "this mode"
    advice = advise(result, model, where)
    if advice.next is Next.PROPOSE:
        first, *others = [(c, c.exposed) for c in advice.calls if c.exposed is not None]
        n = len(others) + 1
        then = tuple(
            Proposal(
                ref_of(exposed),
                dict(call.arguments),
                f"Call {k} of {n} proposed by {model} for “{result.request}”. "
                "Check the values before you run it.",
                tuple(call.missing),
            )
            for k, (call, exposed) in enumerate(others, 2)
        )
        call, exposed = first
        return Proposal(ref_of(exposed), dict(call.arguments), advice.message, advice.missing, then)
    return Choices(
        advice.message,
        advice.refs,
        failed=advice.failed,
        settings_link=advice.settings_link,
    )
