"""Fixtures for export tests: skill folders to export, and the real Gemini CLI.

Gemini CLI (pinned to ``GEMINI_CLI_VERSION``) is installed with npm into
``.cache/npm-tools`` of the repository: ``.ci/run`` does it before the suite, and the
``gemini_cli`` fixture does it on first use when it is missing. Tests that need it skip
only when ``node`` or ``npm`` is absent.

For the MCP tests: ``skills_dir`` holds an approved read-only tool (echoer), a tool that
asks (writer) and an instruction skill (guide).
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gibberish import paths
from gibberish.cli import cli
from gibberish.trust.approvals import ApprovalStore
from gibberish.trust.fingerprint import fingerprint
from tests.conftest import REPO_ROOT
from tests.helpers.npm import install_or_skip

GEMINI_CLI_VERSION = "0.61.0"
NPM_PREFIX = REPO_ROOT / ".cache" / "npm-tools"
LOADER_SCRIPT = Path(__file__).with_name("gemini_loader.mjs")


@dataclass(frozen=True)
class GeminiCli:
    package: Path

    @property
    def bundle(self) -> Path:
        return self.package / "bundle"

    @property
    def program(self) -> Path:
        return self.package / "bundle" / "gemini.js"

    def env(self, home: Path) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GEMINI", "GOOGLE"))}
        env.update(HOME=str(home), NO_COLOR="1", CI="1")
        return env

    def load_commands(self, home: Path, args: str) -> dict:
        """Every command in ``home/.gemini/commands`` as Gemini CLI's FileCommandLoader
        loads it, with ``args`` substituted the way ``/name ARGS`` would."""
        result = subprocess.run(
            ["node", str(LOADER_SCRIPT), str(self.bundle), args],
            env=self.env(home),
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return json.loads(result.stdout.strip().splitlines()[-1])

    def skills_list(self, home: Path) -> str:
        result = subprocess.run(
            ["node", str(self.program), "skills", "list"],
            env=self.env(home),
            cwd=home,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stdout + result.stderr
        return result.stdout


def _installed(package: Path) -> bool:
    try:
        data = json.loads((package / "package.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return data.get("version") == GEMINI_CLI_VERSION


def _npm_env() -> dict[str, str]:
    """npm as the person would run it: their own npmrc even though HOME is a test folder."""
    env = dict(os.environ)
    user_npmrc = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".npmrc"
    if user_npmrc.is_file():
        env["npm_config_userconfig"] = str(user_npmrc)
    env["npm_config_cache"] = str(REPO_ROOT / ".cache" / "npm-cache")
    return env


@pytest.fixture(scope="session")
def gemini_cli() -> GeminiCli:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.skip(
            "node and npm are needed to run Gemini CLI's own loader (apt-get install nodejs npm)"
        )
    package = NPM_PREFIX / "node_modules" / "@google" / "gemini-cli"
    if not _installed(package):
        install_or_skip(
            [
                "npm",
                "install",
                "--no-audit",
                "--no-fund",
                "--loglevel=error",
                "--prefix",
                str(NPM_PREFIX),
                f"@google/gemini-cli@{GEMINI_CLI_VERSION}",
            ],
            package=f"@google/gemini-cli@{GEMINI_CLI_VERSION}",
            env=_npm_env(),
            timeout=900,
        )
    assert _installed(package), f"npm did not install @google/gemini-cli@{GEMINI_CLI_VERSION}"
    return GeminiCli(package)


def write_skill(root: Path, name: str, text: str, files: dict[str, str] | None = None) -> Path:
    """A skill folder ``root/name`` with SKILL.md ``text`` and extra ``files``."""
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text, encoding="utf-8")
    for rel, content in (files or {}).items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return folder


INSTRUCTION_SKILL = """---
name: art
version: 1.0.0
description: Draw generative art on a canvas. Use when the user asks for algorithmic art.
---

# Algorithmic art

This skill helps you make generative art. Claude should start from `code.js` and put the
canvas into the page from [the template](templates/style.html).

Read [the palette notes](docs/palette.md) before choosing colours.
"""

ART_FILES = {
    "code.js": "function drawCircle(ctx) { ctx.arc(0, 0, 5, 0, 7); }\n",
    "templates/style.html": '<canvas id="c"></canvas>\n',
    "docs/palette.md": "Use the colours in [the list](colors.txt).\n",
    "docs/colors.txt": "teal, coral\n",
    "unused.txt": "never mentioned\n",
}


# -- installer tests (test_install_*) ------------------------------------------------------


@pytest.fixture
def gib() -> Callable[..., Result]:
    """The CLI run in-process against the test's own HOME and XDG folders."""

    def run(*args: str, input: str | None = None) -> Result:
        return CliRunner().invoke(cli, list(args), input=input, catch_exceptions=False)

    return run


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """``install``, ``update`` and ``uninstall`` ask as if a person were at a terminal
    (without one they never ask: they refuse and name the flag)."""
    from gibberish.cli import install as install_cli

    monkeypatch.setattr(install_cli, "_interactive", lambda: True)


@pytest.fixture
def user_skills() -> Path:
    return paths.user_skills_dir()


@pytest.fixture
def state_file() -> Path:
    return paths.data_dir() / "installed.json"


# ---------------------------------------------------------------------- MCP

ECHOER = """---
name: echoer
version: 1.0.0
description: Echo words back. Use when the user wants to hear something repeated.
read_only: true
---

# Echoer

## Usage

Call say with the words to repeat.

### say

Print the words back.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| words | string | yes | What to print |

#### Command

```bash
echo {{words}}
```
"""

WRITER = """---
name: writer
version: 1.0.0
description: Write a marker file. Use when the user wants to leave a mark.
---

### mark

Create a file named marker in the folder given.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| folder | string | yes | Where to write |

#### Command

```bash
touch {{folder}}/marker
```
"""

GUIDE = """---
name: guide
description: How to write release notes. Use when the user drafts release notes.
---

# Release notes

Write for the people who upgrade.

## Structure

Start with breaking changes, then features, then fixes.

## Tone

Plain words, short sentences.
"""


@pytest.fixture
def skills_dir(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for name, text in (("echoer", ECHOER), ("writer", WRITER), ("guide", GUIDE)):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text, encoding="utf-8")
    ApprovalStore().approve("echoer", fingerprint(root / "echoer"), skill_dir=root / "echoer")
    return root


def gibberish_argv(skills_dir: Path, *args: str) -> list[str]:
    """The command that starts gibberish with only ``skills_dir`` (no bundled, no user)."""
    return [
        sys.executable,
        "-m",
        "gibberish",
        "--no-bundled",
        "--no-user-skills",
        "--skills-dir",
        str(skills_dir),
        *args,
    ]


def child_env() -> dict[str, str]:
    """This test's HOME and XDG folders, for a server started as a child process."""
    return dict(os.environ)
