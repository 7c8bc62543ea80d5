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
as leaving it out. An object (``{…}``) is refused with a sentence saying that parameters take
no objects (docs/skill-format.md), never mistaken for an unknown tool.

Numbers a model chose are bounded: a parameter's own range (``minimum``/``maximum``, when
the parameter table declares one) makes a value outside it ``invalid``; without one, a value
outside ``DEFAULT_RANGE`` is kept but listed in ``unusual`` so the caller asks the person
before running (``git_log count=2000000000000000`` is almost certainly not what they meant).
"""

from __future__ import annotations

from collections.abc import Mapping
from enum import StrEnum
from typing import Any

from msgspec import Struct, field

from gibberish.assistant.callparser import ParsedCall
from gibberish.assistant.naming import ExposedTool, ToolCatalog
from gibberish.skills.model import ParameterDefinition, ParameterType
from gibberish.skills.render import RenderError, coerce_value

DEFAULT_RANGE = (-1_000_000, 1_000_000)
"""Integers and numbers a model chose outside this range need the person's confirmation."""


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


class ValidatedCall(Struct, frozen=True):
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
    unusual: tuple[str, ...] = ()
    """Sentences about numbers outside the sane default range: ask before running."""

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
            "unusual": list(self.unusual),
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


def _has_object(value: Any) -> bool:
    if isinstance(value, Mapping):
        return True
    return isinstance(value, list | tuple) and any(_has_object(v) for v in value)


def check_range(param: ParameterDefinition, value: Any) -> tuple[str | None, str | None]:
    """(problem, unusual) for a coerced number: outside the parameter's own range is a
    problem; outside ``DEFAULT_RANGE`` (when the parameter has no range) is unusual."""
    if param.type not in (ParameterType.INTEGER, ParameterType.NUMBER) or isinstance(value, bool):
        return None, None
    low, high = getattr(param, "minimum", None), getattr(param, "maximum", None)
    if low is not None or high is not None:
        if (low is not None and value < low) or (high is not None and value > high):
            span = f"{'' if low is None else low}–{'' if high is None else high}"
            return f"{param.name}={value} is outside its range ({span})", None
        return None, None
    if not DEFAULT_RANGE[0] <= value <= DEFAULT_RANGE[1]:
        return None, (
            f"{param.name}={value} is unusually large "
            f"(outside {DEFAULT_RANGE[0]:,}–{DEFAULT_RANGE[1]:,})"
        )
    return None, None


class _Checked(Struct):
    coerced: dict[str, Any] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    unusual: list[str] = field(default_factory=list)
    invalid: bool = False

    def refuse(self, problem: str) -> None:
        self.invalid = True
        self.problems.append(problem)


def _check_one(
    checked: _Checked, tool: ExposedTool, param: ParameterDefinition, value: Any
) -> None:
    if _has_object(value):
        checked.refuse(
            f"{tool.name}: argument {param.name!r} is an object, but tool parameters take "
            "text, numbers, true/false or lists of text — give a plain value"
        )
        return
    try:
        new = coerce_argument(param, value)
    except CoercionError as exc:
        checked.refuse(exc.message)
        return
    problem, unusual = check_range(param, new)
    if problem:
        checked.refuse(problem)
        return
    if unusual:
        checked.unusual.append(unusual)
    if type(new) is not type(value) or new != value:
        checked.changed.append(param.name)
    checked.coerced[param.name] = new


def validate_arguments(
    tool: ExposedTool, arguments: Mapping[str, Any]
) -> tuple[_Checked, list[str]]:
    """The checked arguments and the names of required ones that are missing."""
    checked = _Checked()
    known = {p.name: p for p in tool.parameters}
    for key, value in arguments.items():
        param = known.get(key)
        if param is None:
            allowed = ", ".join(known) or "none"
            checked.refuse(f"{tool.name} has no argument {key!r} (arguments: {allowed})")
        elif value is not None:
            _check_one(checked, tool, param, value)
    missing = [p.name for p in tool.parameters if p.required and arguments.get(p.name) is None]
    checked.problems.extend(f"required argument {name!r} is missing" for name in missing)
    return checked, missing


def validate_call(
    call: ParsedCall | tuple[str, Mapping[str, Any]], catalog: ToolCatalog
) -> ValidatedCall:
    """Resolve the name in ``catalog`` and check the arguments against the tool's schema."""
    arguments: Mapping[str, Any]
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
    checked, missing = validate_arguments(exposed, arguments)
    if checked.invalid:
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
        checked.coerced,
        tuple(checked.problems),
        tuple(missing),
        tuple(checked.changed),
        exposed,
        tuple(checked.unusual),
    )
