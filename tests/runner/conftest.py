"""Runner tests: shared helpers, and the rule that no test leaves a process behind."""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

import pytest

from gibberish.runner import RunSpec, build_environment, new_run_id
from tests.helpers.processes import RunIdRecorder, assert_no_leftovers


@pytest.fixture(autouse=True)
def no_leftover_processes(monkeypatch: pytest.MonkeyPatch):
    """Every test must end with no process of its runs alive and no child unreaped."""
    recorder = RunIdRecorder.install(monkeypatch)
    yield recorder
    assert_no_leftovers(recorder.run_ids, timeout=3.0)


@pytest.fixture
def script(tmp_path: Path) -> Callable[[str, str], Path]:
    """Write an executable ``#!/bin/sh`` script into tmp_path and return its path."""

    def write(body: str, name: str = "tool.sh") -> Path:
        path = tmp_path / name
        path.write_text("#!/bin/sh\n" + body.lstrip("\n"))
        path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
        return path

    return write


@pytest.fixture
def make_spec(tmp_path: Path) -> Callable[..., RunSpec]:
    """A RunSpec with a realistic environment built from this process's environment."""

    def make(*argv: str | Path, **overrides) -> RunSpec:
        run_id = overrides.pop("run_id", None) or new_run_id()
        env = overrides.pop("env", None)
        if env is None:
            env = build_environment(
                os.environ,
                skill_name="test-skill",
                skill_dir=tmp_path,
                mode="Global",
                run_id=run_id,
                secrets=overrides.pop("secrets", None),
            )
        overrides.setdefault("cwd", tmp_path)
        overrides.setdefault("timeout", 10.0)
        overrides.setdefault("grace", 0.3)
        return RunSpec(argv=tuple(str(a) for a in argv), env=env, run_id=run_id, **overrides)

    return make
