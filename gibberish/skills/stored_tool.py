"""A tool restored from the parse cache, its parameters kept as plain tuples until used.

A warm load of 1,000 skills restores some 11,000 ``ParameterDefinition`` objects, each
through a Python call; most processes never look at them (a listing of names, the menu,
a model request that reads the router's saved analysis and declares a handful of tools).
The parse cache stores each tool's parameters as tuples of plain values instead, which
unpickle without a Python call each, and a ``StoredTool`` makes the definitions the
first time ``parameters`` is read (docs/performance.md, "Tools in the parse cache keep their parameters as tuples"). It is equal to,
and hashes like, the ``ToolDefinition`` a parse gives; ``dataclasses.replace`` on it
works as on any tool.
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

_SLOT = ToolDefinition.__dict__["parameters"]
"""The dataclass's own storage of ``parameters`` (the property below stands in front)."""
_TYPES = {t.value: t for t in ParameterType}
_FIELDS = ("name", "description", "parameters", "command", "line", "phrases")

Raw = tuple[Any, ...]
"""(name, type value, required, description, default, line, minimum, maximum)."""


class StoredTool(ToolDefinition):
    __slots__ = ("_raw",)

    @property
    def parameters(self) -> tuple[ParameterDefinition, ...]:
        raw = getattr(self, "_raw", None)
        if raw is None:
            return _SLOT.__get__(self)
        made = tuple(_parameter(r) for r in raw)
        _SLOT.__set__(self, made)
        object.__setattr__(self, "_raw", None)
        return made

    @parameters.setter
    def parameters(self, value: tuple[ParameterDefinition, ...]) -> None:
        # only the dataclass's __init__ sets it (through object.__setattr__), as on any tool
        _SLOT.__set__(self, value)
        object.__setattr__(self, "_raw", None)

    def parameter_dicts(self) -> list[dict[str, Any]]:
        """``ParameterDefinition.to_dict()`` of each parameter, made from the tuples when
        the definitions were never asked for: ``skills list --json`` lists every tool's
        parameters and would otherwise make 11,000 definitions at 1,000 skills only to
        turn them into these (a test holds both to the same output)."""
        raw = getattr(self, "_raw", None)
        if raw is None:
            return super().parameter_dicts()
        return [_as_dict(r) for r in raw]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolDefinition):
            return NotImplemented
        return all(getattr(self, f) == getattr(other, f) for f in _FIELDS)

    __hash__ = ToolDefinition.__hash__


def _parameter(raw: Raw) -> ParameterDefinition:
    name, kind, required, description, default, line, minimum, maximum = raw
    return ParameterDefinition(
        name, _TYPES[kind], required, description, default, line, minimum, maximum
    )


def _as_dict(raw: Raw) -> dict[str, Any]:
    name, kind, required, description, default, _line, minimum, maximum = raw
    shape = {
        "name": name,
        "type": kind,
        "required": required,
        "default": default,
        "description": description,
    }
    if minimum is not None:
        shape["minimum"] = minimum
    if maximum is not None:
        shape["maximum"] = maximum
    return shape


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
    by ``stored_tool`` (a tool not yet asked for its parameters keeps its tuples)."""
    raw = getattr(tool, "_raw", None) if isinstance(tool, StoredTool) else None
    if raw is None:
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
) -> StoredTool:
    """A ``StoredTool`` from what ``as_stored`` wrote; the parameters' shape is checked
    now (eight values each, a known type), so a damaged cache fails when it is read."""
    if type(raw) is not tuple or not all(
        type(r) is tuple and len(r) == 8 and r[1] in _TYPES for r in raw
    ):
        raise TypeError("a stored tool's parameters are tuples of eight plain values")
    tool = _new(StoredTool)
    _set(tool, "name", name)
    _set(tool, "description", description)
    _set(tool, "_raw", raw)
    _set(tool, "command", command)
    _set(tool, "line", line)
    _set(tool, "phrases", phrases)
    return tool


_new = object.__new__
_set = object.__setattr__
