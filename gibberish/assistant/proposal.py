"""A proposed call: what the command bar, voice and the model router all hand back.

One type, whoever proposed it. The model router fills it from the model's answer
(``router.py``), voice from what was heard (``voice/interpret.py``), the command bar's
fuzzy fallback from the best match of the words typed. It carries the validated calls
in order (a model may propose several), the tools to pick from when the proposer is
unsure, the sentence for the person, and where it came from (the model's attempts, or
what was heard). It is only a proposal: every front end opens it through the one path
(``gibberish.engine.run_flow.proposed_runs``) into the same form, decision and approval
as a click (docs/adr/0091-one-proposal.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any, Generic, TypeVar

from msgspec import Struct

from gibberish.assistant.fuzzy import FuzzyMatch
from gibberish.assistant.heard import Heard
from gibberish.assistant.naming import ExposedTool
from gibberish.assistant.validate import CallStatus, ValidatedCall
from gibberish.skills.model import tool_ref


class ProposalStatus(StrEnum):
    OK = "ok"
    """``calls`` are valid and confident enough to open (the person still confirms)."""
    NEEDS_ARGUMENTS = "needs_arguments"
    """The tool is clear but required arguments are missing (each call's ``missing``)."""
    ASK_USER = "ask_user"
    """Not sure: let the person pick from ``choices`` (or ``candidates``)."""
    NO_MATCH = "no_match"
    """Nothing matches what was said: ``candidates`` are the closest tools."""
    NO_TOOLS = "no_tools"
    """Nothing is available in the current mode."""
    ERROR = "error"
    """The proposer could not be asked (``message`` says why); ``choices`` may still help."""
    CANCELLED = "cancelled"


PROPOSING = (ProposalStatus.OK, ProposalStatus.NEEDS_ARGUMENTS)

H = TypeVar("H", bound=Heard | None, covariant=True)
"""What was heard: ``Heard`` for a spoken request, None for typed words."""


class Choice(Struct, frozen=True):
    """A tool to offer the person (``skill.tool``), with the line that describes it."""

    ref: str
    description: str = ""


class Proposal(Struct, Generic[H], frozen=True):
    """Proposed calls, or why there are none, whoever proposed them (module docstring)."""

    heard: H
    """What a recognizer heard, for a spoken request (its words are ``heard.text``);
    None for typed words."""
    status: ProposalStatus
    request: str = ""
    """The words typed (a spoken request's are in ``heard``)."""
    calls: tuple[ValidatedCall, ...] = ()
    """The proposed calls, in order; when the proposer is unsure, its guesses."""
    confidence: float = 0.0
    """How much to trust a model's answer (the router's table); 0 for other proposers."""
    candidates: tuple[FuzzyMatch[ExposedTool], ...] = ()
    """The closest tools by their words, for the person to pick from."""
    message: str = ""
    """One sentence for the person (why it asks, what failed, what to check)."""
    attempts: int = 0
    """Model requests made (1, or 2 after a repair)."""
    outputs: tuple[str, ...] = ()
    """The model's raw text per attempt (for the log and the CLI)."""
    offered: tuple[str, ...] = ()
    """Exposed names of the tools that went into the model's prompt."""
    choices: tuple[Choice, ...] = ()
    """The tools to offer, best first, once worded for a person (``outcome.advise``)."""
    settings_link: bool = False
    """Offer a way to the settings (no model configured, the model server is down …)."""
    notes: tuple[str, ...] = ()
    """The sentence shown with each call's form, in the order of ``calls``."""

    @property
    def call(self) -> ValidatedCall | None:
        return self.calls[0] if self.calls else None

    @property
    def ref(self) -> str:
        """The first proposed call's tool (``skill.tool``); empty without a call."""
        call = self.call
        return tool_ref(call.skill or "", call.tool or "") if call is not None else ""

    @property
    def exposed(self) -> ExposedTool | None:
        return self.calls[0].exposed if self.calls else None

    @property
    def ok(self) -> bool:
        return self.status is ProposalStatus.OK

    @property
    def proposes(self) -> bool:
        """True when ``calls`` are to be opened (the form, then the decision)."""
        return self.status in PROPOSING and bool(self.calls)

    @property
    def failed(self) -> bool:
        """The proposer could not be asked (shown as an error, not as a doubt)."""
        return self.status is ProposalStatus.ERROR

    @property
    def missing(self) -> tuple[str, ...]:
        """Required parameters the first proposed call lacks."""
        return tuple(self.calls[0].missing) if self.proposes else ()

    @property
    def unusual(self) -> tuple[str, ...]:
        """Proposed values to confirm before running (unusually large numbers …)."""
        return tuple(u for c in self.calls for u in c.unusual) if self.proposes else ()

    @property
    def refs(self) -> tuple[str, ...]:
        return tuple(c.ref for c in self.choices)

    @property
    def descriptions(self) -> tuple[tuple[str, str], ...]:
        return tuple((c.ref, c.description) for c in self.choices)

    def to_dict(self) -> dict[str, Any]:
        """The JSON the CLI prints: for a spoken request, what was heard and the call; for
        a model's answer, the request, the calls and how the model was asked."""
        if self.heard is not None:
            return {
                "status": self.status.value,
                "heard": self.heard.to_dict(),
                "call": self.calls[0].to_dict() if self.calls else None,
                "candidates": [
                    {"skill": m.item.skill.name, "tool": m.item.tool.name, "score": m.score}
                    for m in self.candidates
                ],
                "message": self.message,
            }
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


def proposal_of(
    ref: str, arguments: Mapping[str, Any] | None = None, *, message: str = ""
) -> Proposal[None]:
    """A proposal of one tool named by its ``skill.tool``, from a proposer that matched it
    without a model (the command bar's best match for the words typed)."""
    skill, _, tool = ref.partition(".")
    call = ValidatedCall(
        CallStatus.OK, tool, skill=skill, tool=tool, arguments=dict(arguments or {})
    )
    return Proposal(None, ProposalStatus.OK, calls=(call,), message=message)
