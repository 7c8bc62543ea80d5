"""FunctionGemma's text format for gibberish's tools and conversations.

FunctionGemma (Gemma 3 270M tuned for tool use) reads its tools as text in a ``developer``
turn and writes calls as text, so the exact bytes matter: the model was trained on what
its chat template produces. ``functiongemma_template`` is that template in Python over the
chat APIs' data; this module feeds it gibberish's own tools (the JSON schemas the chat
APIs get, ``manifest.tool_schema``) and ``conversation.Message`` lists, so
``render_conversation`` is byte-identical to ``apply_chat_template`` with the model's own
``chat_template.jinja`` (the tests render the real file and compare; docs/model-feed.md,
ADR 0033). ``callparser`` reads the calls back.

What gibberish adds, on purpose:

* Control tokens of any prompt format (``<escape>``, ``<end_of_turn>``, ``<|im_end|>``,
  ``[INST]`` …) cannot occur inside text from outside: ``neutralize`` swaps their brackets
  for look-alike characters in descriptions, the person's words, call arguments and tool
  results, so none of them can end a turn or a string. The model's own earlier output is
  given back as it wrote it.
* ``<bos>`` is not written by default: runtimes (Ollama, llama.cpp) add the BOS token
  themselves. Pass ``bos=True`` for one that does not (and to compare with the template).
* A conversation without a system message gets the trigger sentence as its developer text,
  as the template's later revision writes it (``preamble=""`` renders the release's empty
  developer text; ADR 0033).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from gibberish.assistant.conversation import Message, ToolCall, tool_names
from gibberish.assistant.functiongemma_template import (
    format_argument,
    format_declaration,
    render_chat,
)
from gibberish.assistant.functiongemma_template import format_fields as _template_fields
from gibberish.assistant.functiongemma_template import render_call as _template_call
from gibberish.assistant.functiongemma_template import render_response as _template_response
from gibberish.assistant.functiongemma_tokens import (
    BOS,
    DEVELOPER_PROMPT,
    END_CALL,
    END_DECLARATION,
    END_OF_TURN,
    END_RESPONSE,
    ESCAPE,
    START_CALL,
    START_DECLARATION,
    START_OF_TURN,
    START_RESPONSE,
    STOP_SEQUENCES,
    neutralize,
)
from gibberish.assistant.manifest import parameter_description, tool_schema, tool_schemas
from gibberish.assistant.naming import ExposedTool


def inert(value: Any) -> Any:
    """``value`` with ``neutralize`` applied to every string in it, keys included."""
    if isinstance(value, str):
        return neutralize(value)
    if isinstance(value, Mapping):
        return {inert(k): inert(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [inert(v) for v in value]
    return value


def escape(text: str) -> str:
    """``<escape>text<escape>``, with control tokens inside ``text`` neutralized."""
    return ESCAPE + neutralize(text) + ESCAPE


def format_value(value: Any) -> str:
    """One value as the template writes a call argument: strings escaped, ``true``/
    ``false``, ``None``, numbers as Python prints them (``1.0``), ``{k:v,…}`` with bare
    dictsorted keys, ``[a,b]``."""
    return format_argument(inert(value), escape_keys=False)


def format_fields(mapping: Mapping[str, Any]) -> str:
    """``k1:v1,k2:v2`` with keys in dictsort order (the inside of a call or response)."""
    return _template_fields(inert(mapping))


def render_declaration(tool: ExposedTool) -> str:
    """One whole ``<start_function_declaration>…<end_function_declaration>`` block."""
    return START_DECLARATION + format_declaration(tool_schema(tool)) + END_DECLARATION


def render_turn(role: str, text: str) -> str:
    """``<start_of_turn>ROLE\nTEXT<end_of_turn>\n`` (text trimmed, as the template does)."""
    return f"{START_OF_TURN}{role}\n{text.strip()}{END_OF_TURN}\n"


def render_developer_turn(tools: Iterable[ExposedTool], system: str = DEVELOPER_PROMPT) -> str:
    """The developer turn: the system text directly followed by every declaration."""
    declarations = "".join([render_declaration(t) for t in tools])
    return f"{START_OF_TURN}developer\n{neutralize(system.strip())}{declarations}{END_OF_TURN}\n"


def render_call(name: str, arguments: Mapping[str, Any]) -> str:
    """``<start_function_call>call:NAME{k:v,…}<end_function_call>``."""
    return _template_call({"name": name, "arguments": inert(dict(arguments))})


def render_response(name: str, result: Mapping[str, Any] | str) -> str:
    """A tool's result as ``<start_function_response>response:NAME{…}<end_function_response>``.

    A mapping (a run's result envelope) is spread as ``key:value`` pairs; text becomes
    ``{value:<escape>text<escape>}``, as the template renders a string tool result.
    """
    fields = inert(result) if isinstance(result, Mapping) else {"value": neutralize(result)}
    return _template_response(name, fields)


def chat_message(message: Message, name: str = "") -> dict[str, Any]:
    """``message`` as a chat API's dict, every text from outside neutralized; ``name`` is
    the tool a ``tool`` message answers for (the template needs it)."""
    content = message.content if message.role == "assistant" else inert(message.content)
    data: dict[str, Any] = {"role": message.role, "content": content}
    if message.calls:
        data["tool_calls"] = [
            {
                "type": "function",
                "function": {"name": c.name, "arguments": inert(dict(c.arguments))},
            }
            for c in message.calls
        ]
    if message.role == "tool" and (name or message.name):
        data["name"] = name or message.name
    return data


def chat_messages(messages: Sequence[Message]) -> list[dict[str, Any]]:
    """Every message as ``chat_message`` gives it, each tool result named after its call."""
    names = iter(tool_names(list(messages)))
    return [chat_message(m, next(names) if m.role == "tool" else "") for m in messages]


def render_conversation(
    tools: Sequence[ExposedTool],
    messages: Sequence[Message],
    *,
    bos: bool = False,
    generation_prompt: bool = True,
    preamble: str = DEVELOPER_PROMPT,
) -> str:
    """The whole prompt for ``messages``, as the model's chat template renders it.

    A developer turn is written when there are tools or the first message is ``system``
    (its text, else ``preamble``, then the declarations). A model turn that calls tools
    stays open for the ``tool`` results that follow, and the model's next text continues
    that same turn. Raises ``TemplateError`` (a ``ValueError``) where the template would.
    """
    return render_chat(
        chat_messages(messages),
        tool_schemas(tools) or None,
        add_generation_prompt=generation_prompt,
        bos_token=BOS if bos else "",
        preamble=preamble,
    )


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
    "END_CALL",
    "END_DECLARATION",
    "END_OF_TURN",
    "END_RESPONSE",
    "ESCAPE",
    "START_CALL",
    "START_DECLARATION",
    "START_OF_TURN",
    "START_RESPONSE",
    "STOP_SEQUENCES",
    "Message",
    "ToolCall",
    "chat_message",
    "chat_messages",
    "escape",
    "format_fields",
    "format_value",
    "inert",
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
