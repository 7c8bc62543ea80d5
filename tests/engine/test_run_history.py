"""Recent runs and folders kept in the state folder: bounded, secrets left out, and a
file someone else wrote (or broke) is read as nothing rather than as orders."""

from __future__ import annotations

import json
from pathlib import Path

from gibberish import paths
from gibberish.engine import run_history


def test_runs_are_kept_newest_first_once_each_without_secrets(tmp_path: Path) -> None:
    run_history.add("git.git_log", {"count": 5}, tmp_path)
    run_history.add("web.fetch", {"url": "x", "api_token": "hunter2"}, tmp_path)
    run_history.add("git.git_log", {"count": 5}, tmp_path)  # the same call moves up
    runs = run_history.runs()
    assert [r.ref for r in runs] == ["git.git_log", "web.fetch"]
    assert runs[1].arguments == {"url": "x"}  # a secret's value is never written
    assert "hunter2" not in (paths.state_dir() / "recent-runs.json").read_text()
    for n in range(run_history.MAX_RUNS + 5):
        run_history.add("system.uptime", {"n": n}, tmp_path)
    assert len(run_history.runs()) == run_history.MAX_RUNS


def test_a_hostile_or_broken_file_is_read_as_nothing(tmp_path: Path) -> None:
    file = paths.state_dir() / "recent-runs.json"
    file.parent.mkdir(parents=True, exist_ok=True)
    for hostile in (
        "not json",
        json.dumps({"ref": "x"}),
        json.dumps([{"ref": 1}, {"ref": "a.b", "arguments": "rm -rf"}, "text", None]),
        json.dumps([{"ref": "a.b", "folder": "relative/../../etc"}]),
        json.dumps([{"ref": "a.b", "folder": str(tmp_path / "gone")}]),
    ):
        file.write_text(hostile)
        assert all(isinstance(r.arguments, dict) for r in run_history.runs())
        assert run_history.folders() == []  # only absolute folders that exist are offered
        assert run_history.last_folder("a.b") is None
    file.write_bytes(b"\xff\xfe broken")
    assert run_history.runs() == []
