"""The seam for asking in your own words: free text in, a proposed tool (or a choice) out.

Free text reaches ``TextRequests.route`` (the command bar's, or a second ``gibberish
ask``), which asks a ``TextRouter``. The answer is a ``Proposal`` (the one type voice and
the model router hand back too, ``gibberish.assistant.proposal``), or None:

* a proposal that ``proposes`` — the tool(s) and the arguments to prefill. It is only a
  proposal: the controller opens the parameter form prefilled with it (missing fields
  marked) and then asks the Engine for a decision, so a model's call goes through exactly
  the same form and approval as a click (docs/adr/0013-model-feed.md);
* any other proposal — the router could not or would not decide (the model was unsure,
  the model server is down, nothing is offered in this mode): its ``message`` and the
  tools the person might have meant (``choices``), shown in the command bar to pick from;
* ``None`` — nothing matches at all.

Two routers exist. ``FuzzyRouter`` (no model configured) is instant: the best fuzzy match
of the whole sentence. ``ModelRouter`` (``[model] enabled = true``) asks the local
function-calling model through ``engine.feed.route``; it sets ``instant = False``, so the
controller calls it on a worker thread with a cancel event and comes back to the GUI
thread with a queued signal (``asking.py``) — the tray never freezes while a model thinks.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from operator import is_
from typing import TYPE_CHECKING, Protocol, TypeAlias

if TYPE_CHECKING:
    from gibberish.assistant.fuzzy import FuzzyIndex
    from gibberish.assistant.proposal import Proposal
    from gibberish.engine.core import Engine, ToolRef
    from gibberish.settings import ModelSettings
    from gibberish.skills.model import Mode

NO_MODEL = "No model configured — Settings → Model"
MAX_CHOICES = 5


Outcome: TypeAlias = "Proposal[None] | None"
"""A proposal, or None when nothing matches at all."""


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
        from gibberish.assistant.proposal import proposal_of

        matches = self._fuzzy.index(tools).rank(text, 1, require_all=False)
        if not matches or matches[0].score < self.min_score:
            return None
        return proposal_of(matches[0].item.ref, message=f"Best match for “{text}”")

    def choices(self, text: str, tools: Sequence[ToolRef]) -> Proposal[None]:
        """What the command bar offers for free text when no model is configured."""
        from gibberish.assistant.proposal import Choice, Proposal, ProposalStatus

        matches = self._fuzzy.index(tools).rank(text, MAX_CHOICES, require_all=False)
        choices = tuple(Choice(m.item.ref) for m in matches)
        message = NO_MODEL if choices else f"{NO_MODEL}. Nothing is close to “{text}”."
        return Proposal(
            None,
            ProposalStatus.ASK_USER,
            text,
            message=message,
            choices=choices,
            settings_link=True,
        )


class ModelRouter:
    """Asks the configured local model (``engine.feed.route``); its proposal, worded (``advise``).

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
        from gibberish.assistant.outcome import advise

        result = self.engine.feed.route(text, mode=mode, cancel=cancel)
        where = f"{mode.value} mode" if mode is not None else "this mode"
        return advise(result, self.name, where)
