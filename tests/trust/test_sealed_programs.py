"""What the approval covers is what runs: a home program swapped after the check never runs.

A real skill runs ``~/bin/helper`` (or ``sh ~/bin/helper.sh``); the person approved the
helper that prints ``approved``. A separate process swaps the helper for one that prints
``UNAPPROVED`` as fast as it can — by renaming a new file over it, by re-pointing a
symlink, or by writing it in place — while the test prepares and starts hundreds of
runs through the Engine, sandboxed and with ``GIBBERISH_SANDBOX=off``. A run whose
prepare saw the approved helper may be refused ("changed on disk") but must never print
``UNAPPROVED``. With the home programs executed from disk by path (the rule removed),
several runs in each variant print it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from gibberish.app import Engine, EngineError, EngineOptions
from gibberish.runner import sandbox
from gibberish.trust import sealed_programs
from gibberish.trust.fingerprint import OutsideProgram

GOOD = "#!/bin/sh\necho approved\n"
BAD = "#!/bin/sh\necho UNAPPROVED\n"
TRIES = 300
BUDGET_S = 20.0  # then stop once ENOUGH_APPROVED runs got through
ENOUGH_APPROVED = 10
HARD_LIMIT_S = 90.0  # a bound however loaded the machine is

SKILL = """---
name: uses-helper
version: 1.0.0
description: Runs a helper from the home folder.
read_only: true
---

### go

Go.

#### Parameters

None.

#### Command

```bash
{command}
```
"""

SWAPPER = """
import os, sys, time
mode, target, good, bad = sys.argv[1:]
tmp = target + ".swap"
flip = False
while True:
    flip = not flip
    text = bad if flip else good
    try:
        if mode == "rename":
            with open(tmp, "w") as f:
                f.write(text)
            os.chmod(tmp, 0o755)
            os.rename(tmp, target)
        elif mode == "symlink":
            os.symlink(target + (".bad" if flip else ".good"), tmp)
            os.rename(tmp, target)
        else:
            with open(target, "w") as f:
                f.write(text)
    except OSError:
        pass
    time.sleep(0.0002)
"""


@pytest.fixture(params=["sandboxed", "unsandboxed"])
def sandbox_mode(request, monkeypatch) -> Iterator[str]:
    if request.param == "unsandboxed":
        monkeypatch.setenv(sandbox.SWITCH_VAR, "off")
    sandbox.reset()
    if request.param == "sandboxed" and not sandbox.status().active:
        pytest.skip("no working bubblewrap here")
    yield request.param
    monkeypatch.delenv(sandbox.SWITCH_VAR, raising=False)
    sandbox.reset()


def _setup(tmp_path: Path, mode: str, command: str) -> tuple[Engine, Path]:
    helper = Path(os.environ["HOME"]) / "bin" / ("helper.sh" if "sh " in command else "helper")
    helper.parent.mkdir(parents=True, exist_ok=True)
    if mode == "symlink":
        for suffix, text in ((".good", GOOD), (".bad", BAD)):
            Path(f"{helper}{suffix}").write_text(text)
            os.chmod(f"{helper}{suffix}", 0o755)
        helper.symlink_to(f"{helper}.good")
    else:
        helper.write_text(GOOD)
        helper.chmod(0o755)
    folder = tmp_path / "skills" / "uses-helper"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL.format(command=command))
    engine = Engine(
        EngineOptions(extra_skills_dirs=(folder.parent,), include_user=False, include_bundled=False)
    )
    engine.trust.approve_prepared(engine.runs.prepare("uses-helper.go"))
    return engine, helper


def _race(engine: Engine, helper: Path, mode: str) -> tuple[int, int, int]:
    """(approved runs, unapproved runs, refused) over the tries (up to ``TRIES``; after
    ``BUDGET_S`` seconds only until ``ENOUGH_APPROVED`` got through; never past
    ``HARD_LIMIT_S``); how many were made is printed."""
    approved_digest = engine.runs.prepare("uses-helper.go").fingerprint.digest
    swapper = subprocess.Popen(
        [sys.executable, "-c", SWAPPER, mode, str(helper), GOOD, BAD],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    good = bad = refused = 0
    start = time.monotonic()
    try:
        while good + bad + refused < TRIES:  # a try: a run of what the person approved
            spent = time.monotonic() - start
            if spent > HARD_LIMIT_S or (spent > BUDGET_S and good >= ENOUGH_APPROVED):
                break  # a loaded machine gets more time, never a weaker test
            try:
                prepared = engine.runs.prepare("uses-helper.go")
            except EngineError:
                refused += 1
                continue
            if prepared.fingerprint.digest != approved_digest:
                continue  # prepare saw the other helper: the person would be asked
            try:
                result = engine.runs.run(prepared, confirmed=True)
            except EngineError:
                refused += 1
                continue
            out = result.envelope.output
            good += "approved" in out
            bad += "UNAPPROVED" in out
    finally:
        swapper.kill()
        swapper.wait()
    print(f"{mode}: {good} approved, {bad} unapproved, {refused} refused")
    return good, bad, refused


@pytest.mark.parametrize("mode", ["rename", "symlink", "in-place"])
def test_a_swapped_home_program_never_runs(tmp_path: Path, sandbox_mode: str, mode: str) -> None:
    engine, helper = _setup(tmp_path, mode, "~/bin/helper")
    good, bad, refused = _race(engine, helper, mode)
    assert bad == 0, f"{bad} unapproved runs ({good} approved, {refused} refused)"
    assert good >= ENOUGH_APPROVED, (
        f"too few runs got through to show anything ({good}, {refused} refused)"
    )


def test_a_swapped_home_script_argument_never_runs(tmp_path: Path, sandbox_mode: str) -> None:
    engine, helper = _setup(tmp_path, "rename", "sh ~/bin/helper.sh")
    good, bad, refused = _race(engine, helper, "rename")
    assert bad == 0, f"{bad} unapproved runs ({good} approved, {refused} refused)"
    assert good >= ENOUGH_APPROVED, (
        f"too few runs got through to show anything ({good}, {refused} refused)"
    )


def test_the_run_executes_the_sealed_copy(tmp_path: Path, sandbox_mode: str) -> None:
    """What runs is the copy: its argv[0] path is a descriptor, not the file in home."""
    engine, _ = _setup(tmp_path, "rename", "~/bin/helper")
    prepared = engine.runs.prepare("uses-helper.go")
    spec = engine.runs.run_spec(prepared)
    assert spec.argv[0].startswith("/proc/self/fd/") and len(spec.inherit_fds) == 1
    for fd in spec.inherit_fds:
        os.close(fd)


def test_an_unreadable_home_program_is_refused_not_run_from_disk(tmp_path: Path) -> None:
    helper = tmp_path / "helper"
    helper.write_text(GOOD)
    program = OutsideProgram("go", str(helper), str(helper), True, "x")
    helper.chmod(0)
    if os.access(helper, os.R_OK):  # root reads anything: make it unreadable another way
        helper.unlink()
        helper.mkdir()
    with pytest.raises(sealed_programs.SealError):
        sealed_programs.seal([program])


def test_a_sealed_copy_cannot_be_written(tmp_path: Path) -> None:
    helper = tmp_path / "helper"
    helper.write_text(GOOD)
    (copy,) = sealed_programs.seal([OutsideProgram("go", str(helper), str(helper), True, "x")])
    try:
        writable = os.open(copy.exec_path, os.O_WRONLY)
        with pytest.raises(PermissionError):
            os.write(writable, b"#!/bin/sh\necho changed\n")
        os.close(writable)
    finally:
        sealed_programs.close([copy])
