"""``gibberish mcp`` driven by the MCP Inspector's CLI (npm), an independent client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.helpers import sandbox
from tests.helpers.npm import install_or_skip
from tests.interop.conftest import gibberish_argv

INSPECTOR = "@modelcontextprotocol/inspector@0.15.0"
"""0.15 is the last line that runs on Node 20 (0.17 wants Node 22)."""


@pytest.fixture(scope="session")
def inspector() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip(
            "node and npm are not installed; the MCP Inspector CLI needs them (.ci/run installs them)"
        )
    folder = Path(os.environ.get("GIBBERISH_INSPECTOR_DIR", REPO_ROOT / ".cache" / "mcp-inspector"))
    binary = folder / "node_modules" / ".bin" / "mcp-inspector"
    if not binary.exists():
        install_or_skip(
            [npm, "install", "--prefix", str(folder), "--no-audit", "--no-fund", INSPECTOR],
            package=INSPECTOR,
            env={**os.environ, "npm_config_cache": str(folder / ".npm-cache")},
            timeout=600,
        )
    return binary


def inspect(inspector: Path, skills_dir: Path, *method: str) -> dict:
    env_args = []
    for var in (
        "HOME",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "XDG_RUNTIME_DIR",
    ):
        env_args += ["-e", f"{var}={os.environ[var]}"]
    result = subprocess.run(
        [str(inspector), "--cli", *env_args, *gibberish_argv(skills_dir, "mcp"), *method],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return json.loads(result.stdout)


@pytest.mark.slow
def test_inspector_lists_tools_calls_read_only_and_is_refused_approval(
    inspector: Path, skills_dir: Path, tmp_path: Path
) -> None:
    tools = {
        t["name"]: t for t in inspect(inspector, skills_dir, "--method", "tools/list")["tools"]
    }
    assert tools["say"]["annotations"] == {
        "readOnlyHint": True,
        "destructiveHint": False,
        "openWorldHint": False,
    }
    assert tools["say"]["inputSchema"]["required"] == ["words"]
    assert "skills_search" in tools

    said = inspect(
        inspector,
        skills_dir,
        "--method",
        "tools/call",
        "--tool-name",
        "say",
        "--tool-arg",
        "words=hi",
    )
    if sandbox.active():
        assert said["structuredContent"]["output"] == "hi\n"
        assert not said.get("isError")
    else:  # a read-only tool asks first without bubblewrap, and there is no tray to ask
        assert said["isError"] is True and "sandbox" in said["structuredContent"]["error"]

    refused = inspect(
        inspector,
        skills_dir,
        *("--method", "tools/call", "--tool-name", "mark", "--tool-arg", f"folder={tmp_path}"),
    )
    assert refused["isError"] is True
    assert "gibberish approvals approve writer" in refused["structuredContent"]["error"]
    assert not (tmp_path / "marker").exists()

    shown = inspect(
        inspector,
        skills_dir,
        *("--method", "tools/call", "--tool-name", "skills_show"),
        *("--tool-arg", "name=guide", "--tool-arg", "section=Structure"),
    )
    assert shown["structuredContent"]["text"].startswith("## Structure")
