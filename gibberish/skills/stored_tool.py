"""How the parse cache stores a tool: its parameters as tuples of plain values.

A warm load of 1,000 skills restores some 11,000 ``ParameterDefinition`` objects. Stored
as they are, each would carry its parameter type as an enum member, which pickle restores
through a Python call (``ParameterType("string")``). The cache stores each parameter as a
tuple of eight plain values instead, checked for shape when read, and makes the
definitions from them in one pass (a record is made in C: ADR 0100). A restored tool is
an ordinary ``ToolDefinition``, equal to the one a parse gives.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gibberish.skills.model import (
    CommandTemplate,
    ParameterDefinition,
    ParameterType,
    ToolDefinition,
)

_TYPES = {t.value: t for t in ParameterType}

Raw = tuple[Any, ...]
"""(name, type value, required, description, default, line, minimum, maximum)."""


def _raw(param: ParameterDefinition) -> Raw:
    return (
        param.name,
        param.type.value,
        param.required,
        param.description,
        param.default,
        param.line,
        param.minimum,
        param.maximum,
    )


def as_stored(tool: ToolDefinition) -> tuple[Any, ...]:
    """How a pickler stores ``tool``: its fields, the parameters as plain tuples, restored
    by ``stored_tool``."""
    raw = tuple(_raw(p) for p in tool.parameters)
    return (
        stored_tool,
        (tool.name, tool.description, raw, tool.command, tool.line, tool.phrases),
    )


def stored_tool(
    name: str,
    description: str,
    raw: Sequence[Raw],
    command: CommandTemplate | None,
    line: int | None,
    phrases: tuple[str, ...],
) -> ToolDefinition:
    """The tool ``as_stored`` wrote; the parameters' shape is checked (eight values each,
    a known type), so a damaged cache fails when it is read."""
    if type(raw) is not tuple or not all(
        type(r) is tuple and len(r) == 8 and r[1] in _TYPES for r in raw
    ):
        raise TypeError("a stored tool's parameters are tuples of eight plain values")
    parameters = tuple(
        ParameterDefinition(n, _TYPES[k], req, desc, default, ln, low, high)
        for n, k, req, desc, default, ln, low, high in raw
    )
    return ToolDefinition(name, description, parameters, command, line, phrases)
