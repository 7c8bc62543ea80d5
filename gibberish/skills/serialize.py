"""The stable JSON shape of a skill (``gibberish skills list --json``, documented in README).

Kept apart from the CLI because exporters and the model feed reuse the same shape.
"""

from __future__ import annotations

import datetime
import math
from collections.abc import Mapping
from typing import Any

from gibberish.skills.model import SkillDefinition, ToolDefinition


def json_value(value: Any) -> Any:
    """``value`` as data ``json.dumps(..., allow_nan=False)`` accepts: mappings (a
    read-only ``MappingProxyType`` included) become dicts with text keys, tuples lists,
    dates ISO text, a non-finite number its YAML spelling (``.nan``, ``.inf``), and
    anything else its ``str``. Frontmatter can hold any value YAML produces, and one odd
    value must never cost a whole JSON listing."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else _yaml_float(value)
    if isinstance(value, Mapping):
        return {json_key(k): json_value(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_value(v) for v in value]
    if isinstance(value, datetime.date):
        return value.isoformat()
    return str(value)


def json_key(key: Any) -> str:
    """A mapping key as JSON text: as YAML would write it (``true``, ``null``, ``1.5``)."""
    if isinstance(key, str):
        return key
    if isinstance(key, bool) or key is None:
        return {True: "true", False: "false", None: "null"}[key]
    if isinstance(key, float) and not math.isfinite(key):
        return _yaml_float(key)
    if isinstance(key, datetime.date):
        return key.isoformat()
    return str(key)


def _yaml_float(value: float) -> str:
    return ".nan" if math.isnan(value) else (".inf" if value > 0 else "-.inf")


def tool_to_dict(tool: ToolDefinition) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameter_dicts(),
        "command": tool.command.source if tool.command else None,
        "line": tool.line,
    }


def skill_to_dict(skill: SkillDefinition) -> dict[str, Any]:
    return {
        "path": str(skill.directory),
        "name": skill.name,
        "ok": skill.ok,
        "trust": skill.trust.value,
        "profile": skill.profile.value,
        "kind": skill.kind,
        "version": skill.version,
        "description": skill.description,
        "author": skill.author,
        "modes": [m.value for m in skill.modes],
        "read_only": skill.read_only,
        "always_ask": skill.always_ask,
        "timeout": skill.timeout_secs,
        "network": skill.network,
        "secrets": list(skill.secrets),
        "gui": skill.gui,
        "credentials": list(skill.credentials),
        "extra": json_value(skill.extra),
        "tools": [tool_to_dict(t) for t in skill.tools],
        "diagnostics": [d.to_dict() for d in skill.diagnostics],
    }
