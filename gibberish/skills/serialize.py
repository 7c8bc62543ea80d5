"""The stable JSON shape of a skill (``gibberish skills list --json``, documented in README).

Kept apart from the CLI because exporters and the model feed reuse the same shape.
"""

from __future__ import annotations

from typing import Any

from gibberish.skills.model import SkillDefinition, ToolDefinition


def tool_to_dict(tool: ToolDefinition) -> dict[str, Any]:
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": [p.to_dict() for p in tool.parameters],
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
        "version": skill.version,
        "description": skill.description,
        "author": skill.author,
        "modes": [m.value for m in skill.modes],
        "read_only": skill.read_only,
        "always_ask": skill.always_ask,
        "timeout": skill.timeout_secs,
        "network": skill.network,
        "secrets": list(skill.secrets),
        "extra": dict(skill.extra),
        "tools": [tool_to_dict(t) for t in skill.tools],
        "diagnostics": [d.to_dict() for d in skill.diagnostics],
    }
