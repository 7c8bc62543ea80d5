"""Run logs are pruned: by age, by count, by total size; nothing else is touched."""

from __future__ import annotations

import os
import time
import uuid
from pathlib import Path

from gibberish import paths
from gibberish.engine.core import Engine, EngineOptions
from gibberish.runner.logs import RetentionPolicy, RunLogs, prune


def make_log(folder: Path, *, age: float = 0.0, size: int = 10) -> Path:
    path = folder / f"{uuid.uuid4().hex}.log"
    path.write_bytes(b"x" * size)
    stamp = time.time() - age
    os.utime(path, (stamp, stamp))
    return path


def test_old_logs_go(tmp_path: Path) -> None:
    old = make_log(tmp_path, age=20 * 24 * 3600)
    new = make_log(tmp_path, age=60)
    assert prune(tmp_path, RetentionPolicy()) == [old]
    assert new.exists()


def test_only_the_newest_are_kept_by_count(tmp_path: Path) -> None:
    logs = [make_log(tmp_path, age=100 - i) for i in range(10)]  # the last is the newest
    removed = prune(tmp_path, RetentionPolicy(max_count=3))
    assert sorted(removed) == sorted(logs[:7])
    assert all(log.exists() for log in logs[7:])


def test_total_size_is_bounded_but_the_newest_log_stays(tmp_path: Path) -> None:
    older = make_log(tmp_path, age=50, size=600)
    newest = make_log(tmp_path, age=1, size=2000)
    removed = prune(tmp_path, RetentionPolicy(max_total_bytes=1000))
    assert removed == [older] and newest.exists()


def test_files_that_are_not_run_logs_are_never_touched(tmp_path: Path) -> None:
    keep = [tmp_path / "notes.txt", tmp_path / "ABC.log", tmp_path / "sub"]
    keep[0].write_text("mine")
    keep[1].write_text("mine")
    keep[2].mkdir()
    for path in keep:
        os.utime(path, (1, 1))
    assert prune(tmp_path, RetentionPolicy(max_count=0, max_age=0)) == []
    assert all(path.exists() for path in keep)


def test_pruning_runs_at_most_once_per_interval(tmp_path: Path) -> None:
    logs = RunLogs(tmp_path, RetentionPolicy(max_count=1))
    for _ in range(3):
        make_log(tmp_path)
    logs.path_for(uuid.uuid4().hex)
    assert len(list(tmp_path.glob("*.log"))) == 1
    make_log(tmp_path)
    logs.path_for(uuid.uuid4().hex)  # within the interval: nothing is listed again
    assert len(list(tmp_path.glob("*.log"))) == 2


def test_the_engine_prunes_its_run_logs() -> None:
    folder = paths.state_dir() / "runs"
    folder.mkdir(parents=True)
    stale = [make_log(folder, age=30 * 24 * 3600, size=1024) for _ in range(5)]
    engine = Engine(EngineOptions(include_user=False))
    result = engine.runs.run(engine.runs.prepare("system.uptime"))
    assert result.log_path is not None and result.log_path.parent == folder
    assert not any(path.exists() for path in stale)
