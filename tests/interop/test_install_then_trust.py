"""From outside, as a person would: ``gibberish install`` a write skill, run it (it warns
and asks), trust this version with ``gibberish approvals approve``, run it as a real
process with no terminal and no ``--yes`` (it runs), update it from its source (it asks
again, with the diff), all through the real install, update and command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from gibberish.cli import run as run_module
from tests.interop.builders import write_skill
from tests.interop.conftest import child_env


def gibberish_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m gibberish …`` as its own process, stdin not a terminal."""
    return subprocess.run(
        [sys.executable, "-m", "gibberish", "--no-bundled", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=child_env(),
        timeout=60,
    )


def source_skill(folder: Path, words: str) -> Path:
    skill = write_skill(folder, "alpha", command=f"echo {words}")
    text = (skill / "SKILL.md").read_text().replace("read_only: true\n", "")
    (skill / "SKILL.md").write_text(text)  # a tool that may change things
    return skill


def test_an_installed_skill_trusted_by_version_runs_until_an_update(
    tmp_path: Path, gib, monkeypatch
) -> None:
    source = source_skill(tmp_path / "src", "version-one")
    assert gib("install", str(source), "--yes").exit_code == 0

    first = gibberish_process("run", "alpha.hello")
    assert first.returncode == 1, first.stdout + first.stderr
    assert "was installed from outside and you have not trusted it yet" in first.stderr
    assert json.loads(first.stdout)["exit_code"] is None
    assert "`gibberish approvals approve alpha`" in first.stderr  # the hint used below

    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    trusted = gib("approvals", "approve", "alpha", input="y\n")
    assert trusted.exit_code == 0, trusted.output
    assert f"from      {source}" in trusted.output and "files     SKILL.md" in trusted.output

    ran = gibberish_process("run", "alpha.hello")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    assert json.loads(ran.stdout)["output"] == "version-one\n"
    assert "WARNING" not in ran.stderr

    source_skill(tmp_path / "src", "version-two")
    assert gib("update", "alpha", "--yes").exit_code == 0
    after = gibberish_process("run", "alpha.hello")
    assert after.returncode == 1 and "changed since you trusted it" in after.stderr
    asked = gib("run", "alpha.hello", input="n\n")
    assert "WARNING: This skill was installed from outside" in asked.output
    assert "~ SKILL.md" in asked.output
    assert "-echo version-one" in asked.output and "+echo version-two" in asked.output
    assert "[a]lways: trust this version" in asked.output
