"""The coding agents gibberish exports to: where each keeps skills and MCP servers.

One small entry per agent, so a folder that moves in a new release is a one-line change.
User-level paths are relative to the home folder, project-level ones to the project.
``None`` means the agent has no such place.

MCP configuration formats differ only in three ways, captured by ``McpFile``: JSON or
TOML, the key holding the server table (``mcpServers``, ``servers``, ``mcp_servers``),
and how a remote server's URL is spelled (``url`` or ``httpUrl``, with or without a
``type``).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from msgspec import Struct


class McpFile(Struct, frozen=True):
    """One MCP configuration file and the shape of its server table."""

    path: str
    key: str = "mcpServers"
    fmt: str = "json"
    """``json`` or ``toml``."""
    url_key: str = "url"
    typed: bool = False
    """True when the file wants ``"type": "stdio"|"http"`` on every entry (VS Code, Claude)."""


class AgentTarget(Struct, frozen=True):
    name: str
    title: str
    user_dir: str | None
    project_dir: str | None
    markers: tuple[str, ...] = ()
    """Home-relative folders whose presence means the agent is installed."""
    programs: tuple[str, ...] = ()
    """Programs on PATH that mean the agent is installed."""
    user_mcp: McpFile | None = None
    project_mcp: McpFile | None = None

    def skills_dir(self, home: Path, project: Path | None) -> Path | None:
        """The skills folder for a project (``project`` given) or for the user."""
        if project is not None:
            return project / self.project_dir if self.project_dir else None
        return home / self.user_dir if self.user_dir else None

    def mcp_file(self, home: Path, project: Path | None) -> tuple[Path, McpFile] | None:
        spec = self.project_mcp if project is not None else self.user_mcp
        if spec is None:
            return None
        return (project if project is not None else home) / spec.path, spec

    def installed(self, home: Path) -> bool:
        if any((home / marker).is_dir() for marker in self.markers):
            return True
        return any(shutil.which(program) for program in self.programs)


_CLAUDE_JSON = McpFile(".claude.json", typed=True)
_GEMINI_JSON = McpFile(".gemini/settings.json", url_key="httpUrl")
_CODEX_TOML = McpFile(".codex/config.toml", key="mcp_servers", fmt="toml")

TARGETS: tuple[AgentTarget, ...] = (
    AgentTarget(
        "claude-code",
        "Claude Code",
        ".claude/skills",
        ".claude/skills",
        markers=(".claude",),
        programs=("claude",),
        user_mcp=_CLAUDE_JSON,
        project_mcp=McpFile(".mcp.json", typed=True),
    ),
    AgentTarget(
        "codex",
        "OpenAI Codex",
        ".agents/skills",
        ".agents/skills",
        markers=(".codex",),
        programs=("codex",),
        user_mcp=_CODEX_TOML,
    ),
    AgentTarget(
        "agents",
        "Agent Skills (shared folder)",
        ".agents/skills",
        ".agents/skills",
        markers=(".agents",),
    ),
    AgentTarget(
        "gemini-cli",
        "Gemini CLI",
        ".gemini/skills",
        ".gemini/skills",
        markers=(".gemini",),
        programs=("gemini",),
        user_mcp=_GEMINI_JSON,
        project_mcp=_GEMINI_JSON,
    ),
    AgentTarget(
        "cursor",
        "Cursor",
        ".cursor/skills",
        ".cursor/skills",
        markers=(".cursor",),
        programs=("cursor", "cursor-agent"),
        user_mcp=McpFile(".cursor/mcp.json"),
        project_mcp=McpFile(".cursor/mcp.json"),
    ),
    AgentTarget(
        "copilot",
        "GitHub Copilot",
        ".copilot/skills",
        ".github/skills",
        markers=(".copilot",),
        programs=("copilot",),
        project_mcp=McpFile(".vscode/mcp.json", key="servers", typed=True),
    ),
    AgentTarget(
        "devin",
        "Devin (formerly Windsurf)",
        ".config/devin/skills",
        ".devin/skills",
        markers=(".config/devin", ".codeium/windsurf"),
        programs=("devin", "windsurf"),
    ),
    AgentTarget(
        "opencode",
        "opencode",
        None,
        ".opencode/skills",
        markers=(".config/opencode",),
        programs=("opencode",),
    ),
)

TARGET_NAMES: tuple[str, ...] = tuple(t.name for t in TARGETS)


def target(name: str) -> AgentTarget:
    """The entry for ``name``; ``KeyError`` names the known ones."""
    for entry in TARGETS:
        if entry.name == name:
            return entry
    raise KeyError(f"unknown agent {name!r}; known: {', '.join(TARGET_NAMES)}")


def detect_installed(home: Path | None = None) -> list[AgentTarget]:
    """Agents that look installed for this user (a config folder or a program on PATH)."""
    home = home if home is not None else Path(os.path.expanduser("~"))
    return [t for t in TARGETS if t.installed(home)]
