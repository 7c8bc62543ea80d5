"""``gibberish plugin build``, read back by the programs that read plugins: Claude Code's
``claude plugin validate``, Gemini CLI's extension loader, Copilot CLI's ``--plugin-dir``."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import Result

from gibberish import paths
from tests.interop.builders import files_under
from tests.interop.conftest import ART_FILES, ECHOER, INSTRUCTION_SKILL, write_skill
from tests.interop.plugin_readers import (
    ClaudeCode,
    CopilotCli,
    claude_code,
    copilot_cli,
    gemini_extensions,
)

__all__ = ["claude_code", "copilot_cli"]  # fixtures, used by name

MCP_SKILL = """---
name: finder
description: Find files through a file server. Use when the user looks for a file.
dependencies:
  mcp:
    files:
      command: npx
      args: [-y, "@modelcontextprotocol/server-filesystem", "."]
      env: {LOG_LEVEL: info}
---

# Finder

Ask the files server for the file.
"""

SECRET_SKILL = """---
name: leaky
description: Talk to a service. Use when the user asks the service something.
dependencies:
  mcp:
    service:
      command: service-mcp
      env: {SERVICE_TOKEN: abc123}
---

# Leaky

Ask the service.
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "reader-home"
    folder.mkdir()
    return folder


@pytest.fixture
def my_skills() -> Path:
    root = paths.user_skills_dir()
    write_skill(root, "art", INSTRUCTION_SKILL, ART_FILES)
    write_skill(root, "echoer", ECHOER)
    write_skill(root, "finder", MCP_SKILL)
    return root


def _errors(report: dict) -> list:
    found = list(report.get("manifest", {}).get("errors", []))
    for item in report.get("contents", []) or []:
        found += item.get("errors", []) if isinstance(item, dict) else []
    return found


def test_bundled_skills_plugin_passes_claude_validate(
    gib: Callable[..., Result], tmp_path: Path, home: Path, claude_code: ClaudeCode
) -> None:
    out = tmp_path / "gibberish-skills"
    result = gib("--no-user-skills", "plugin", "build", "--out", str(out), "--marketplace")
    assert result.exit_code == 0, result.output
    code, report = claude_code.validate(out, home)
    assert code == 0 and report["success"], report
    assert _errors(report) == []
    provided = {p.split(":", 1)[1] for p in report["provides"]["skills"]}
    assert provided == {p.name for p in (out / "skills").iterdir()} and "git" in provided
    code, market = claude_code.validate(out / ".claude-plugin" / "marketplace.json", home)
    assert code == 0 and market["success"] and _errors(market) == [], market


def test_described_plugin_passes_strict_validate(
    gib: Callable[..., Result], tmp_path: Path, home: Path, my_skills: Path, claude_code: ClaudeCode
) -> None:
    out = tmp_path / "art-kit"
    result = gib(
        "--no-bundled",
        "plugin",
        "build",
        "art",
        "echoer",
        "finder",
        "--allow-mcp",
        "files",
        "--out",
        str(out),
        "--marketplace",
        "--author",
        "Ada",
        "--description",
        "Art and echoes.",
        "--license",
        "MIT",
    )
    assert result.exit_code == 0, result.output
    for target in (out, out / ".claude-plugin" / "marketplace.json"):
        code, report = claude_code.validate(target, home, strict=True)
        assert code == 0 and report["success"], report
    code, report = claude_code.validate(out, home)
    (server,) = report["provides"]["mcpServers"]
    assert (server["name"], server["type"], server["target"]) == ("files", "stdio", "npx")
    assert len(report["provides"]["skills"]) == 3


def test_validate_rejects_a_broken_manifest(
    gib: Callable[..., Result], tmp_path: Path, home: Path, my_skills: Path, claude_code: ClaudeCode
) -> None:
    """The reader is real: the same plugin with a bad version fails it."""
    out = tmp_path / "art-kit"
    assert gib("--no-bundled", "plugin", "build", "art", "--out", str(out)).exit_code == 0
    manifest = out / ".claude-plugin" / "plugin.json"
    data = json.loads(manifest.read_text())
    manifest.write_text(json.dumps({**data, "version": 3, "name": "Art Kit"}))
    code, report = claude_code.validate(out, home)
    assert code != 0 and not report["success"] and _errors(report), report


def test_manifests_agree_and_skills_are_byte_for_byte(
    gib: Callable[..., Result], tmp_path: Path, my_skills: Path
) -> None:
    out = tmp_path / "art-kit"
    result = gib(
        "--no-bundled", "plugin", "build", "art", "echoer", "--out", str(out),
        "--plugin-version", "2.3.4", "--marketplace",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    root = json.loads((out / "plugin.json").read_text())
    claude = json.loads((out / ".claude-plugin" / "plugin.json").read_text())
    gemini = json.loads((out / "gemini-extension.json").read_text())
    market = json.loads((out / ".claude-plugin" / "marketplace.json").read_text())
    assert root["$schema"].endswith("/1.0.0/plugin.schema.json")
    assert {root["version"], claude["version"], gemini["version"]} == {"2.3.4"}
    (entry,) = market["plugins"]
    assert (entry["name"], entry["source"], entry["version"]) == ("art-kit", "./", "2.3.4")
    assert root["name"] == claude["name"] == gemini["name"] == "art-kit"
    allowed = {"$schema", "name", "version", "description", "author", "homepage"}
    assert set(root) <= allowed | {"repository", "license", "keywords", "extensions"}
    for rel, data in ART_FILES.items():
        assert (out / "skills" / "art" / rel).read_text() == data
    assert (out / "skills" / "art" / "SKILL.md").read_bytes() == (
        my_skills / "art" / "SKILL.md"
    ).read_bytes()
    assert not (out / "mcp.json").exists()


def test_gemini_cli_loads_the_plugin_as_an_extension(
    gib: Callable[..., Result],
    tmp_path: Path,
    home: Path,
    my_skills: Path,
    gemini_cli,
    claude_code: ClaudeCode,
) -> None:
    out = tmp_path / "art-kit"
    result = gib(
        "--no-bundled", "plugin", "build", "art", "finder", "--out", str(out),
        "--allow-mcp", "files",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    code, report = claude_code.validate(out, home)
    assert code == 0 and _errors(report) == [], report
    (extension,) = gemini_extensions(gemini_cli, home, out)
    assert extension["name"] == "art-kit" and extension["version"] == "1.0.0"
    assert {s["name"] for s in extension["skills"]} == {"art", "finder"}
    assert extension["mcpServers"]["files"]["command"] == "npx"


def test_copilot_cli_reads_the_root_plugin_json(
    gib: Callable[..., Result], tmp_path: Path, home: Path, my_skills: Path, copilot_cli: CopilotCli
) -> None:
    out = tmp_path / "art-kit"
    result = gib(
        "--no-bundled", "plugin", "build", "art", "echoer", "--out", str(out),
        "--name", "copilot-kit", "--plugin-version", "3.1.4",
    )  # fmt: skip
    assert result.exit_code == 0 and "named copilot-kit" in result.output
    # only the Agent Plugins manifest, named and versioned unlike the folder: what Copilot
    # lists can come from nowhere but the root plugin.json
    (out / "gemini-extension.json").unlink()
    for extra in (out / ".claude-plugin").iterdir():
        extra.unlink()
    (out / ".claude-plugin").rmdir()
    plugins = copilot_cli.run_json(home, "--plugin-dir", str(out), "plugin", "list")
    ours = [p for p in plugins if p.get("source") == "external"]
    assert ours == [
        {"name": "copilot-kit", "marketplace": "", "version": "3.1.4", "enabled": True,
         "source": "external"}
    ]  # fmt: skip
    skills = copilot_cli.run_json(home, "--plugin-dir", str(out), "skill", "list")
    assert {s["name"] for s in skills if s.get("source") == "plugin"} == {"art", "echoer"}


def test_mcp_servers_need_agreement_and_never_carry_secrets(
    gib: Callable[..., Result], tmp_path: Path, my_skills: Path, home: Path, claude_code: ClaudeCode
) -> None:
    write_skill(my_skills, "leaky", SECRET_SKILL)
    out = tmp_path / "kit"
    result = gib("--no-bundled", "plugin", "build", "finder", "leaky", "--out", str(out))
    assert result.exit_code == 0, result.output
    assert "files: left out, nobody agreed" in result.output
    assert "SERVICE_TOKEN holds a value that looks like a secret" in result.output
    assert not (out / "mcp.json").exists()
    assert "mcpServers" not in json.loads((out / "gemini-extension.json").read_text())

    result = gib(
        "--no-bundled", "plugin", "build", "finder", "leaky", "--out", str(out), "--force",
        "--allow-mcp", "files", "--allow-mcp", "service",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    mcp = json.loads((out / "mcp.json").read_text())
    assert mcp["$schema"].endswith("/1.0.0/mcp.schema.json")
    assert mcp["mcpServers"] == {
        "files": {
            "type": "stdio",
            "command": "npx",
            "args": ["-y", "@modelcontextprotocol/server-filesystem", "."],
            "env": {"LOG_LEVEL": "info"},
        }
    }
    assert "abc123" not in "".join(p.read_text() for p in out.rglob("*.json"))
    claude = json.loads((out / ".claude-plugin" / "plugin.json").read_text())
    assert claude["mcpServers"]["files"]["command"] == "npx"
    code, report = claude_code.validate(out, home)
    assert code == 0 and _errors(report) == [], report


@pytest.mark.parametrize(
    "name",
    ["../escape", "a/b", "-rf", "Art Kit", "ART", "a--b", "", ".", "x" * 65, "tab\tname"],
)
def test_hostile_plugin_names_are_refused(
    gib: Callable[..., Result], tmp_path: Path, my_skills: Path, name: str
) -> None:
    out = tmp_path / "kit"
    result = gib("--no-bundled", "plugin", "build", "art", "--out", str(out), "--name", name)
    assert result.exit_code != 0
    assert "plugin name" in result.output and "Traceback" not in result.output
    assert not out.exists()


def test_folder_name_is_the_default_name_and_must_be_valid(
    gib: Callable[..., Result], tmp_path: Path, my_skills: Path
) -> None:
    result = gib("--no-bundled", "plugin", "build", "art", "--out", str(tmp_path / "My Kit"))
    assert result.exit_code != 0 and "plugin name 'My Kit'" in result.output
    assert not (tmp_path / "My Kit").exists()


def test_force_replaces_only_a_plugin_gibberish_wrote(
    gib: Callable[..., Result], tmp_path: Path, my_skills: Path
) -> None:
    """A write never replaces what gibberish did not write: ``--force`` included."""
    out = tmp_path / "kit"
    out.mkdir()
    (out / "mine.txt").write_text("keep me")
    for extra in ((), ("--force",)):
        result = gib("--no-bundled", "plugin", "build", "art", "--out", str(out), *extra)
        assert result.exit_code != 0 and "did not write" in result.output
        assert (out / "mine.txt").read_text() == "keep me"
    (out / "mine.txt").unlink()
    assert gib("--no-bundled", "plugin", "build", "art", "--out", str(out)).exit_code == 0
    again = gib("--no-bundled", "plugin", "build", "art", "--out", str(out))
    assert again.exit_code != 0 and "--force" in again.output
    result = gib("--no-bundled", "plugin", "build", "art", "--out", str(out), "--force")
    assert result.exit_code == 0, result.output
    assert (out / "skills" / "art" / "SKILL.md").is_file()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


@pytest.mark.parametrize("where", ["the skill", "inside it", "its parent"])
def test_out_never_holds_or_sits_in_a_skill_it_copies(
    gib: Callable[..., Result], my_skills: Path, where: str
) -> None:
    out = {
        "the skill": my_skills / "art",
        "inside it": my_skills / "art" / "kit",
        "its parent": my_skills,
    }[where]
    before = files_under(my_skills / "art")
    result = gib("--no-bundled", "plugin", "build", "art", "--out", str(out), "--force")
    assert result.exit_code != 0 and "holds or is inside the skill art" in result.output
    assert files_under(my_skills / "art") == before


def test_every_build_keeps_an_ownership_record_outside_the_plugin(
    gib: Callable[..., Result], tmp_path: Path, my_skills: Path
) -> None:
    """What lets the tray replace a plugin gibberish wrote, and nothing else (ADR 0087)."""
    from gibberish.export.plugin import not_written_by_gibberish

    out = tmp_path / "kit"
    before = set(paths.state_dir().rglob("*")) if paths.state_dir().exists() else set()
    assert gib("--no-bundled", "plugin", "build", "art", "--out", str(out)).exit_code == 0
    assert not_written_by_gibberish(out) == []
    assert {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()} == {
        "README.md", "plugin.json", ".claude-plugin/plugin.json", "gemini-extension.json",
        *(f"skills/art/{rel}" for rel in ["SKILL.md", *ART_FILES]),
    }  # fmt: skip
    (record,) = [p for p in set(paths.state_dir().rglob("plugin-*.json")) - before]
    assert str(out.resolve()) in record.read_text()
    (out / "README.md").write_text("edited")
    (out / "mine.txt").write_text("mine")
    assert not_written_by_gibberish(out) == ["README.md", "mine.txt"]
