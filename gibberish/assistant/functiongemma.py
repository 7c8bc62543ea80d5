"""FunctionGemma's text format: declarations, whole conversations, calls and responses.

FunctionGemma (Gemma 3 270M tuned for tool use) reads its tools as text in a ``developer``
turn and writes calls as text, so the exact bytes matter: the model was trained on what
its chat template produces. This module renders that text; ``callparser`` reads it.
``render_conversation`` is byte-identical to the chat template rendered with Jinja2 (as
``transformers.apply_chat_template`` does) for the same tools and messages — the test suite
renders a reconstruction of the template and compares (docs/model-feed.md says what was
reconstructed from which published source, and where Ollama's renderer differs).

Decisions where the format leaves room (all in docs/model-feed.md):

* A parameter default is not a key the template renders; ``(default: X)`` is appended to
  the parameter's description (unless it already says so).
* Control tokens of any prompt format (``<escape>``, ``<end_of_turn>``, ``<|im_end|>``,
  ``[INST]`` …) cannot occur inside text we render: ``neutralize`` swaps their brackets for
  look-alike characters, so a description or a tool's output cannot end a turn or a string.
* ``<bos>`` is not written by default: runtimes (Ollama, llama.cpp) add the BOS token
  themselves. Pass ``bos=True`` for one that does not (and to compare with the template).
* Keys are sorted like Jinja's ``dictsort``: case-insensitively, ties in the given order.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gibberish.assistant.conversation import Message, ToolCall, tool_names
from gibberish.assistant.naming import ExposedTool
from gibberish.skills.model import ParameterDefinition, ParameterType

DEVELOPER_PROMPT = "You are a model that can do function calling with the following functions"

ESCAPE = "<escape>"
START_OF_TURN = "<start_of_turn>"
END_OF_TURN = "<end_of_turn>"
START_DECLARATION = "<start_function_declaration>"
END_DECLARATION = "<end_function_declaration>"
START_CALL = "<start_function_call>"
END_CALL = "<end_function_call>"
START_RESPONSE = "<start_function_response>"
END_RESPONSE = "<end_function_response>"
BOS = "<bos>"

STOP_SEQUENCES = (END_OF_TURN, START_RESPONSE)
"""Where generation should stop: the end of the model's turn, or where a function response
would begin (Google lists ``<start_function_response>`` as an additional stop sequence)."""

_CONTROL_TOKEN = re.compile(
    r"<(?:bos|eos|pad|unk|mask|escape|start_of_turn|end_of_turn|start_of_image|end_of_image"
    r"|(?:start|end)_function_(?:declaration|call|response))>"  # Gemma 3 / FunctionGemma
    r"|<\|[^<>\n]{0,40}?\|?>|<[^<>|\n]{1,40}\|>"  # <|im_start|>, <|eot_id|>, <|turn>, <turn|> …
    r"|</?(?:s|tool_call|tool_response|tools|think)>"  # Llama 2 / Hermes / Qwen / SmolLM
    r"|\[/?(?:INST|SYS|TOOL_CALLS|AVAILABLE_TOOLS|TOOL_RESULTS|TOOL_CONTENT)\]",  # Mistral
    re.IGNORECASE,
)
_LOOKALIKE = str.maketrans({"<": "‹", ">": "›", "[": "⟦", "]": "⟧"})


def neutralize(text: str) -> str:
    """``text`` with every prompt-format control token made inert (``<escape>`` →
    ``‹escape›``). Only brackets are replaced, never added, so no new token can appear."""
    if "<" not in text and "[" not in text:
        return text
    return _CONTROL_TOKEN.sub(lambda m: m.group(0).translate(_LOOKALIKE), text)


def _dictsort(keys: Iterable[str]) -> list[str]:
    """Jinja's ``dictsort``: case-insensitive, stable for keys that differ only in case."""
    return sorted(keys, key=str.lower)


def escape(text: str) -> str:
    """``<escape>text<escape>``, with control tokens inside ``text`` neutralized."""
    return ESCAPE + neutralize(text) + ESCAPE


def format_value(value: Any) -> str:
    """One value in FunctionGemma syntax: strings escaped, bare numbers/true/false/null,
    ``{k:v,…}`` with sorted bare keys, ``[a,b]``. Floats print as Jinja prints them
    (``1.0``, ``2.5``); non-finite floats become ``null``."""
    if isinstance(value, str):
        return escape(value)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return repr(value) if math.isfinite(value) else "null"
    if isinstance(value, Mapping):
        return "{" + format_fields(value) + "}"
    if isinstance(value, list | tuple):
        return "[" + ",".join([format_value(v) for v in value]) + "]"
    return escape(str(value))


def format_fields(mapping: Mapping[str, Any]) -> str:
    """``k1:v1,k2:v2`` with keys in dictsort order (the inside of a call or response)."""
    return ",".join([f"{k}:{format_value(mapping[k])}" for k in _dictsort(mapping)])


def _plain(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value)
    return str(value)


def parameter_description(param: ParameterDefinition) -> str:
    """The description a model reads, with ``(default: X)`` added when a default exists."""
    text = param.description.strip()
    if param.default is None or "(default" in text.lower():
        return text
    suffix = f"(default: {_plain(param.default)})"
    return f"{text} {suffix}" if text else suffix


def _property(param: ParameterDefinition) -> str:
    fields = ["description:" + escape(parameter_description(param))]
    if param.type is ParameterType.ARRAY:
        fields.append("items:{type:" + escape("STRING") + "}")
    fields.append("type:" + escape(param.type.value.upper()))
    return param.name + ":{" + ",".join(fields) + "}"


def render_declaration_body(tool: ExposedTool) -> str:
    """``declaration:NAME{description:…,parameters:{…} }`` without the surrounding tokens.

    The template closes ``properties`` and the declaration with ``" }"`` (a space before
    the brace); ``required`` keeps the declared order, properties are dictsorted.
    """
    params = _dictsort_params(tool.parameters)
    inner = []
    if params:
        inner.append("properties:{" + ",".join([_property(p) for p in params]) + " }")
    required = [p.name for p in tool.parameters if p.required]
    if required:
        inner.append("required:[" + ",".join([escape(n) for n in required]) + "]")
    inner.append("type:" + escape("OBJECT"))
    return (
        f"declaration:{tool.name}{{description:{escape(tool.description.strip())}"
        f",parameters:{{{','.join(inner)}}} }}"
    )


def _dictsort_params(params: Sequence[ParameterDefinition]) -> list[ParameterDefinition]:
    return sorted(params, key=lambda p: p.name.lower())


def render_declaration(tool: ExposedTool) -> str:
    """One whole ``<start_function_declaration>…<end_function_declaration>`` block."""
    return START_DECLARATION + render_declaration_body(tool) + END_DECLARATION


def render_turn(role: str, text: str) -> str:
    """``<start_of_turn>ROLE\\nTEXT<end_of_turn>\\n`` (text trimmed, as the template does)."""
    return f"{START_OF_TURN}{role}\n{text.strip()}{END_OF_TURN}\n"


def render_developer_turn(tools: Iterable[ExposedTool], system: str = DEVELOPER_PROMPT) -> str:
    """The developer turn: the system text directly followed by every declaration."""
    declarations = "".join([render_declaration(t) for t in tools])
    return f"{START_OF_TURN}developer\n{neutralize(system.strip())}{declarations}{END_OF_TURN}\n"


def render_call(name: str, arguments: Mapping[str, Any]) -> str:
    """``<start_function_call>call:NAME{k:v,…}<end_function_call>``."""
    return f"{START_CALL}call:{name}{{{format_fields(arguments)}}}{END_CALL}"


def render_response(name: str, result: Mapping[str, Any] | str) -> str:
    """A tool's result as ``<start_function_response>response:NAME{…}<end_function_response>``.

    A mapping (a run's result envelope) is spread as ``key:value`` pairs; text becomes
    ``{value:<escape>text<escape>}``, as the template renders a string tool result.
    """
    fields = format_fields(result) if isinstance(result, Mapping) else "value:" + escape(result)
    return f"{START_RESPONSE}response:{name}{{{fields}}}{END_RESPONSE}"


def render_conversation(
    tools: Sequence[ExposedTool],
    messages: Sequence[Message],
    *,
    bos: bool = False,
    generation_prompt: bool = True,
) -> str:
    """The whole prompt for ``messages``, as the chat template renders it.

    A developer turn is written when there are tools or the first message is ``system``
    (its text, then the declarations). A model turn that calls tools stays open for the
    ``tool`` results that follow, and the model's next text continues that same turn.
    """
    parts = [BOS] if bos else []
    loop = list(messages)
    if tools or (loop and loop[0].role in ("system", "developer")):
        system = loop.pop(0).text if loop and loop[0].role in ("system", "developer") else ""
        parts.append(render_developer_turn(tools, system))
    prev = _render_messages(loop, parts)
    if generation_prompt and prev == "tool_call":
        parts.append(START_RESPONSE)
    elif generation_prompt and prev != "tool_response":
        parts.append(f"{START_OF_TURN}model\n")
    return "".join(parts)


def _render_messages(loop: list[Message], parts: list[str]) -> str | None:
    """Append the turns of ``loop`` to ``parts``; the kind of the last one written."""
    names = iter(tool_names(loop))
    prev = None
    for message in loop:
        if message.role == "tool":
            parts.append(render_response(next(names), message.content))
            prev = "tool_response"
            continue
        if prev == "tool_call":
            raise ValueError("a model's tool call must be followed by the tool's response")
        role = "model" if message.role == "assistant" else message.role
        if prev != "tool_response":
            parts.append(f"{START_OF_TURN}{role}\n")
        text = message.text.strip()
        parts.append(text if role == "model" else neutralize(text))
        prev = "content"
        if message.calls:
            parts.extend(render_call(c.name, c.arguments) for c in message.calls)
            prev = "tool_call"
        else:
            parts.append(f"{END_OF_TURN}\n")
    return prev


def render_prompt(
    tools: Sequence[ExposedTool],
    request: str,
    *,
    followups: Sequence[tuple[str, str]] = (),
    bos: bool = False,
) -> str:
    """The prompt for one request: developer turn (trigger sentence + declarations), the
    user's turn, any ``(role, text)`` follow-ups, and the open model turn."""
    messages = [Message("system", DEVELOPER_PROMPT), Message("user", request)]
    messages.extend(Message("assistant" if r == "model" else r, t) for r, t in followups)
    return render_conversation(tools, messages, bos=bos)


__all__ = [
    "BOS",
    "DEVELOPER_PROMPT",
    "STOP_SEQUENCES",
    "Message",
    "ToolCall",
    "escape",
    "format_fields",
    "format_value",
    "neutralize",
    "parameter_description",
    "render_call",
    "render_conversation",
    "render_declaration",
    "render_developer_turn",
    "render_prompt",
    "render_response",
    "render_turn",
]
