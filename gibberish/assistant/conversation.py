"""A conversation with a model: system text, the person's turns, the model's turns and calls,
and tool results — the one shape every client and the FunctionGemma renderer take.

Roles follow the chat APIs: ``system`` (only as the first message), ``user``,
``assistant`` (text and/or ``calls``) and ``tool`` (a result; ``name`` says which tool,
``content`` is text or a mapping such as a run's result envelope).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from msgspec import Struct, field

ROLES = ("system", "developer", "user", "assistant", "tool")


class ToolCall(Struct, frozen=True):
    """A call the model made earlier in the conversation."""

    name: str
    arguments: Mapping[str, Any] = field(default_factory=dict)


class Message(Struct, frozen=True):
    role: str
    """``system``, ``user``, ``assistant`` or ``tool``."""
    content: str | Mapping[str, Any] = ""
    """Text; for a ``tool`` message also a mapping (a run's result envelope)."""
    calls: tuple[ToolCall, ...] = ()
    """An ``assistant`` message's calls."""
    name: str = ""
    """A ``tool`` message: the tool that answered (else taken from the calls before it)."""

    def __post_init__(self) -> None:
        if self.role not in ROLES:
            raise ValueError(f"unknown role {self.role!r} (one of {', '.join(ROLES)})")
        if not isinstance(self.content, str) and self.role != "tool":
            raise ValueError(f"a {self.role} message's content must be text")

    @property
    def text(self) -> str:
        """The content as text (a mapping is shown as JSON)."""
        if isinstance(self.content, str):
            return self.content
        import json

        return json.dumps(dict(self.content), ensure_ascii=False, sort_keys=True)


def tool_names(messages: tuple[Message, ...] | list[Message]) -> list[str]:
    """The tool each ``tool`` message answers for: its ``name``, or the matching call of the
    ``assistant`` message before it (the n-th result answers the n-th call)."""
    names: list[str] = []
    calls: tuple[ToolCall, ...] = ()
    seen = 0
    for message in messages:
        if message.role == "assistant":
            calls, seen = message.calls, 0
        elif message.role == "tool":
            inferred = calls[seen].name if seen < len(calls) else ""
            names.append(message.name or inferred)
            seen += 1
    return names
