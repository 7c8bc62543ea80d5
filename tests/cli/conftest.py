"""Helpers for CLI tests: write skill folders, invoke the CLI in-process."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gibberish.cli import cli

SkillWriter = Callable[..., Path]


def skill_text(
    name: str,
    *,
    tools: str,
    version: str = "1.0.0",
    description: str = "A test skill.",
    extra: str = "",
) -> str:
    return (
        f"---\nname: {name}\nversion: {version}\ndescription: {description}\n{extra}---\n\n"
        + textwrap.dedent(tools).lstrip()
    )


ECHO_TOOL = """
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


@pytest.fixture
def skills_root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    root.mkdir()
    return root


@pytest.fixture
def write_skill(skills_root: Path) -> SkillWriter:
    def write(name: str, text: str | None = None, *, root: Path | None = None, **kwargs) -> Path:
        folder = (root or skills_root) / name
        folder.mkdir(parents=True, exist_ok=True)
        if text is None:
            kwargs.setdefault("tools", ECHO_TOOL)
            text = skill_text(name, **kwargs)
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
        return folder

    return write


@pytest.fixture
def invoke(skills_root: Path) -> Callable[..., Result]:
    """Run the CLI with only ``skills_root`` as a skill source (no user, no bundled)."""

    def run(*args: str, input: str | None = None, bundled: bool = False) -> Result:
        base = ["--no-user-skills", "--skills-dir", str(skills_root)]
        if not bundled:
            base.append("--no-bundled")
        return CliRunner().invoke(cli, [*base, *args], input=input, catch_exceptions=False)

    return run
