"""Helpers for CLI tests: write skill folders (``skillkit``), invoke the CLI in-process."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gibberish.cli import cli
from tests.skills.fixtures.skillkit import make_skill, skill_text

SkillWriter = Callable[..., Path]


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
def skills_root(root: Path) -> Path:
    """The empty skills folder of ``tests/conftest.py``, under the name these tests use."""
    return root


@pytest.fixture
def write_skill(skills_root: Path) -> SkillWriter:
    def write(name: str, text: str | None = None, *, root: Path | None = None, **kwargs) -> Path:
        if text is None:
            tools = textwrap.dedent(kwargs.pop("tools", ECHO_TOOL)).lstrip()
            kwargs.setdefault("description", "A test skill.")
            text = skill_text(name, body=tools, **kwargs)
        return make_skill(root or skills_root, name, text)

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
