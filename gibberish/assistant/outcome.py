"""What to do with a router result — one mapping from ``RouteStatus`` for every front end.

The command line (``gibberish ask``) and the tray's command bar both turn a ``RouteResult``
into the same ``Advice``: propose the call(s), offer tools to pick from, report a failure,
or say it was cancelled — with the same sentence for the person. Each front end only
decides how to show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from gibberish.assistant.naming import ExposedTool
from gibberish.assistant.router import RouteResult, RouteStatus
from gibberish.assistant.validate import ValidatedCall
from gibberish.skills.model import tool_ref

MAX_CHOICES = 5


class Next(StrEnum):
    PROPOSE = "propose"
    """``calls`` are proposals: fill in ``missing``, check ``unusual``, approve, run."""
    CHOOSE = "choose"
    """The model was unsure, or nothing is offered: ``refs`` (maybe none) to pick from."""
    FAIL = "fail"
    """The model could not be asked (``message`` says why); ``refs`` may still help."""
    CANCELLED = "cancelled"


@dataclass(frozen=True, slots=True)
class Advice:
    next: Next
    message: str
    """One sentence (or two) for the person."""
    calls: tuple[ValidatedCall, ...] = ()
    refs: tuple[str, ...] = ()
    """``skill.tool`` of tools to offer, the model's own guesses first."""
    missing: tuple[str, ...] = ()
    """Required parameters the first proposed call lacks."""
    unusual: tuple[str, ...] = ()
    """Model-chosen values to confirm before running (unusually large numbers)."""
    settings_link: bool = False
    """Offer a way to the model settings (the server is down, the model is missing …)."""
    descriptions: tuple[tuple[str, str], ...] = ()
    """``(ref, description)`` for ``refs``, for front ends that list them."""

    @property
    def failed(self) -> bool:
        return self.next is Next.FAIL


def ref_of(tool: ExposedTool) -> str:
    return tool_ref(tool.skill.name, tool.tool.name)


def _proposal(result: RouteResult, model: str) -> Advice:
    calls = tuple(c for c in result.calls if c.exposed is not None)
    first, first_tool = calls[0], calls[0].exposed
    assert first_tool is not None  # calls holds only the exposed ones
    missing = tuple(first.missing) if result.status is RouteStatus.NEEDS_ARGUMENTS else ()
    unusual = tuple(u for c in calls for u in c.unusual)
    note = f"Proposed by {model} for “{result.request}”. Check the values before you run it."
    if missing:
        note += f" It did not say: {', '.join(missing)}."
    if unusual:
        note += " Look closely: " + "; ".join(unusual) + "."
    if len(calls) > 1:
        others = ", ".join(ref_of(c.exposed) for c in calls[1:] if c.exposed is not None)
        note += f" It also proposed {len(calls) - 1} more call(s): {others}."
    return Advice(Next.PROPOSE, note, calls, (ref_of(first_tool),), missing, unusual)


def advise(result: RouteResult, model: str, where: str = "this mode") -> Advice:
    """The one mapping from a router result to what a front end does next (module docstring)."""
    status = result.status
    if status in (RouteStatus.OK, RouteStatus.NEEDS_ARGUMENTS) and any(
        c.exposed is not None for c in result.calls
    ):
        return _proposal(result, model)
    offered = {ref_of(m.item): m.item.tool.description for m in result.candidates}
    guesses = {ref_of(c.exposed): c.exposed.tool.description for c in result.calls if c.exposed}
    if status is RouteStatus.ASK_USER:
        pool = {**guesses, **offered}
        refs = tuple(pool)[:MAX_CHOICES]
        described = tuple((r, pool[r]) for r in refs)
        if refs:
            message = f"{model} was not sure what you meant — pick a tool:"
            return Advice(Next.CHOOSE, message, result.calls, refs, descriptions=described)
        message = f"{model} was not sure what you meant, and no tool is close."
        return Advice(Next.CHOOSE, message, result.calls)
    described = tuple(offered.items())
    refs = tuple(offered)
    if status is RouteStatus.ERROR:
        return Advice(
            Next.FAIL, result.message, (), refs, settings_link=True, descriptions=described
        )
    if status is RouteStatus.NO_TOOLS:
        return Advice(
            Next.CHOOSE, f"No tools are available in {where} — pick another mode in the tray menu."
        )
    if status is RouteStatus.CANCELLED:
        return Advice(Next.CANCELLED, "Cancelled.")
    message = result.message or f"{model} gave no usable answer."
    return Advice(Next.CHOOSE, message, (), refs, descriptions=described)
