"""Tool manifests other than FunctionGemma's: JSON tool schemas and the spec's plain text list.

* ``tool_schema`` — the ``{"type": "function", "function": {...}}`` shape that both Ollama's
  ``/api/chat`` and OpenAI-compatible ``/v1/chat/completions`` take in ``tools``; the
  parameters are a JSON Schema object with each parameter's ``description`` (with
  ``(default: X)`` appended, as in the FunctionGemma declaration) and ``default``; control
  tokens in descriptions are neutralized (``functiongemma.neutralize``), since the server
  renders them into its own prompt format.
  Properties keep the order the skill declares them in; ``required`` is left out when empty
  (older JSON Schema drafts require it to be non-empty).
* ``render_plain_manifest`` — the SKILL.md spec's §7.1 text: the trigger sentence, then
  ``[Native Tools]`` (only when native tools are given) and ``[Skills]`` sections of
  ``- name: description`` lines. It is for people and for models without a tool format.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from gibberish.assistant.functiongemma_tokens import DEVELOPER_PROMPT, neutralize
from gibberish.assistant.naming import ExposedTool
from gibberish.skills.model import ParameterDefinition, ParameterType


def _plain(value: Any) -> str:
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, list | tuple):
        return ", ".join(_plain(v) for v in value)
    return str(value)


def parameter_description(param: ParameterDefinition) -> str:
    """The description a model reads, with ``(default: X)`` added when a default exists
    (no declaration format has a default key a model is trained to read)."""
    text = param.description.strip()
    if param.default is None or "(default" in text.lower():
        return text
    suffix = f"(default: {_plain(param.default)})"
    return f"{text} {suffix}" if text else suffix


def parameter_schema(param: ParameterDefinition) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": param.type.value}
    if param.type is ParameterType.ARRAY:
        schema["items"] = {"type": "string"}
    description = neutralize(parameter_description(param))
    if description:
        schema["description"] = description
    if param.default is not None:
        schema["default"] = (
            list(param.default) if isinstance(param.default, tuple) else param.default
        )
    return schema


def parameters_schema(tool: ExposedTool) -> dict[str, Any]:
    schema: dict[str, Any] = {
        "type": "object",
        "properties": {p.name: parameter_schema(p) for p in tool.parameters},
    }
    required = [p.name for p in tool.parameters if p.required]
    if required:
        schema["required"] = required
    return schema


def tool_schema(tool: ExposedTool) -> dict[str, Any]:
    """One tool in the OpenAI / Ollama ``tools`` format."""
    return {
        "type": "function",
        "function": {
            "name": tool.name,
            "description": neutralize(tool.description.strip()),
            "parameters": parameters_schema(tool),
        },
    }


def tool_schemas(tools: Iterable[ExposedTool]) -> list[dict[str, Any]]:
    return [tool_schema(t) for t in tools]


def render_plain_manifest(
    tools: Iterable[ExposedTool], native: Sequence[tuple[str, str]] = ()
) -> str:
    """The spec's plain text manifest (§7.1), one ``- name: description`` line per tool."""

    def line(name: str, description: str) -> str:
        first = " ".join(description.split())
        return f"- {name}: {first}" if first else f"- {name}"

    parts = [f"{DEVELOPER_PROMPT}:", ""]
    if native:
        parts.append("[Native Tools]")
        parts.extend(line(n, d) for n, d in native)
        parts.append("")
    parts.append("[Skills]")
    parts.extend(line(t.name, t.description) for t in tools)
    return "\n".join(parts) + "\n"
