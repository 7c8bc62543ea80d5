"""Check a model's call against the tool's schema before anyone acts on it.

A call a model writes is a proposal: it may name a tool that does not exist, invent an
argument, give text where a number belongs or leave out something required. ``validate_call``
turns it into a ``ValidatedCall`` whose ``status`` says which of these happened, so the UI
can act (ask for the missing values, offer other tools) instead of failing late.

Coercion is the command-template renderer's own (``gibberish.skills.render.coerce_value``),
so what validates here is exactly what the runner will accept: integer from ``"5"`` or
``5.0``; number from numeric text; boolean from ``true/false/yes/no/1/0`` (any case) or 0/1;
string from a number; array from a list of strings and numbers. A single text is *not* split
or wrapped into a list, and no value may contain a NUL byte. ``null`` for an argument counts
as leaving it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from gibberish.assistant.callparser import ParsedCall
from gibberish.assistant.naming import ExposedTool, ToolCatalog
from gibberish.skills.model import ParameterDefinition
from gibberish.skills.render import RenderError, coerce_value


class CallStatus(StrEnum):
    OK = "ok"
    MISSING_ARGUMENTS = "missing_arguments"
    """The tool is known and every given argument is fine; required ones are missing."""
    UNKNOWN_TOOL = "unknown_tool"
    INVALID = "invalid"
    """An unknown argument or a value of the wrong type."""


class CoercionError(ValueError):
    """A value that does not fit its parameter; ``message`` is a sentence for a person."""

    def __init__(self, parameter: str, message: str) -> None:
        super().__init__(message)
        self.parameter = parameter
        self.message = message


@dataclass(frozen=True, slots=True)
class ValidatedCall:
    status: CallStatus
    name: str
    """The name the model used."""
    skill: str | None = None
    tool: str | None = None
    arguments: Mapping[str, Any] = field(default_factory=dict)
    """The arguments that passed, already coerced to their parameter types."""
    problems: tuple[str, ...] = ()
    """One sentence per problem, for people."""
    missing: tuple[str, ...] = ()
    """Names of required parameters that were not given (the UI asks for these)."""
    coerced: tuple[str, ...] = ()
    """Names of arguments whose value had to be converted (e.g. ``"5"`` → 5)."""
    exposed: ExposedTool | None = None

    @property
    def ok(self) -> bool:
        return self.status is CallStatus.OK

    def to_dict(self) -> dict[str, Any]:
        return {
            "status": self.status.value,
            "name": self.name,
            "skill": self.skill,
            "tool": self.tool,
            "arguments": dict(self.arguments),
            "problems": list(self.problems),
            "missing": list(self.missing),
            "coerced": list(self.coerced),
        }


def coerce_argument(param: ParameterDefinition, value: Any) -> Any:
    """``value`` converted to ``param.type``, or ``CoercionError`` saying why it cannot be.

    The rules are the command-template renderer's (``gibberish.skills.render.coerce_value``),
    so a call that validates here is a call the runner accepts.
    """
    try:
        return coerce_value(param, value)
    except RenderError as exc:
        raise CoercionError(exc.parameter or param.name, exc.message) from None


def validate_arguments(
    tool: ExposedTool, arguments: Mapping[str, Any]
) -> tuple[dict[str, Any], list[str], list[str], list[str], bool]:
    """(coerced, problems, missing, coerced_names, invalid) for ``arguments`` against ``tool``."""
    coerced: dict[str, Any] = {}
    problems: list[str] = []
    changed: list[str] = []
    invalid = False
    known = {p.name: p for p in tool.parameters}
    for key, value in arguments.items():
        param = known.get(key)
        if param is None:
            invalid = True
            allowed = ", ".join(known) or "none"
            problems.append(f"{tool.name} has no argument {key!r} (arguments: {allowed})")
            continue
        if value is None:
            continue
        try:
            new = coerce_argument(param, value)
        except CoercionError as exc:
            invalid = True
            problems.append(exc.message)
            continue
        if type(new) is not type(value) or new != value:
            changed.append(key)
        coerced[key] = new
    missing = [p.name for p in tool.parameters if p.required and arguments.get(p.name) is None]
    problems.extend(f"required argument {name!r} is missing" for name in missing)
    return coerced, problems, missing, changed, invalid


def validate_call(
    call: ParsedCall | tuple[str, Mapping[str, Any]], catalog: ToolCatalog
) -> ValidatedCall:
    """Resolve the name in ``catalog`` and check the arguments against the tool's schema."""
    if isinstance(call, ParsedCall):
        name, arguments = call.name, call.arguments
    else:
        name, arguments = call
    exposed = catalog.resolve(name)
    if exposed is None:
        return ValidatedCall(
            CallStatus.UNKNOWN_TOOL,
            name,
            arguments=dict(arguments),
            problems=(f"there is no tool called {name!r}",),
        )
    coerced, problems, missing, changed, invalid = validate_arguments(exposed, arguments)
    if invalid:
        status = CallStatus.INVALID
    elif missing:
        status = CallStatus.MISSING_ARGUMENTS
    else:
        status = CallStatus.OK
    return ValidatedCall(
        status,
        name,
        exposed.skill.name,
        exposed.tool.name,
        coerced,
        tuple(problems),
        tuple(missing),
        tuple(changed),
        exposed,
    )
