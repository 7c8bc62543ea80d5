"""Skill folders for the interop tests: an approved read-only tool, a tool that asks."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from gibberish.trust.approvals import ApprovalStore
from gibberish.trust.fingerprint import fingerprint

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
