"""The manifests of one plugin folder, as each reader wants them (pure data, no files).

One folder, read by three families of agents:

* **Agent Plugins 1.0** (Copilot CLI, VS Code, Codex, Cursor): ``plugin.json`` at the
  root — ``$schema`` and ``name`` required, a closed set of other keys — with the skills
  in ``skills/<name>/`` and the MCP servers in ``mcp.json``.
* **Claude Code**: ``.claude-plugin/plugin.json`` (it finds ``skills/`` by itself; MCP
  servers inline under ``mcpServers``) and, for a marketplace, ``.claude-plugin/
  marketplace.json`` listing the plugin at ``./``.
* **Gemini CLI**: ``gemini-extension.json`` at the root (``name`` of letters, digits
  and dashes equal to the folder's name, ``version`` required; ``mcpServers``); it
  loads ``skills/`` too.

Every manifest carries the same ``version``, so the readers never disagree about which
release they hold. The shapes followed are written down in docs/export.md.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from msgspec import Struct, field

from gibberish.export.mcp_config import McpServer
from gibberish.pathsafety import PathComponent, UnsafeNameError

PLUGIN_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/plugin.schema.json"
MCP_SCHEMA = "https://agent-plugins.org/schemas/1.0.0/mcp.schema.json"
AGENT_PLUGINS_FILE = "plugin.json"
AGENT_PLUGINS_MCP = "mcp.json"
CLAUDE_DIR = ".claude-plugin"
CLAUDE_PLUGIN = f"{CLAUDE_DIR}/plugin.json"
CLAUDE_MARKETPLACE = f"{CLAUDE_DIR}/marketplace.json"
GEMINI_FILE = "gemini-extension.json"
CODEX_PLUGIN = ".codex-plugin/plugin.json"

_PLUGIN_NAME = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
_VERSION = re.compile(r"^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$")
_SECRET_WORDS = ("token", "secret", "password", "passwd", "apikey", "api_key", "auth", "key")
_REFERENCE = re.compile(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\}$")


class ManifestError(ValueError):
    """A plugin name, version or server that no reader would accept; the message says why."""


def plugin_name(value: str) -> str:
    """``value`` if every reader accepts it as a plugin name: one plain path component
    (the project's rule for any name that becomes a folder), lowercase letters, digits
    and single dashes (Claude Code's kebab-case, Gemini CLI's ``[a-zA-Z0-9-]``), at
    most 64 characters."""
    try:
        PathComponent(value, "plugin name")
    except UnsafeNameError as exc:
        raise ManifestError(str(exc)) from None
    if len(value) > 64 or not _PLUGIN_NAME.match(value):
        raise ManifestError(
            f"the plugin name {value!r} must be lowercase letters, digits and single dashes "
            "(at most 64), such as “my-skills”: Claude Code and Gemini CLI accept no other"
        )
    return value


def plugin_version(value: str) -> str:
    """``value`` if it is a semantic version (``1.2.3``), which all three readers compare."""
    if not _VERSION.match(value):
        raise ManifestError(f"the plugin version {value!r} must look like 1.2.3")
    return value


class PluginInfo(Struct, frozen=True):
    """What a person says about the plugin; the same in every manifest."""

    name: str
    version: str = "1.0.0"
    description: str = ""
    author: str = ""
    license: str = ""
    homepage: str = ""
    repository: str = ""
    keywords: tuple[str, ...] = ()
    skills: tuple[str, ...] = field(default=())

    def common(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "version": self.version}
        if self.description:
            out["description"] = self.description
        if self.author:
            out["author"] = {"name": self.author}
        for key in ("homepage", "repository", "license"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.keywords:
            out["keywords"] = list(self.keywords)
        return out


def server_problem(server: McpServer) -> str | None:
    """Why ``server`` cannot go into a plugin someone else installs, or None.

    A plugin is shared, so it never carries a secret: an ``env`` value under a name that
    looks like one (token, key, password …) must be a ``${NAME}`` reference the person
    fills in. Agent Plugins wants a stdio ``command`` of a single word."""
    if server.url is not None:
        return None
    command = server.command or ""
    if not command or any(ch.isspace() for ch in command):
        return f"its command {command!r} is not one program name (put arguments in args)"
    for key, value in server.env:
        lowered = key.lower().replace("-", "_")
        if any(word in lowered for word in _SECRET_WORDS) and not _REFERENCE.match(value):
            return (
                f"its env {key} holds a value that looks like a secret; a plugin is shared, "
                f"so write it as ${{{key}}} and let each person set it"
            )
    return None


def _agent_plugins_server(server: McpServer) -> dict[str, Any]:
    if server.url:
        return {"type": "streamable-http", "url": server.url}
    out: dict[str, Any] = {"type": "stdio", "command": server.command}
    if server.args:
        out["args"] = list(server.args)
    if server.env:
        out["env"] = dict(server.env)
    return out


def _claude_server(server: McpServer) -> dict[str, Any]:
    if server.url:
        return {"type": "http", "url": server.url}
    return _agent_plugins_server(server)


def _gemini_server(server: McpServer) -> dict[str, Any]:
    if server.url:
        return {"httpUrl": server.url}
    out = _agent_plugins_server(server)
    del out["type"]
    return out


def agent_plugins_manifest(info: PluginInfo) -> dict[str, Any]:
    return {"$schema": PLUGIN_SCHEMA, **info.common()}


def agent_plugins_mcp(servers: Sequence[McpServer]) -> dict[str, Any]:
    return {
        "$schema": MCP_SCHEMA,
        "mcpServers": {s.name: _agent_plugins_server(s) for s in servers},
    }


def claude_manifest(info: PluginInfo, servers: Sequence[McpServer]) -> dict[str, Any]:
    out = info.common()
    if servers:
        out["mcpServers"] = {s.name: _claude_server(s) for s in servers}
    return out


def claude_marketplace(info: PluginInfo) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": info.name, "source": "./", "version": info.version}
    if info.description:
        entry["description"] = info.description
    return {
        "name": info.name,
        "owner": {"name": info.author or info.name},
        "description": info.description or f"The {info.name} plugin.",
        "plugins": [entry],
    }


def gemini_manifest(info: PluginInfo, servers: Sequence[McpServer]) -> dict[str, Any]:
    out: dict[str, Any] = {"name": info.name, "version": info.version}
    if info.description:
        out["description"] = info.description
    if servers:
        out["mcpServers"] = {s.name: _gemini_server(s) for s in servers}
    return out


def manifests(
    info: PluginInfo, servers: Sequence[McpServer], *, marketplace: bool
) -> Mapping[str, dict[str, Any]]:
    """Every manifest file of the plugin, path relative to its root → JSON content."""
    out: dict[str, dict[str, Any]] = {
        AGENT_PLUGINS_FILE: agent_plugins_manifest(info),
        CLAUDE_PLUGIN: claude_manifest(info, servers),
        GEMINI_FILE: gemini_manifest(info, servers),
    }
    if servers:
        out[AGENT_PLUGINS_MCP] = agent_plugins_mcp(servers)
    if marketplace:
        out[CLAUDE_MARKETPLACE] = claude_marketplace(info)
    return out
