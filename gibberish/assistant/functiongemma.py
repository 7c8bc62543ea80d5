"""FunctionGemma's text format: declarations, the prompt, calls and function responses.

FunctionGemma (Gemma 3 270M tuned for tool use) reads its tools as text in a ``developer``
turn and writes calls as text, so the exact bytes matter: the model was trained on what
Google's chat template produces. This module renders that text; ``callparser`` reads it.

Format sources the output was checked against (read, not copied):

* Google AI for Developers, "FunctionGemma formatting and best practices"
  (ai.google.dev/gemma/docs/functiongemma/formatting-and-best-practices): the control
  tokens, ``<escape>`` around every string, the developer prompt "You are a model that can
  do function calling with the following functions" directly followed by the declarations,
  the ``get_current_weather`` declaration / call / response example.
* The FunctionGemma chat template (``chat_template.jinja`` of google/functiongemma-270m-it,
  as quoted in public ports and issue threads, e.g. google-ai-edge/LiteRT-LM#3638,
  nntrainer/nntrainer#3722, DenisovAV/flutter_gemma#371): ``<start_of_turn>ROLE\\n … <end_of_turn>\\n``
  turns, ``dictsort``-ed keys, UPPERCASE types, ``properties``/``required`` left out when
  empty, ``items`` for arrays, call arguments and responses as ``key:value`` pairs with
  bare keys, the generation prompt ``<start_of_turn>model\\n``.

Decisions where the published format leaves room (all documented in docs/model-feed.md):

* A parameter default is not a key the template renders; we append ``(default: X)`` to the
  parameter's description (unless it already says so), which is still plain description text.
* The literal text ``<escape>`` cannot occur inside a string (the format has no way to quote
  its own delimiter); it is removed from strings we render.
* ``<bos>`` is not written by default: runtimes (Ollama, llama.cpp) add the BOS token
  themselves. Pass ``bos=True`` for a runtime that does not.
* Keys are sorted like Jinja's ``dictsort``: case-insensitively, then by the exact text.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

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


def _sort_key(key: str) -> tuple[str, str]:
    return (key.lower(), key)


def escape(text: str) -> str:
    """``<escape>text<escape>``; a literal ``<escape>`` inside ``text`` is dropped."""
    if ESCAPE in text:
        text = text.replace(ESCAPE, "")
    return ESCAPE + text + ESCAPE


def format_value(value: Any) -> str:
    """One value in FunctionGemma syntax: strings escaped, bare numbers/true/false/null,
    ``{k:v,…}`` with sorted bare keys, ``[a,b]``. Non-finite floats become ``null``."""
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
    return ",".join([f"{k}:{format_value(mapping[k])}" for k in sorted(mapping, key=_sort_key)])


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
    fields = []
    description = parameter_description(param)
    if description:
        fields.append("description:" + escape(description))
    if param.type is ParameterType.ARRAY:
        fields.append("items:{type:" + escape("STRING") + "}")
    fields.append("type:" + escape(param.type.value.upper()))
    return param.name + ":{" + ",".join(fields) + "}"


def render_declaration_body(tool: ExposedTool) -> str:
    """``declaration:NAME{description:…,parameters:{…}}`` without the surrounding tokens."""
    params = sorted(tool.parameters, key=lambda p: _sort_key(p.name))
    inner = []
    if params:
        inner.append("properties:{" + ",".join([_property(p) for p in params]) + "}")
    required = [p.name for p in params if p.required]
    if required:
        inner.append("required:[" + ",".join([escape(n) for n in required]) + "]")
    inner.append("type:" + escape("OBJECT"))
    return (
        f"declaration:{tool.name}{{description:{escape(tool.description.strip())}"
        f",parameters:{{{','.join(inner)}}}}}"
    )


def render_declaration(tool: ExposedTool) -> str:
    """One whole ``<start_function_declaration>…<end_function_declaration>`` block."""
    return START_DECLARATION + render_declaration_body(tool) + END_DECLARATION


def render_turn(role: str, text: str) -> str:
    """``<start_of_turn>ROLE\\nTEXT<end_of_turn>\\n`` (text trimmed, as the template does)."""
    return f"{START_OF_TURN}{role}\n{text.strip()}{END_OF_TURN}\n"


def render_developer_turn(tools: Iterable[ExposedTool]) -> str:
    """The developer turn: the trigger sentence followed directly by every declaration."""
    declarations = "".join([render_declaration(t) for t in tools])
    return f"{START_OF_TURN}developer\n{DEVELOPER_PROMPT}{declarations}{END_OF_TURN}\n"


def render_prompt(
    tools: Sequence[ExposedTool],
    request: str,
    *,
    followups: Sequence[tuple[str, str]] = (),
    bos: bool = False,
) -> str:
    """The full prompt for a raw completion: developer turn, user turn, open model turn.

    ``followups`` are further ``(role, text)`` turns after the user's request — the router
    uses them for its one repair retry (``("model", bad_output), ("user", correction)``).
    """
    parts = [BOS] if bos else []
    parts.append(render_developer_turn(tools))
    parts.append(render_turn("user", request))
    for role, text in followups:
        parts.append(render_turn(role, text))
    parts.append(f"{START_OF_TURN}model\n")
    return "".join(parts)


def render_call(name: str, arguments: Mapping[str, Any]) -> str:
    """``<start_function_call>call:NAME{k:v,…}<end_function_call>`` (few-shot text, tests)."""
    return f"{START_CALL}call:{name}{{{format_fields(arguments)}}}{END_CALL}"


def render_response(name: str, envelope: Mapping[str, Any]) -> str:
    """A run's result envelope as ``<start_function_response>response:NAME{…}<end_function_response>``.

    The envelope's fields are spread as ``key:value`` pairs (numbers and booleans bare,
    strings escaped, ``parsed`` JSON nested), the shape the chat template gives a tool
    message whose content is a mapping.
    """
    return f"{START_RESPONSE}response:{name}{{{format_fields(envelope)}}}{END_RESPONSE}"
