"""Many runs, one after another and at once: nothing leaks, nothing interferes."""

from __future__ import annotations

import threading
import time

from gibberish.runner import EXIT_TIMEOUT, RunStatus, run, start
from tests.helpers.processes import (
    assert_fds_settle,
    descendants,
    fd_targets,
    open_fds,
    processes_with_run_id,
    zombie_children,
)


def test_two_hundred_runs_leak_nothing(make_spec):
    run(make_spec("/bin/true"))  # warm up: the first run creates the worker thread
    fds_before, snapshot = open_fds(), fd_targets()
    threads_before = threading.active_count()
    run_ids = []
    for _ in range(200):
        result = run(make_spec("/bin/true"))
        assert result.status is RunStatus.SUCCEEDED
        run_ids.append(result.run_id)
    assert descendants() == []
    assert zombie_children() == []
    assert processes_with_run_id(run_ids) == []
    assert_fds_settle(fds_before, snapshot=snapshot)
    # Idle worker threads are kept for reuse (a finishing run's thread may not be idle yet
    # when the next run starts), but their number must not grow with the number of runs.
    assert threading.active_count() <= threads_before + 2


def test_failed_launches_leak_nothing(make_spec, tmp_path):
    fds_before, snapshot = open_fds(), fd_targets()
    for _ in range(50):
        assert run(make_spec("no-such-program-xyz")).envelope.exit_code == 127
        assert run(make_spec("true", cwd=tmp_path / "gone")).envelope.exit_code is None
    assert_fds_settle(fds_before, snapshot=snapshot)


def test_timeouts_and_cancels_leak_nothing(make_spec):
    run(make_spec("/bin/true"))
    fds_before, snapshot = open_fds(), fd_targets()
    for _ in range(5):
        assert run(make_spec("sleep", "30", timeout=0.1)).envelope.exit_code == EXIT_TIMEOUT
        handle = start(make_spec("sleep", "30"))
        handle.cancel()
        assert handle.wait(5) is not None
    assert_fds_settle(fds_before, snapshot=snapshot)
    assert zombie_children() == []


def test_concurrent_runs_do_not_interfere(make_spec, script):
    talker = script(
        'i=0; while [ $i -lt 2000 ]; do echo "$1 $i"; i=$((i+1)); done\n', name="talker.sh"
    )
    streams: dict[str, list[bytes]] = {}
    handles = []
    for n in range(6):
        name = f"run{n}"
        streams[name] = []
        handles.append((name, start(make_spec(talker, name), on_output=streams[name].append)))
    sleeper = start(make_spec("sleep", "30", timeout=0.5))
    quick = [start(make_spec("echo", str(n))) for n in range(10)]

    for name, handle in handles:
        result = handle.wait(10)
        assert result is not None and result.envelope.success
        expected = "".join(f"{name} {i}\n" for i in range(2000))
        assert b"".join(streams[name]).decode() == expected
        assert result.envelope.output.endswith(expected[-1000:])
    for n, handle in enumerate(quick):
        result = handle.wait(5)
        assert result is not None and result.envelope.output == f"{n}\n"
    slow = sleeper.wait(5)
    assert slow is not None and slow.status is RunStatus.TIMED_OUT


def test_a_timeout_in_one_run_does_not_delay_another(make_spec):
    stuck = start(make_spec("sleep", "30", timeout=1.5))
    started = time.monotonic()
    result = run(make_spec("echo", "fast"))
    assert result.envelope.output == "fast\n"
    assert time.monotonic() - started < 0.5
    assert stuck.wait(5) is not None


def test_the_leak_fixture_sees_runs_of_both_kinds(make_spec, no_leftover_processes):
    first = run(make_spec("true"))
    second = start(make_spec("true")).wait(5)
    assert second is not None
    assert no_leftover_processes.run_ids[-2:] == [first.run_id, second.run_id]
