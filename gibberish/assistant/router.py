"""From a request in words to a validated tool call — a proposal, never a run.

``Router.route`` picks the tools for the prompt (budget), asks the model, reads and
validates the call(s), and says how much to trust the answer. It does not run anything and
does not decide approval: the caller (the Engine) puts the call through the same decision
table as a click. A model's call never bypasses approval.

Confidence (documented in docs/model-feed.md):

=======================================================  =====
valid on the first answer, no value needed converting    1.0
valid on the first answer after type coercion ("5" → 5)  0.9
valid only after the one repair retry                    0.6
…and the called tool shares no word with the request
while another tool does (``disagreement``)                ×0.7
nothing usable after the retry                           0.0
=======================================================  =====

Below ``threshold`` (default 0.5) the result's status is ``ASK_USER`` and ``candidates``
holds the top fuzzy matches of the request, for the person to pick from.

Repair: when the first answer does not parse, calls an unknown tool or has an invalid
argument, the router sends one short corrective follow-up (the model's answer plus what
was wrong) and reads the answer once more. A call that is only *missing* required arguments
is not repaired: the model cannot know values the person did not say, and asking it again
invites invented ones. The result is ``NEEDS_ARGUMENTS`` and the UI asks the person.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from gibberish.assistant.budget import (
    Selection,
    functiongemma_cost,
    json_cost,
    relevance,
    select_tools,
    words,
)
from gibberish.assistant.clients import (
    Api,
    Message,
    ModelCancelled,
    ModelClient,
    ModelError,
    ModelReply,
    ModelRequest,
)
from gibberish.assistant.context import with_context
from gibberish.assistant.functiongemma import render_call
from gibberish.assistant.fuzzy import FuzzyIndex, FuzzyMatch
from gibberish.assistant.naming import ExposedTool, ToolCatalog
from gibberish.assistant.validate import CallStatus, ValidatedCall, validate_call

CONFIDENCE_FIRST = 1.0
CONFIDENCE_COERCED = 0.9
CONFIDENCE_REPAIRED = 0.6
DISAGREEMENT_FACTOR = 0.7
DEFAULT_THRESHOLD = 0.5


class RouteStatus(StrEnum):
    OK = "ok"
    """``calls`` are valid and confident enough to hand to the Engine."""
    NEEDS_ARGUMENTS = "needs_arguments"
    """The tool is clear but required arguments are missing (see each call's ``missing``)."""
    ASK_USER = "ask_user"
    """Not confident: let the person pick from ``candidates``."""
    NO_TOOLS = "no_tools"
    """Nothing is available in the current mode."""
    ERROR = "error"
    """The model could not be asked (``message`` says why); ``candidates`` still offered."""
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class RouteResult:
    status: RouteStatus
    request: str
    calls: tuple[ValidatedCall, ...] = ()
    confidence: float = 0.0
    candidates: tuple[FuzzyMatch[ExposedTool], ...] = ()
    message: str = ""
    """One sentence for the person (why it asks, what failed)."""
    attempts: int = 0
    """Model requests made (1, or 2 after a repair)."""
    outputs: tuple[str, ...] = ()
    """The model's raw text per attempt (for the log and the CLI)."""
    offered: tuple[str, ...] = ()
    """Exposed names of the tools that went into the prompt."""

    @property
    def call(self) -> ValidatedCall | None:
        return self.calls[0] if self.calls else None

    @property
    def ok(self) -> bool:
        return self.status is RouteStatus.OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "request": self.request,
            "confidence": self.confidence,
            "calls": [c.to_dict() for c in self.calls],
            "candidates": [
                {
                    "name": m.name,
                    "skill": m.item.skill.name,
                    "tool": m.item.tool.name,
                    "score": m.score,
                }
                for m in self.candidates
            ],
            "message": self.message,
            "attempts": self.attempts,
            "outputs": list(self.outputs),
            "offered": list(self.offered),
        }


@dataclass(frozen=True, slots=True)
class _Verdict:
    calls: tuple[ValidatedCall, ...]
    problems: tuple[str, ...]

    @property
    def usable(self) -> bool:
        """Every call resolved and typed; missing arguments are allowed (asked later)."""
        return (
            bool(self.calls)
            and not self.problems
            and all(c.status in (CallStatus.OK, CallStatus.MISSING_ARGUMENTS) for c in self.calls)
        )


def _judge(reply: ModelReply, catalog: ToolCatalog) -> _Verdict:
    calls = tuple(validate_call(c, catalog) for c in reply.calls)
    problems = list(reply.errors)
    for c in calls:
        if c.status in (CallStatus.UNKNOWN_TOOL, CallStatus.INVALID):
            problems.extend(c.problems)
    if not reply.calls and not problems:
        problems.append("the reply contains no function call")
    return _Verdict(calls, tuple(problems))


def correction_text(problems: Sequence[str]) -> str:
    """The short follow-up sent for the one repair retry."""
    listed = "; ".join(problems[:3])
    return (
        f"That was not a valid function call: {listed}. "
        "Call one of the declared functions, using only its declared arguments with values "
        "of the declared types."
    )


class Router:
    """Request text → validated call proposal, via a model client (see the module docstring)."""

    def __init__(
        self,
        client: ModelClient,
        *,
        budget: int | None = None,
        threshold: float = DEFAULT_THRESHOLD,
        max_candidates: int = 5,
    ) -> None:
        self.client = client
        self.budget = budget
        self.threshold = threshold
        self.max_candidates = max_candidates

    def select(self, request: str, tools: Sequence[ExposedTool]) -> Selection:
        """The budgeted tool selection this router would put in the prompt."""
        settings = getattr(self.client, "settings", None)
        budget = self.budget if self.budget is not None else getattr(settings, "budget", 2048)
        generate = getattr(settings, "api", Api.OLLAMA_GENERATE) is Api.OLLAMA_GENERATE
        return select_tools(
            tools, request, budget, cost=functiongemma_cost if generate else json_cost
        )

    def candidates(
        self, request: str, tools: Sequence[ExposedTool]
    ) -> tuple[FuzzyMatch[ExposedTool], ...]:
        index = FuzzyIndex.for_tools(tools)
        return tuple(index.rank(request, self.max_candidates, require_all=False))

    def route(
        self,
        request: str,
        tools: ToolCatalog | Sequence[ExposedTool],
        *,
        cancel: threading.Event | None = None,
        on_text: Callable[[str], None] | None = None,
        context: str = "",
    ) -> RouteResult:
        """Ask the model which tool ``request`` means; ``tools`` are those of the current mode.

        ``context`` (attached context blocks, see ``context.py``) goes in front of the
        request in the user turn; tools are still chosen by the request alone."""
        catalog = tools if isinstance(tools, ToolCatalog) else ToolCatalog.of_exposed(tools)
        available = list(catalog.tools)
        request = request.strip()
        if not available:
            return RouteResult(
                RouteStatus.NO_TOOLS, request, message="No tools are available in this mode."
            )
        if not request:
            return RouteResult(RouteStatus.ASK_USER, request, message="Say what you want to do.")
        selection = self.select(request, available)
        offered = tuple(t.name for t in selection.tools)
        messages = [Message("user", with_context(context, request))]
        outputs: list[str] = []
        verdict: _Verdict | None = None
        for attempt in (1, 2):
            try:
                reply = self.client.complete(
                    ModelRequest(selection.tools, tuple(messages)), cancel=cancel, on_text=on_text
                )
            except ModelCancelled as exc:
                return RouteResult(
                    RouteStatus.CANCELLED,
                    request,
                    message=exc.message,
                    attempts=attempt,
                    outputs=tuple(outputs),
                    offered=offered,
                )
            except ModelError as exc:
                calls = verdict.calls if verdict else ()
                return RouteResult(
                    RouteStatus.ERROR,
                    request,
                    calls,
                    0.0,
                    self.candidates(request, available),
                    exc.message,
                    attempt,
                    tuple(outputs),
                    offered,
                )
            outputs.append(reply.text)
            verdict = _judge(reply, catalog)
            if verdict.usable:
                return self._finish(request, verdict, attempt, outputs, offered, available)
            if attempt == 1:
                said = reply.text.strip() or "".join(
                    render_call(c.name, c.arguments) for c in reply.calls
                )
                messages.append(Message("assistant", said))
                messages.append(Message("user", correction_text(verdict.problems)))
        assert verdict is not None
        return RouteResult(
            RouteStatus.ASK_USER,
            request,
            verdict.calls,
            0.0,
            self.candidates(request, available),
            "The model's answer could not be used ("
            + "; ".join(verdict.problems[:3])
            + ") — pick a tool.",
            2,
            tuple(outputs),
            offered,
        )

    def _finish(
        self,
        request: str,
        verdict: _Verdict,
        attempt: int,
        outputs: list[str],
        offered: tuple[str, ...],
        available: list[ExposedTool],
    ) -> RouteResult:
        calls = verdict.calls
        if attempt > 1:
            confidence = CONFIDENCE_REPAIRED
        elif any(c.coerced for c in calls):
            confidence = CONFIDENCE_COERCED
        else:
            confidence = CONFIDENCE_FIRST
        wanted = words(request)
        if wanted:
            best = max((relevance(wanted, t) for t in available), default=0.0)
            called = [c.exposed for c in calls if c.exposed is not None]
            if best > 0 and any(relevance(wanted, t) == 0 for t in called):
                confidence *= DISAGREEMENT_FACTOR
        confidence = round(confidence, 3)
        if confidence < self.threshold:
            names = ", ".join(c.name for c in calls)
            return RouteResult(
                RouteStatus.ASK_USER,
                request,
                calls,
                confidence,
                self.candidates(request, available),
                f"Not sure the model picked the right tool ({names}) — pick a tool.",
                attempt,
                tuple(outputs),
                offered,
            )
        if any(c.status is CallStatus.MISSING_ARGUMENTS for c in calls):
            missing = sorted({m for c in calls for m in c.missing})
            return RouteResult(
                RouteStatus.NEEDS_ARGUMENTS,
                request,
                calls,
                confidence,
                (),
                "Missing: " + ", ".join(missing) + ".",
                attempt,
                tuple(outputs),
                offered,
            )
        return RouteResult(
            RouteStatus.OK, request, calls, confidence, (), "", attempt, tuple(outputs), offered
        )
