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

Below ``threshold`` (default 0.5) the proposal's status is ``ASK_USER`` and ``candidates``
holds the top fuzzy matches of the request, for the person to pick from.

Repair: when the first answer does not parse, calls an unknown tool, has an invalid
argument or was cut off by the token limit, the router sends one corrective follow-up —
the model's own output, call fragments included, then exactly what was wrong ("the
model's answer was cut off at 256 tokens", "count must be an integer") — and reads the
answer once more. A call that is only *missing* required arguments
is not repaired: the model cannot know values the person did not say, and asking it again
invites invented ones. The result is ``NEEDS_ARGUMENTS`` and the UI asks the person.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence

from msgspec import Struct

from gibberish.assistant.budget import Selection, functiongemma_cost, json_cost
from gibberish.assistant.clients import (
    Api,
    Message,
    ModelCancelled,
    ModelClient,
    ModelError,
    ModelReply,
    ModelRequest,
)
from gibberish.assistant.context_blocks import with_context
from gibberish.assistant.functiongemma import render_call
from gibberish.assistant.fuzzy import FuzzyMatch
from gibberish.assistant.naming import ExposedTool, ToolCatalog
from gibberish.assistant.proposal import Proposal, ProposalStatus
from gibberish.assistant.tool_index import ToolIndex
from gibberish.assistant.validate import CallStatus, ValidatedCall, validate_call

CONFIDENCE_FIRST = 1.0
CONFIDENCE_COERCED = 0.9
CONFIDENCE_REPAIRED = 0.6
DISAGREEMENT_FACTOR = 0.7
DEFAULT_THRESHOLD = 0.5


class _Verdict(Struct, frozen=True):
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
    if reply.cut_off and (problems or not reply.calls):
        problems.insert(0, reply.cut_off_problem())
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

    def select(self, request: str, tools: ToolIndex | Sequence[ExposedTool]) -> Selection:
        """The budgeted tool selection this router would put in the prompt."""
        settings = getattr(self.client, "settings", None)
        budget = self.budget if self.budget is not None else getattr(settings, "budget", 2048)
        generate = getattr(settings, "api", Api.OLLAMA_GENERATE) is Api.OLLAMA_GENERATE
        return _index_of(tools).select(
            request, budget, cost=functiongemma_cost if generate else json_cost
        )

    def candidates(
        self, request: str, tools: ToolIndex | Sequence[ExposedTool]
    ) -> tuple[FuzzyMatch[ExposedTool], ...]:
        return _index_of(tools).candidates(request, self.max_candidates)

    def route(
        self,
        request: str,
        tools: ToolIndex | ToolCatalog | Sequence[ExposedTool],
        *,
        cancel: threading.Event | None = None,
        on_text: Callable[[str], None] | None = None,
        context: str = "",
    ) -> Proposal[None]:
        """Ask the model which tool ``request`` means; ``tools`` are those of the current mode
        (the Engine passes its ``ToolIndex``, reused from request to request).

        ``context`` (attached context blocks, see ``context_blocks.py``) goes in front of the
        request in the user turn; tools are still chosen by the request alone."""
        index = _index_of(tools)
        request = request.strip()
        if not len(index):
            return Proposal(
                None,
                ProposalStatus.NO_TOOLS,
                request,
                message="No tools are available in this mode.",
            )
        if not request:
            return Proposal(
                None, ProposalStatus.ASK_USER, request, message="Say what you want to do."
            )
        selection = self.select(request, index)
        ask = _Asking(request, index, selection, [Message("user", with_context(context, request))])
        for attempt in (1, 2):
            try:
                reply = self.client.complete(
                    ModelRequest(selection.tools, tuple(ask.messages)),
                    cancel=cancel,
                    on_text=on_text,
                )
            except ModelError as exc:
                return self._failed(ask, exc, attempt)
            if ask.judge(reply):
                return self._finish(ask, attempt)
            if attempt == 1:
                ask.correct(reply)
        return self._unusable(ask)

    def _failed(self, ask: _Asking, exc: ModelError, attempt: int) -> Proposal[None]:
        """The model could not be asked (or the person cancelled)."""
        if isinstance(exc, ModelCancelled):
            return ask.result(ProposalStatus.CANCELLED, exc.message, attempt)
        calls = ask.verdict.calls if ask.verdict else ()
        return ask.result(
            ProposalStatus.ERROR, exc.message, attempt, calls, candidates=self._offer(ask)
        )

    def _unusable(self, ask: _Asking) -> Proposal[None]:
        """Nothing usable after the repair retry: let the person pick."""
        assert ask.verdict is not None
        problems = "; ".join(ask.verdict.problems[:3])
        return ask.result(
            ProposalStatus.ASK_USER,
            f"The model's answer could not be used ({problems}) — pick a tool.",
            2,
            ask.verdict.calls,
            candidates=self._offer(ask),
        )

    def _offer(self, ask: _Asking) -> tuple[FuzzyMatch[ExposedTool], ...]:
        return ask.index.candidates(ask.request, self.max_candidates)

    def _finish(self, ask: _Asking, attempt: int) -> Proposal[None]:
        assert ask.verdict is not None
        calls = ask.verdict.calls
        confidence = round(self._confidence(ask, attempt), 3)
        if confidence < self.threshold:
            names = ", ".join(c.name for c in calls)
            return ask.result(
                ProposalStatus.ASK_USER,
                f"Not sure the model picked the right tool ({names}) — pick a tool.",
                attempt,
                calls,
                confidence,
                self._offer(ask),
            )
        if any(c.status is CallStatus.MISSING_ARGUMENTS for c in calls):
            missing = sorted({m for c in calls for m in c.missing})
            message = "Missing: " + ", ".join(missing) + "."
            return ask.result(ProposalStatus.NEEDS_ARGUMENTS, message, attempt, calls, confidence)
        return ask.result(ProposalStatus.OK, "", attempt, calls, confidence)

    @staticmethod
    def _confidence(ask: _Asking, attempt: int) -> float:
        """The confidence table of the module docstring."""
        assert ask.verdict is not None
        calls = ask.verdict.calls
        if attempt > 1:
            confidence = CONFIDENCE_REPAIRED
        elif any(c.coerced for c in calls):
            confidence = CONFIDENCE_COERCED
        else:
            confidence = CONFIDENCE_FIRST
        selection = ask.selection
        # ``relevance`` lists every tool sharing a word with the request: when some do,
        # a called tool that shares none disagrees with the request.
        called = [c.exposed for c in calls if c.exposed is not None]
        if selection.relevance and any(selection.score(t) == 0 for t in called):
            confidence *= DISAGREEMENT_FACTOR
        return confidence


class _Asking:
    """One request's exchange with the model: what was offered, said and judged so far."""

    def __init__(
        self, request: str, index: ToolIndex, selection: Selection, messages: list[Message]
    ) -> None:
        self.request = request
        self.index = index
        self.selection = selection
        self.messages = messages
        self.offered = tuple(t.name for t in selection.tools)
        self.outputs: list[str] = []
        self.verdict: _Verdict | None = None

    def judge(self, reply: ModelReply) -> bool:
        """Record the reply; True when its calls can be used."""
        self.outputs.append(reply.text)
        self.verdict = _judge(reply, self.index.catalog)
        return self.verdict.usable

    def correct(self, reply: ModelReply) -> None:
        """Add the model's answer and what was wrong with it, for the one repair retry."""
        assert self.verdict is not None
        said = (reply.raw or reply.text).strip() or "".join(
            render_call(c.name, c.arguments) for c in reply.calls
        )
        self.messages.append(Message("assistant", said))
        self.messages.append(Message("user", correction_text(self.verdict.problems)))

    def result(
        self,
        status: ProposalStatus,
        message: str,
        attempts: int,
        calls: tuple[ValidatedCall, ...] = (),
        confidence: float = 0.0,
        candidates: tuple[FuzzyMatch[ExposedTool], ...] = (),
    ) -> Proposal[None]:
        return Proposal(
            None,
            status,
            self.request,
            calls,
            confidence,
            candidates,
            message,
            attempts,
            tuple(self.outputs),
            self.offered,
        )


def _index_of(tools: ToolIndex | ToolCatalog | Sequence[ExposedTool]) -> ToolIndex:
    """``tools`` as an index: the Engine's own, or a one-off one over a catalog or list."""
    if isinstance(tools, ToolIndex):
        return tools
    return ToolIndex.of_tools(tools.tools if isinstance(tools, ToolCatalog) else tools)
