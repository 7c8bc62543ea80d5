"""MCP servers merged into each agent's configuration: other keys and entries kept."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path
from types import MappingProxyType

import msgspec.structs
import pytest
from click.testing import CliRunner

from gibberish import paths
from gibberish.cli import cli
from gibberish.export import agents
from gibberish.export.mcp_config import wanted_servers
from gibberish.export.sync_all import apply_sync, plan_sync
from gibberish.skills.parser import parse_skill_file
from tests.helpers.skill_folders import ART_FILES, INSTRUCTION_SKILL, write_skill

CODEX_CONFIG = """# my codex settings
model = "o4"   # keep this comment

[mcp_servers.mine]
command = "my-server"
"""

SETTINGS = """
[mcp_servers.search]
command = "search-mcp"
args = ["--stdio"]
env = { LEVEL = "debug" }

[mcp_servers.docs]
url = "https://docs.example/mcp"
"""


@pytest.fixture
def home() -> Path:
    return Path(os.environ["HOME"])


@pytest.fixture
def with_settings() -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(SETTINGS)
    write_skill(paths.user_skills_dir(), "art", INSTRUCTION_SKILL, ART_FILES)


def _sync(*args: str) -> str:
    result = CliRunner().invoke(cli, ["--no-bundled", "sync", *args])
    assert result.exit_code == 0, result.output
    return result.output


def test_codex_toml_keeps_comments_and_foreign_entries(home: Path, with_settings: None) -> None:
    config = home / ".codex" / "config.toml"
    config.parent.mkdir()
    config.write_text(CODEX_CONFIG)
    out = _sync("codex")
    assert "mcp_servers.search" in out and "mcp_servers.docs" in out
    text = config.read_text()
    assert text.startswith(CODEX_CONFIG)  # every byte of the original kept, in place
    data = tomllib.loads(text)
    assert data["mcp_servers"]["mine"] == {"command": "my-server"}
    assert data["mcp_servers"]["search"] == {
        "command": "search-mcp",
        "args": ["--stdio"],
        "env": {"LEVEL": "debug"},
    }
    assert data["mcp_servers"]["docs"] == {"url": "https://docs.example/mcp"}
    assert (home / ".codex" / "config.toml.gibberish-backup").read_text() == CODEX_CONFIG
    assert "nothing to do" in _sync("codex")


def test_json_files_keep_other_keys_indentation_and_hand_edits(
    home: Path, with_settings: None
) -> None:
    claude = home / ".claude.json"
    original = {"theme": "dark", "mcpServers": {"mine": {"command": "x"}}, "projects": {}}
    claude.write_text(json.dumps(original, indent=4) + "\n")
    (home / ".gemini").mkdir()
    _sync("claude-code", "gemini-cli")
    data = json.loads(claude.read_text())
    assert data["theme"] == "dark" and data["mcpServers"]["mine"] == {"command": "x"}
    assert data["mcpServers"]["search"]["type"] == "stdio"
    assert data["mcpServers"]["docs"] == {"type": "http", "url": "https://docs.example/mcp"}
    assert '\n    "theme"' in claude.read_text()  # the file's own 4-space indent
    gemini = json.loads((home / ".gemini" / "settings.json").read_text())
    assert gemini["mcpServers"]["docs"] == {"httpUrl": "https://docs.example/mcp"}

    data["mcpServers"]["search"]["args"] = ["--edited"]
    claude.write_text(json.dumps(data, indent=4) + "\n")
    paths.config_file().write_text("")  # no server wanted any more
    out = _sync("claude-code", "gemini-cli")
    assert "skip-edited" in out and "remove" in out
    after = json.loads(claude.read_text())
    assert after["mcpServers"]["search"]["args"] == ["--edited"]  # a hand edit survives
    assert "docs" not in after["mcpServers"] and "mine" in after["mcpServers"]
    assert "docs" not in json.loads((home / ".gemini" / "settings.json").read_text())["mcpServers"]


def test_a_foreign_entry_of_the_same_name_is_left_alone(home: Path, with_settings: None) -> None:
    project = home / "proj"
    (project / ".vscode").mkdir(parents=True)
    mcp = project / ".vscode" / "mcp.json"
    mcp.write_text('{"servers": {"search": {"type": "stdio", "command": "theirs"}}}')
    out = _sync("copilot", "--project", str(project))
    assert "skip-foreign" in out and "servers.search" in out
    data = json.loads(mcp.read_text())
    assert data["servers"]["search"]["command"] == "theirs"
    assert data["servers"]["docs"]["url"] == "https://docs.example/mcp"


def test_a_file_with_comments_is_reported_and_untouched(home: Path, with_settings: None) -> None:
    project = home / "proj"
    (project / ".cursor").mkdir(parents=True)
    mcp = project / ".cursor" / "mcp.json"
    text = '{\n  // mine\n  "mcpServers": {}\n}\n'
    mcp.write_text(text)
    result = CliRunner().invoke(cli, ["--no-bundled", "sync", "cursor", "--project", str(project)])
    assert result.exit_code == 0, result.output
    assert f"{mcp}:2: not plain JSON" in result.output
    assert mcp.read_text() == text


def test_servers_from_a_skill_dependencies_field(home: Path) -> None:
    folder = write_skill(home / "src", "art", INSTRUCTION_SKILL, ART_FILES)
    skill = parse_skill_file(folder / "SKILL.md")
    deps = {"mcp": [{"name": "canvas", "command": "canvas-mcp", "args": ["--port", "0"]}]}
    skill = msgspec.structs.replace(skill, extra=MappingProxyType({"dependencies": deps}))
    servers, problems = wanted_servers({"bad": {"args": ["x"]}}, [skill])
    assert list(servers) == ["canvas"] and servers["canvas"].args == ("--port", "0")
    assert problems == [
        "settings [mcp_servers]: MCP server 'bad' needs a command (a program) or a url"
    ]
    plan = plan_sync([skill], [agents.target("cursor")], home=home, consent=lambda s: True)
    apply_sync(plan)
    data = json.loads((home / ".cursor" / "mcp.json").read_text())
    assert data == {"mcpServers": {"canvas": {"command": "canvas-mcp", "args": ["--port", "0"]}}}


def test_an_entry_edited_between_plan_and_write_is_left_alone(home: Path) -> None:

    cursor = agents.target("cursor")
    apply_sync(plan_sync([], [cursor], home=home, settings_servers={"search": {"command": "a"}}))
    plan = plan_sync([], [cursor], home=home, settings_servers={"search": {"command": "b"}})
    mcp = home / ".cursor" / "mcp.json"
    mcp.write_text('{"mcpServers": {"search": {"command": "mine"}}}')
    errors = apply_sync(plan)
    assert errors == [f"{mcp}: search changed while syncing; left alone"]
    assert json.loads(mcp.read_text())["mcpServers"]["search"] == {"command": "mine"}
