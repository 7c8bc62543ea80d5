"""The real programs that read a plugin folder: Claude Code, Copilot CLI, Gemini CLI.

Each is pinned and installed with npm into a folder under ``.cache/`` of the repository
(``.ci/run`` does it before the suite; a fixture does it on first use), and every run
gets an empty home folder of its own and no network (``unshare -n`` where available),
so nothing is read from or written to the person's configuration. A test that needs
one skips with the reason when node/npm cannot install it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT
from tests.helpers.npm import install_or_skip
from tests.interop.conftest import GeminiCli, _npm_env

CLAUDE_CODE_VERSION = "2.1.332"
COPILOT_CLI_VERSION = "1.0.102"


def _offline(argv: list[str]) -> list[str]:
    """``argv`` in a network namespace of its own when this machine allows one."""
    unshare = shutil.which("unshare")
    if unshare and subprocess.run([unshare, "-n", "true"], capture_output=True).returncode == 0:
        return [unshare, "-n", *argv]
    return argv


def _version_of(package: Path) -> str | None:
    try:
        return json.loads((package / "package.json").read_text(encoding="utf-8")).get("version")
    except (OSError, ValueError):
        return None


def _npm_program(prefix: Path, package: str, version: str, program: str) -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip(f"node and npm are needed to run {package} (apt-get install nodejs npm)")
    folder = prefix / "node_modules" / Path(package)
    if _version_of(folder) != version:
        install_or_skip(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
                str(prefix),
                f"{package}@{version}",
            ],
            package=f"{package}@{version}",
            env=_npm_env(),
            timeout=900,
        )
    binary = prefix / "node_modules" / ".bin" / program
    if _version_of(folder) != version or not os.access(binary, os.X_OK):
        pytest.skip(f"npm did not install {package}@{version} with its {program} program")
    return binary


def _env(home: Path) -> dict[str, str]:
    drop = ("ANTHROPIC", "CLAUDE", "GEMINI", "GOOGLE", "GITHUB", "GH_", "COPILOT")
    env = {k: v for k, v in os.environ.items() if not k.startswith(drop)}
    env.update(HOME=str(home), NO_COLOR="1", CI="1", DISABLE_AUTOUPDATER="1")
    return env


@dataclass(frozen=True)
class ClaudeCode:
    program: Path

    def validate(self, target: Path, home: Path, *, strict: bool = False) -> tuple[int, dict]:
        """``claude plugin validate --json`` on ``target``: exit code and report."""
        argv = [str(self.program), "plugin", "validate", "--json", str(target)]
        done = subprocess.run(
            _offline(argv + (["--strict"] if strict else [])),
            env=_env(home),
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        try:
            report = json.loads(done.stdout)
        except ValueError:
            report = {"raw": done.stdout + done.stderr}
        return done.returncode, report


@dataclass(frozen=True)
class CopilotCli:
    program: Path

    def run_json(self, home: Path, *args: str) -> list[dict]:
        done = subprocess.run(
            _offline([str(self.program), *args, "--json"]),
            env=_env(home),
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert done.returncode == 0, done.stdout + done.stderr
        return json.loads(done.stdout)


def gemini_extensions(gemini: GeminiCli, home: Path, plugin: Path) -> list[dict]:
    """``gemini extensions link PLUGIN`` then ``extensions list -o json`` in ``home``."""
    link = subprocess.run(
        _offline(["node", str(gemini.program), "extensions", "link", str(plugin), "--consent"]),
        env=gemini.env(home),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert link.returncode == 0, link.stdout + link.stderr
    listed = subprocess.run(
        _offline(["node", str(gemini.program), "extensions", "list", "-o", "json"]),
        env=gemini.env(home),
        cwd=home,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    text = listed.stdout + listed.stderr
    assert "[" in text, text
    return json.loads(text[text.find("[") :])


@pytest.fixture(scope="session")
def claude_code() -> ClaudeCode:
    prefix = REPO_ROOT / ".cache" / "claude-code"
    return ClaudeCode(
        _npm_program(prefix, "@anthropic-ai/claude-code", CLAUDE_CODE_VERSION, "claude")
    )


@pytest.fixture(scope="session")
def copilot_cli() -> CopilotCli:
    prefix = REPO_ROOT / ".cache" / "copilot-cli"
    return CopilotCli(_npm_program(prefix, "@github/copilot", COPILOT_CLI_VERSION, "copilot"))
