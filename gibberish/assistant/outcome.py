"""A model's answer worded for the person — one mapping from its status, for every front end.

The command line (``gibberish ask``) and the tray's command bar both put the router's
``Proposal`` through ``advise``: the same proposal back, with the sentence for the person
(``message``), one per proposed call (``notes``), the tools to pick from (``choices``, the
model's own guesses first) and whether to offer the model settings. Each front end only
decides how to show it.
"""

from __future__ import annotations

from msgspec.structs import replace

from gibberish.assistant.naming import ExposedTool
from gibberish.assistant.proposal import PROPOSING, Choice, Proposal, ProposalStatus
from gibberish.skills.model import tool_ref
from gibberish.words import plural

MAX_CHOICES = 5


def ref_of(tool: ExposedTool) -> str:
    return tool_ref(tool.skill.name, tool.tool.name)


def _proposal(proposal: Proposal[None], model: str) -> Proposal[None]:
    calls = tuple(c for c in proposal.calls if c.exposed is not None)
    first_tool = calls[0].exposed
    assert first_tool is not None  # calls holds only the exposed ones
    worded = replace(proposal, calls=calls)
    missing, unusual = worded.missing, worded.unusual
    request = proposal.request
    note = f"Proposed by {model} for “{request}”. Check the values before you run it."
    if missing:
        note += f" It did not say: {', '.join(missing)}."
    if unusual:
        note += " Look closely: " + "; ".join(unusual) + "."
    if len(calls) > 1:
        others = ", ".join(ref_of(c.exposed) for c in calls[1:] if c.exposed is not None)
        note += f" It also proposed {plural(len(calls) - 1, 'more call')}: {others}."
    n = len(calls)
    later = tuple(
        f"Call {k} of {n} proposed by {model} for “{request}”. Check the values before you run it."
        for k in range(2, n + 1)
    )
    return replace(
        worded, message=note, notes=(note, *later), choices=(Choice(ref_of(first_tool)),)
    )


def advise(proposal: Proposal[None], model: str, where: str = "this mode") -> Proposal[None]:
    """The router's ``proposal`` worded for the person (module docstring)."""
    status = proposal.status
    if status in PROPOSING and any(c.exposed is not None for c in proposal.calls):
        return _proposal(proposal, model)
    offered = {ref_of(m.item): m.item.tool.description for m in proposal.candidates}
    if status is ProposalStatus.ASK_USER:
        guesses = {
            ref_of(c.exposed): c.exposed.tool.description for c in proposal.calls if c.exposed
        }
        pool = {**guesses, **offered}
        choices = tuple(Choice(r, pool[r]) for r in tuple(pool)[:MAX_CHOICES])
        if choices:
            message = f"{model} was not sure what you meant — pick a tool:"
        else:
            message = f"{model} was not sure what you meant, and no tool is close."
        return replace(proposal, message=message, choices=choices)
    choices = tuple(Choice(r, d) for r, d in offered.items())
    if status is ProposalStatus.ERROR:
        return replace(proposal, calls=(), choices=choices, settings_link=True)
    if status is ProposalStatus.NO_TOOLS:
        message = f"No tools are available in {where} — pick another mode in the tray menu."
        return replace(proposal, message=message)
    if status is ProposalStatus.CANCELLED:
        return replace(proposal, message="Cancelled.")
    message = proposal.message or f"{model} gave no usable answer."
    return replace(
        proposal, status=ProposalStatus.ASK_USER, calls=(), message=message, choices=choices
    )
