"""A relative ``--skills-dir`` names the same folder for every part of a run."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.helpers.sandbox import confirm_flags

SKILL = """---
name: hello
version: 1.0.0
description: Say hello from a script.
read_only: true
---

### greet

Print a greeting from the skill's script.

#### Parameters

None.

#### Command

```bash
./scripts/greet.sh
```
"""


def test_a_script_tool_runs_from_a_relative_skills_dir(tmp_path: Path) -> None:
    folder = tmp_path / "spec2" / "hello"
    (folder / "scripts").mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)
    script = folder / "scripts" / "greet.sh"
    script.write_text("#!/bin/sh\necho hello from the script\n")
    script.chmod(0o755)
    work = tmp_path / "work"
    work.mkdir()
    only_spec2 = ["--no-user-skills", "--no-bundled", "--skills-dir", "../spec2"]
    common = [sys.executable, "-m", "gibberish", *only_spec2]

    approved = subprocess.run(
        [*common, "approvals", "approve", "hello", "--yes"],
        cwd=work, capture_output=True, text=True, timeout=60, env=os.environ.copy(),
    )  # fmt: skip
    assert approved.returncode == 0, approved.stderr
    ran = subprocess.run(
        [*common, "run", "hello.greet", "--json", *confirm_flags()],
        cwd=work, capture_output=True, text=True, timeout=60, env=os.environ.copy(),
    )  # fmt: skip
    assert ran.returncode == 0, ran.stdout + ran.stderr
    envelope = json.loads(ran.stdout)
    assert envelope["success"] and envelope["output"].strip() == "hello from the script"

    listed = subprocess.run(
        [*common, "skills", "list", "--json"],
        cwd=work, capture_output=True, text=True, timeout=60, env=os.environ.copy(),
    )  # fmt: skip
    (skill,) = json.loads(listed.stdout)
    assert Path(skill["path"]).is_absolute() and Path(skill["path"]) == folder
