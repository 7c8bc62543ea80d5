"""FunctionGemma's chat template, written in Python, over the chat APIs' plain data.

``render_chat(messages, tools)`` produces the bytes ``transformers.apply_chat_template``
produces with the ``chat_template.jinja`` of ``google/functiongemma-270m-it`` for the same
``messages`` and ``tools`` (OpenAI-style dicts), including the template's quirks, because
the model was trained on exactly those bytes:

* keys are sorted by Jinja's ``dictsort`` (case-insensitive, ties in the given order);
* closing braces follow each other without a space (``…<escape>}}<end_function_declaration>``);
* a property without a description is ``description:<escape><escape>``; properties named
  ``description``, ``type``, ``properties``, ``required`` or ``nullable`` are not declared;
* values print as Jinja prints Python values (``None``, ``1.0``, ``true``), strings are
  ``<escape>``-wrapped, keys inside call arguments and results are bare;
* arguments given as a JSON *string* (llama.cpp passes them so) follow ``{`` after twenty
  spaces of the template's own indentation;
* after a trailing model turn with calls, ``<start_function_response>`` is opened.

Nothing is neutralized here: this is the template, byte for byte. ``functiongemma`` turns
gibberish's own tools and messages into this data with control tokens made inert.
The tests render the real template file next to this module and compare
(docs/model-feed.md, ADR 0033).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from gibberish.assistant.functiongemma_tokens import (
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
)

STANDARD_KEYS = frozenset({"description", "type", "properties", "required", "nullable"})
"""Property names the template takes for schema keywords and leaves out of a declaration."""

JSON_ARGUMENTS_INDENT = " " * 20
"""What the template writes before call arguments given as a JSON string."""


class TemplateError(ValueError):
    """A conversation the template refuses (it calls ``raise_exception``)."""


class _Missing:
    """Jinja's default ``Undefined``: prints as nothing, is false, has no items."""

    def __bool__(self) -> bool:
        return False

    def __str__(self) -> str:
        return ""


MISSING = _Missing()


def _get(value: Any, key: str) -> Any:
    """``value[key]`` as Jinja looks it up: missing (not an error) when there is none."""
    if isinstance(value, Mapping) and key in value:
        return value[key]
    return MISSING


def _text(value: Any) -> str:
    """``{{ value }}``: ``str`` of the value, nothing for a missing one."""
    return str(value)


def _upper(value: Any) -> str:
    return str(value).upper()


def _is_sequence(value: Any) -> bool:
    """Jinja's ``is sequence``: anything with a length and items (strings included)."""
    return hasattr(value, "__len__") and hasattr(value, "__getitem__")


def dictsort(mapping: Mapping[Any, Any]) -> list[tuple[Any, Any]]:
    """Jinja's ``dictsort``: by key, ignoring case, ties kept in the mapping's order."""
    return sorted(
        mapping.items(), key=lambda kv: kv[0].lower() if isinstance(kv[0], str) else kv[0]
    )


def format_argument(value: Any, escape_keys: bool = True) -> str:
    """The template's ``format_argument``: one value in FunctionGemma syntax."""
    if isinstance(value, str):
        return ESCAPE + value + ESCAPE
    if value is True or value is False:
        return "true" if value else "false"
    if isinstance(value, Mapping):
        fields = []
        for key, item in dictsort(value):
            name = ESCAPE + key + ESCAPE if escape_keys else _text(key)
            fields.append(name + ":" + format_argument(item, escape_keys))
        return "{" + ",".join(fields) + "}"
    if _is_sequence(value):
        return "[" + ",".join(format_argument(v, escape_keys) for v in value) + "]"
    return _text(value)


def format_fields(mapping: Mapping[Any, Any]) -> str:
    """``k:v,…`` with bare keys in dictsort order: the inside of a call or a response."""
    return ",".join(f"{_text(k)}:{format_argument(v, False)}" for k, v in dictsort(mapping))


def _escaped_list(items: Any) -> str:
    return ",".join(ESCAPE + _text(item) + ESCAPE for item in items)


def _object_property(value: Mapping[str, Any]) -> str:
    nested = _get(value, "properties")
    inner = format_parameters(nested if isinstance(nested, Mapping) else value)
    text = ",properties:{" + inner + "}"
    if _get(value, "required"):
        text += ",required:[" + _escaped_list(value["required"]) + "]"
    return text


def _items_property(items: Mapping[str, Any]) -> str:
    fields = []
    for key, item in dictsort(items):
        if item is None:
            continue
        if key == "properties":
            inner = format_parameters(item) if isinstance(item, Mapping) else ""
            fields.append("properties:{" + inner + "}")
        elif key == "required":
            fields.append("required:[" + _escaped_list(item) + "]")
        elif key == "type":
            upper = _upper(item) if isinstance(item, str) else [_upper(t) for t in item]
            fields.append("type:" + format_argument(upper))
        else:
            fields.append(_text(key) + ":" + format_argument(item))
    return ",items:{" + ",".join(fields) + "}"


def _property(key: str, value: Any) -> str:
    kind = _upper(_get(value, "type"))
    text = f"{key}:{{description:{ESCAPE}{_text(_get(value, 'description'))}{ESCAPE}"
    if kind == "STRING" and _get(value, "enum"):
        text += ",enum:" + format_argument(value["enum"])
    elif kind == "OBJECT":
        text += _object_property(value if isinstance(value, Mapping) else {})
    elif kind == "ARRAY":
        items = _get(value, "items")
        if isinstance(items, Mapping) and items:
            text += _items_property(items)
    return text + f",type:{ESCAPE}{kind}{ESCAPE}}}"


def format_parameters(properties: Mapping[str, Any]) -> str:
    """The template's ``format_parameters``: every property but the schema keywords."""
    return ",".join(
        _property(key, value) for key, value in dictsort(properties) if key not in STANDARD_KEYS
    )


def format_declaration(tool: Mapping[str, Any]) -> str:
    """``declaration:NAME{description:…,parameters:{…}}`` for one ``{"function": …}`` tool."""
    function = _get(tool, "function")
    text = f"declaration:{_text(_get(function, 'name'))}"
    text += f"{{description:{ESCAPE}{_text(_get(function, 'description'))}{ESCAPE}"
    params = _get(function, "parameters")
    if params:
        text += ",parameters:{"
        if _get(params, "properties"):
            text += "properties:{" + format_parameters(params["properties"]) + "},"
        if _get(params, "required"):
            text += "required:[" + _escaped_list(params["required"]) + "],"
        if _get(params, "type"):
            text += f"type:{ESCAPE}{_upper(params['type'])}{ESCAPE}}}"
    return (text + "}").strip()


def render_call(function: Mapping[str, Any]) -> str:
    """One ``<start_function_call>call:NAME{…}<end_function_call>`` of a message's calls."""
    text = START_CALL + "call:" + _text(_get(function, "name")) + "{"
    arguments = _get(function, "arguments")
    if isinstance(arguments, Mapping):
        text += format_fields(arguments)
    elif isinstance(arguments, str):
        text += JSON_ARGUMENTS_INDENT + arguments
    return text + "}" + END_CALL


def render_response(name: Any, fields: Mapping[str, Any]) -> str:
    """``<start_function_response>response:NAME{k:v,…}<end_function_response>``."""
    return (
        f"{START_RESPONSE}response:{_text(name).strip()}{{{format_fields(fields)}}}{END_RESPONSE}"
    )


def _tool_responses(message: Mapping[str, Any]) -> str:
    """A ``tool`` message: a mapping, a text, or a list of mappings, as the template takes them."""
    content = _get(message, "content")
    if not content:
        return ""
    named = "name" in message
    if isinstance(content, str):
        if not named:
            raise TemplateError("Invalid tool response: 'name' must be provided.")
        return render_response(message["name"], {"value": content})
    if not isinstance(content, Mapping) and not _is_sequence(content):
        raise TemplateError("Invalid content type in tool message.")
    items = [content] if isinstance(content, Mapping) else content
    parts = []
    for item in items:
        if not isinstance(item, Mapping):
            raise TemplateError("Invalid tool response message: responses must be mappings")
        if "name" in item and "response" in item:
            parts.append(render_response(item["name"], item["response"]))
        elif named:
            parts.append(render_response(message["name"], item))
        else:
            raise TemplateError("Invalid tool response mapping: 'name' is missing.")
    return "".join(parts)


def _content(content: Any) -> str:
    """A user/model/system message's content: text trimmed, or its text and image parts."""
    if isinstance(content, str):
        return content.strip()
    if not _is_sequence(content):
        raise TemplateError("Invalid content type in user/assistant message")
    parts = []
    for item in content:
        kind = _get(item, "type")
        if kind == "image":
            parts.append("<start_of_image>")
        elif kind == "text":
            parts.append(_text(_get(item, "text")).strip())
    return "".join(parts)


def _developer_turn(
    messages: Sequence[Mapping[str, Any]], tools: Sequence[Mapping[str, Any]] | None, preamble: str
) -> tuple[str, Sequence[Mapping[str, Any]]]:
    """The developer turn (system text or ``preamble``, then declarations) and the rest."""
    if not messages:
        raise TemplateError("a conversation needs at least one message")
    first_role = _get(messages[0], "role")
    if not tools and first_role not in ("system", "developer"):
        return "", messages
    text = START_OF_TURN + "developer\n"
    rest = messages
    if first_role in ("system", "developer"):
        content = _get(messages[0], "content")
        if isinstance(content, str):
            text += content.strip()
        elif _is_sequence(content):
            text += "".join(
                _text(_get(i, "text")).strip() for i in content if _get(i, "type") == "text"
            )
        rest = messages[1:]
    else:
        text += preamble
    for tool in tools or ():
        text += START_DECLARATION + format_declaration(tool) + END_DECLARATION
    return text + END_OF_TURN + "\n", rest


def _turn(message: Mapping[str, Any], prev: str | None, last: bool) -> tuple[str, str | None]:
    """One message of the loop and the kind it leaves behind (``content``, ``tool_call`` …)."""
    role = _get(message, "role")
    if role == "tool":
        return _tool_responses(message), "tool_response"
    role = "model" if role == "assistant" else _text(role)
    text = "" if prev == "tool_response" else START_OF_TURN + role + "\n"
    kind = None
    content = _get(message, "content")
    if "content" in message and content is not None:
        text += _content(content)
        kind = "content"
    calls = _get(message, "tool_calls")
    if calls:
        text += "".join(render_call(_get(call, "function")) for call in calls)
        text += START_RESPONSE if last else ""
        kind = "tool_call"
    return text, kind


def render_chat(
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Mapping[str, Any]] | None = None,
    *,
    add_generation_prompt: bool = False,
    bos_token: str = "<bos>",
    preamble: str = DEVELOPER_PROMPT,
) -> str:
    """The template's render of ``messages`` with ``tools``.

    ``preamble`` is what the developer turn says when the conversation brings no system or
    developer message: the trigger sentence in the later revision of the template, nothing
    (``""``) in the release (ADR 0033). Raises ``TemplateError`` where the template raises.
    """
    text, loop = _developer_turn(messages, tools, preamble)
    parts = [bos_token, text]
    prev: str | None = None
    for n, message in enumerate(loop):
        turn, prev = _turn(message, prev, n == len(loop) - 1)
        parts.append(turn)
        if prev not in ("tool_call", "tool_response"):
            parts.append(END_OF_TURN + "\n")
    if add_generation_prompt and prev != "tool_response":
        parts.append(START_OF_TURN + "model\n")
    return "".join(parts)
