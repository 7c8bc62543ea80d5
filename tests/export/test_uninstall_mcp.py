"""``gibberish uninstall`` takes out the MCP server entries the removed skill's
dependencies added to agents' configuration files: only the entries gibberish's
ownership record says it wrote, unchanged since, and no other skill still needs."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The test's home, with no agent program on PATH (detection sees only folders)."""
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return Path(os.environ["HOME"])


def _skill(parent: Path, name: str, servers: dict[str, str]) -> Path:
    lines = [f"---\nname: {name}\ndescription: Needs MCP servers.\ndependencies:\n  mcp:\n"]
    for server, command in servers.items():
        lines.append(f"    {server}:\n      command: {command}\n")
    lines.append("---\n\nUse the servers.\n")
    folder = parent / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text("".join(lines))
    return folder


def _servers(path: Path) -> dict:
    return json.loads(path.read_text())["mcpServers"]


def test_uninstall_removes_only_the_mcp_entries_gibberish_owns(tmp_path, home, gib) -> None:
    (home / ".claude").mkdir()
    (home / ".gemini").mkdir()
    claude, gemini = home / ".claude.json", home / ".gemini" / "settings.json"
    foreign = {"command": "their-own-server"}
    claude.write_text(json.dumps({"theme": "dark", "mcpServers": {"theirs": foreign}}))
    servers = {"files": "files-server", "notes": "notes-server", "theirs": "x", "shared": "s"}
    a = _skill(tmp_path / "src", "needs-a", servers)
    b = _skill(tmp_path / "src", "needs-b", {"shared": "s"})
    allow = [w for n in ("files", "notes", "theirs", "shared") for w in ("--allow-mcp", n)]
    for folder in (a, b):
        result = gib("install", str(folder), "--yes", "--sync", *allow)
        assert result.exit_code == 0, result.output
    for config in (claude, gemini):
        assert {"files", "notes", "shared"} <= set(_servers(config)), config
    assert _servers(claude)["theirs"] == foreign  # never replaced by the skill's
    edited = json.loads(gemini.read_text())
    edited["mcpServers"]["notes"]["args"] = ["--mine"]
    gemini.write_text(json.dumps(edited))

    result = gib("uninstall", "needs-a")

    assert result.exit_code == 0, result.output
    assert "files" not in _servers(claude) and "files" not in _servers(gemini)
    assert "notes" not in _servers(claude)
    assert _servers(gemini)["notes"]["args"] == ["--mine"]  # edited: kept, reported
    assert "skip-edited" in result.output and "skip-foreign" in result.output
    assert _servers(claude)["theirs"] == foreign  # foreign: kept
    assert json.loads(claude.read_text())["theme"] == "dark"
    for config in (claude, gemini):  # needs-b still asks for it
        assert "shared" in _servers(config), result.output
    result = gib("uninstall", "needs-b")
    assert result.exit_code == 0, result.output
    assert "shared" not in _servers(claude) and "shared" not in _servers(gemini)
