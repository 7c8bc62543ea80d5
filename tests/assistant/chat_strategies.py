"""Hypothesis strategies for chat-API data: tool schemas, call arguments, conversations.

Shared by the template property tests and the call-parser round trip. Text never holds a
control token (the template copies text as it is; gibberish neutralizes it, which
``test_template.py`` checks on its own), so what is generated is what a model can read.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import strategies as st

from gibberish.assistant.functiongemma_tokens import neutralize

NAMES = st.from_regex(r"[A-Za-z_][A-Za-z0-9_-]{0,11}", fullmatch=True)
"""Tool names as exposed (``naming``): letters, digits, ``_`` and ``-``."""

KEYS = st.from_regex(r"[A-Za-zé_0-9][A-Za-zé_0-9. -]{0,8}[A-Za-zé_0-9.-]|[A-Za-z_]", fullmatch=True)
"""Keys of arguments and nested objects: no delimiter (``:,{}[]<>"``), no edge spaces."""

TEXT = st.text(
    alphabet=st.sampled_from(list("abcXYZ é✓ ,:{}[]<>\"'\\/\n\t0.-_escape")), max_size=24
).filter(lambda s: neutralize(s) == s and "<escape>" not in s)

SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
)

VALUES = st.recursive(
    SCALARS,
    lambda inner: st.one_of(st.lists(inner, max_size=4), st.dictionaries(KEYS, inner, max_size=4)),
    max_leaves=12,
)

ARGUMENTS = st.dictionaries(KEYS, VALUES, max_size=5)

TYPES = st.sampled_from(["string", "integer", "number", "boolean", "array", "object", "STRING"])


@st.composite
def property_schemas(draw: Any, depth: int = 0) -> dict[str, Any]:
    """One JSON-schema property of any shape the template treats differently."""
    kind = draw(TYPES)
    schema: dict[str, Any] = {"type": kind}
    if draw(st.booleans()):
        schema["description"] = draw(TEXT)
    if kind.lower() == "string" and draw(st.booleans()):
        schema["enum"] = draw(st.lists(TEXT, max_size=3))
    if kind == "array" and draw(st.booleans()):
        items: dict[str, Any] = {"type": draw(st.sampled_from(["string", ["string", "null"]]))}
        if draw(st.booleans()):
            items["description"] = draw(st.one_of(st.none(), TEXT))
        if draw(st.booleans()):
            items["enum"] = draw(st.lists(TEXT, max_size=2))
        if depth < 2 and draw(st.booleans()):
            items["properties"] = draw(properties(depth + 1))
            items["required"] = sorted(items["properties"])[:1]
        schema["items"] = items
    if kind == "object" and depth < 2 and draw(st.booleans()):
        schema["properties"] = draw(properties(depth + 1))
        if draw(st.booleans()):
            schema["required"] = sorted(schema["properties"])[:2]
    if draw(st.booleans()):
        schema["default"] = draw(SCALARS)
    return schema


def properties(depth: int = 0) -> st.SearchStrategy[dict[str, Any]]:
    names = st.one_of(KEYS, st.sampled_from(["type", "description", "Zed", "a", "B"]))
    return st.dictionaries(names, property_schemas(depth), max_size=4)


@st.composite
def tool_schemas(draw: Any) -> dict[str, Any]:
    """One ``{"type": "function", "function": …}`` tool."""
    function: dict[str, Any] = {"name": draw(NAMES), "description": draw(TEXT)}
    if draw(st.integers(0, 4)):
        props = draw(properties())
        parameters: dict[str, Any] = {"type": draw(st.sampled_from(["object", "OBJECT"]))}
        if props or draw(st.booleans()):
            parameters["properties"] = props
        if props and draw(st.booleans()):
            parameters["required"] = sorted(props)[:2]
        function["parameters"] = parameters
    return {"type": "function", "function": function}


TOOL_SETS = st.lists(tool_schemas(), max_size=3)


@st.composite
def calls(draw: Any, as_json: bool = False) -> dict[str, Any]:
    """One entry of a message's ``tool_calls``; ``as_json`` gives the arguments as text."""
    arguments: Any = draw(ARGUMENTS)
    if as_json:
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"type": "function", "function": {"name": draw(NAMES), "arguments": arguments}}


@st.composite
def tool_messages(draw: Any) -> dict[str, Any]:
    shape = draw(st.sampled_from(["text", "mapping", "list"]))
    name = draw(NAMES)
    if shape == "text":
        return {"role": "tool", "name": name, "content": draw(TEXT)}
    if shape == "mapping":
        return {"role": "tool", "name": name, "content": draw(ARGUMENTS)}
    responses = st.fixed_dictionaries({"name": NAMES, "response": ARGUMENTS})
    return {"role": "tool", "content": draw(st.lists(responses, min_size=1, max_size=2))}


@st.composite
def conversations(draw: Any) -> list[dict[str, Any]]:
    """A first system/developer message or none, then turns of every kind in any order."""
    messages: list[dict[str, Any]] = []
    first = draw(st.sampled_from(["system", "developer", None]))
    if first:
        messages.append({"role": first, "content": draw(TEXT)})
    parts = st.lists(
        st.one_of(
            st.builds(lambda t: {"type": "text", "text": t}, TEXT), st.just({"type": "image"})
        ),
        max_size=3,
    )
    user = st.builds(lambda t: {"role": "user", "content": t}, st.one_of(TEXT, parts))
    assistant = st.builds(
        lambda t, cs: {"role": "assistant", "content": t, **({"tool_calls": cs} if cs else {})},
        st.one_of(st.none(), TEXT),
        st.lists(st.one_of(calls(), calls(as_json=True)), max_size=2),
    )
    messages.extend(
        draw(st.lists(st.one_of(user, assistant, tool_messages()), min_size=1, max_size=6))
    )
    return messages
