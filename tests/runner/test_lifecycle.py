"""Timeouts, cancellation, and processes that try not to die or not to let go.

Every test here also runs under the autouse fixture that fails it if any process of its
runs (found by parent or by run id) is still alive afterwards.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest

from gibberish.runner import (
    EXIT_CANCELLED,
    EXIT_TIMEOUT,
    RunHandle,
    RunStatus,
    run,
    start,
)
from gibberish.runner.supervise import DRAIN_TIMEOUT
from tests.helpers.processes import kill_all, processes_with_run_id


def wait_for_output(handle_output: list[bytes], needle: bytes, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while needle not in b"".join(handle_output):
        assert time.monotonic() < deadline, f"never saw {needle!r}"
        time.sleep(0.01)


# -- timeout ----------------------------------------------------------------------------


def test_a_tool_that_never_ends_times_out(make_spec):
    started = time.monotonic()
    result = run(make_spec("sleep", "30", timeout=0.5, grace=5.0))
    elapsed = time.monotonic() - started
    assert result.status is RunStatus.TIMED_OUT
    assert result.envelope.exit_code == EXIT_TIMEOUT
    assert result.envelope.error == "Timed out after 0.5 s"
    assert 0.5 <= elapsed < 2.5  # sleep dies on TERM: the run ends without using the grace
    assert processes_with_run_id([result.run_id]) == []


def test_output_before_the_timeout_is_kept(make_spec, script):
    result = run(make_spec(script("echo partial; sleep 30\n"), timeout=0.5))
    assert result.envelope.output == "partial\n"
    assert result.envelope.exit_code == EXIT_TIMEOUT


def test_a_tool_that_ignores_sigterm_is_killed_after_the_grace(make_spec, script):
    tool = script("trap '' TERM\necho ready\nwhile :; do sleep 0.05; done\n")
    started = time.monotonic()
    result = run(make_spec(tool, timeout=0.5, grace=0.3))
    elapsed = time.monotonic() - started
    assert result.envelope.exit_code == EXIT_TIMEOUT
    assert result.envelope.output == "ready\n"
    assert 0.8 <= elapsed < 2.0
    assert processes_with_run_id([result.run_id]) == []


def test_children_that_trap_term_are_killed_too(make_spec, script):
    tool = script("sh -c \"trap '' TERM; sleep 30\" &\nsh -c \"trap '' TERM; sleep 30\" &\nwait\n")
    result = run(make_spec(tool, timeout=0.5, grace=0.3))
    assert result.envelope.exit_code == EXIT_TIMEOUT
    assert processes_with_run_id([result.run_id]) == []


def test_a_tool_that_closes_stdout_but_keeps_running(make_spec, script):
    tool = script("echo before\nexec >&- 2>&-\nsleep 30\n")
    started = time.monotonic()
    result = run(make_spec(tool, timeout=0.7))
    assert result.envelope.exit_code == EXIT_TIMEOUT
    assert result.envelope.output == "before\n"
    assert time.monotonic() - started < 2.0


def test_fork_storm_is_bounded_by_the_timeout(make_spec, script):
    # Spawns sleepers as fast as it can (at most 800, so a broken runner cannot flood
    # the machine) until the timeout ends them all.
    tool = script("i=0\nwhile [ $i -lt 800 ]; do sleep 30 & i=$((i+1)); done\nwait\n")
    started = time.monotonic()
    result = run(make_spec(tool, timeout=1.0, grace=0.3))
    assert result.envelope.exit_code == EXIT_TIMEOUT
    assert time.monotonic() - started < 4.0
    assert processes_with_run_id([result.run_id]) == []


def test_setsid_storm_is_swept_by_run_id(make_spec, script):
    tool = script(
        "i=0\n"
        "while [ $i -lt 100 ]; do ( setsid sleep 30 >/dev/null 2>&1 & ) ; i=$((i+1)); done\n"
        "sleep 30\n"
    )
    result = run(make_spec(tool, timeout=1.0, grace=0.3))
    assert result.envelope.exit_code == EXIT_TIMEOUT
    assert processes_with_run_id([result.run_id]) == []


# -- the main process exits, something stays behind ----------------------------------


def test_background_child_holding_the_pipe_does_not_outlive_the_run(make_spec, script):
    tool = script("sleep 30 &\necho started\nexit 0\n")
    started = time.monotonic()
    result = run(make_spec(tool))
    assert result.envelope.success
    assert result.envelope.output == "started\n"
    assert time.monotonic() - started < 2.0
    assert processes_with_run_id([result.run_id]) == []  # gone at once, not eventually


def test_background_child_with_its_own_output_does_not_outlive_the_run(make_spec, script):
    tool = script("nohup sleep 30 >/dev/null 2>&1 &\necho started\n")
    result = run(make_spec(tool))
    assert result.envelope.success
    assert processes_with_run_id([result.run_id]) == []


# The escapees below signal that they have left the process group (a file appears) before
# the main process exits; otherwise the group kill could get them first and the test
# would prove nothing about the sweep.
ESCAPED = "while [ ! -e escaped ]; do sleep 0.01; done\n"


def test_double_fork_and_setsid_holding_the_pipe(make_spec, script):
    tool = script(
        "( setsid sh -c 'touch escaped; exec sleep 30' & )\n" + ESCAPED + "echo parent done\n"
    )
    started = time.monotonic()
    result = run(make_spec(tool))
    assert result.envelope.success
    assert result.envelope.output == "parent done\n"
    assert time.monotonic() - started < 2.0
    assert processes_with_run_id([result.run_id]) == []


def test_double_fork_and_setsid_with_its_own_output(make_spec, script):
    tool = script(
        "( setsid sh -c 'touch escaped; exec sleep 30' </dev/null >/dev/null 2>&1 & )\n"
        + ESCAPED
        + "echo parent done\n"
    )
    result = run(make_spec(tool))
    assert result.envelope.success
    assert processes_with_run_id([result.run_id]) == []


def test_setsid_escapee_ignoring_term_on_timeout(make_spec, script):
    tool = script(
        "( setsid sh -c \"trap '' TERM; touch escaped; sleep 30\" >/dev/null 2>&1 & )\n"
        + ESCAPED
        + "sleep 30\n"
    )
    result = run(make_spec(tool, timeout=0.5, grace=0.3))
    assert result.envelope.exit_code == EXIT_TIMEOUT
    assert processes_with_run_id([result.run_id]) == []


def test_reader_does_not_hang_on_a_pipe_held_by_a_process_it_cannot_find(make_spec, script):
    # The escapee drops the run id from its environment *and* leaves the process group:
    # the runner cannot find it, but it must still stop reading and return.
    marker = f"31.{uuid.uuid4().int % 10**12:012d}"  # unique: finds exactly our escapee
    tool = script(
        "( env -i /usr/bin/setsid /bin/sh -c"
        f" '/usr/bin/touch escaped; exec /bin/sleep {marker}' & )\n"
        + ESCAPED
        + "echo parent done\n"
    )
    started = time.monotonic()
    try:
        result = run(make_spec(tool))
        elapsed = time.monotonic() - started
    finally:
        escapees = [
            p
            for p in psutil.process_iter(["cmdline"])
            if (p.info["cmdline"] or [])[-1:] == [marker]
        ]
        kill_all(escapees)
    assert len(escapees) == 1  # it really was out there, holding the pipe
    assert result.envelope.success
    assert result.envelope.output == "parent done\n"
    assert DRAIN_TIMEOUT <= elapsed < DRAIN_TIMEOUT + 1.0


# -- cancel -----------------------------------------------------------------------------


def test_cancel_while_running(make_spec, script):
    seen: list[bytes] = []
    handle = start(make_spec(script("echo ready\nsleep 30\n"), grace=5.0), on_output=seen.append)
    wait_for_output(seen, b"ready")
    assert handle.status is RunStatus.RUNNING
    started = time.monotonic()
    handle.cancel()
    result = handle.wait(5)
    assert result is not None
    assert time.monotonic() - started < 2.0  # well within the 5 s grace
    assert result.status is RunStatus.CANCELLED
    assert result.envelope.exit_code == EXIT_CANCELLED
    assert result.envelope.error == "Cancelled"
    assert result.envelope.output == "ready\n"


def test_cancel_a_tool_that_ignores_term(make_spec, script):
    seen: list[bytes] = []
    tool = script("trap '' TERM\necho ready\nwhile :; do sleep 0.05; done\n")
    handle = start(make_spec(tool, grace=0.3), on_output=seen.append)
    wait_for_output(seen, b"ready")
    handle.cancel()
    result = handle.wait(5)
    assert result is not None and result.envelope.exit_code == EXIT_CANCELLED


def test_cancel_twice_and_after_the_end(make_spec):
    handle = start(make_spec("sleep", "30"))
    handle.cancel()
    handle.cancel()
    result = handle.wait(5)
    assert result is not None and result.status is RunStatus.CANCELLED
    handle.cancel()
    assert handle.wait(0) is result
    assert handle.status is RunStatus.CANCELLED


def test_cancel_after_a_normal_end_changes_nothing(make_spec):
    handle = start(make_spec("true"))
    result = handle.wait(5)
    handle.cancel()
    assert handle.wait(0) is result
    assert result is not None and result.status is RunStatus.SUCCEEDED


def test_cancel_while_starting(make_spec):
    for _ in range(20):
        handle = start(make_spec("sleep", "30"))
        handle.cancel()
        result = handle.wait(5)
        assert result is not None
        assert result.status is RunStatus.CANCELLED
        assert result.envelope.exit_code in (None, EXIT_CANCELLED)


def test_cancel_before_the_process_started(make_spec, tmp_path, no_leftover_processes):
    marker = tmp_path / "ran"
    handle = RunHandle(make_spec("touch", marker))
    handle.cancel()
    assert handle.status is RunStatus.PENDING
    handle._launch()
    result = handle.wait(5)
    assert result is not None
    assert result.status is RunStatus.CANCELLED
    assert result.envelope.exit_code is None
    assert result.envelope.error == "Cancelled before start"
    assert not marker.exists()


def test_cancel_from_another_thread_and_from_the_output_callback(make_spec, script):
    tool = script("echo go\nsleep 30\n")
    handles: list = []

    def on_output(chunk: bytes) -> None:
        handles[0].cancel()

    handles.append(start(make_spec(tool), on_output=on_output))
    result = handles[0].wait(5)
    assert result is not None and result.status is RunStatus.CANCELLED

    other = start(make_spec("sleep", "30"))
    threading.Timer(0.1, other.cancel).start()
    result = other.wait(5)
    assert result is not None and result.status is RunStatus.CANCELLED


# -- handle -----------------------------------------------------------------------------


def test_wait_with_a_timeout_returns_none_while_running(make_spec):
    handle = start(make_spec("sleep", "30"))
    try:
        assert handle.wait(0.1) is None
        assert not handle.done()
    finally:
        handle.cancel()
        assert handle.wait(5) is not None
        assert handle.done()


def test_done_callbacks(make_spec):
    called: list[tuple] = []
    finished = threading.Event()
    handle = start(make_spec("sh", "-c", "sleep 0.2; echo hi"))

    def callback(result) -> None:
        called.append((result.envelope.output, threading.current_thread().name))
        finished.set()

    handle.add_done_callback(callback)
    assert finished.wait(5)
    result = handle.wait(5)
    assert called == [("hi\n", called[0][1])]
    assert called[0][1] != threading.current_thread().name

    late: list = []
    handle.add_done_callback(late.append)  # already done: called at once, here
    assert late == [result]


def test_a_failing_done_callback_does_not_stop_the_others(make_spec):
    handle = start(make_spec("sleep", "0.2"))
    seen: list = []
    handle.add_done_callback(lambda r: 1 / 0)
    handle.add_done_callback(seen.append)
    result = handle.wait(5)
    deadline = time.monotonic() + 2
    while not seen and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen == [result]


def test_launch_failure_is_reported_through_the_handle(make_spec):
    handle = start(make_spec("no-such-program-xyz"))
    result = handle.wait(5)
    assert result is not None and result.status is RunStatus.FAILED
    assert handle.status is RunStatus.FAILED


def test_a_real_signal_from_outside_is_not_a_cancel(make_spec, script):
    seen: list[bytes] = []
    handle = start(make_spec(script("echo ready\nexec sleep 30\n")), on_output=seen.append)
    wait_for_output(seen, b"ready")
    for proc in psutil.process_iter(["environ"]):
        if (proc.info["environ"] or {}).get("GIBBERISH_RUN_ID") == handle.run_id:
            proc.terminate()
    result = handle.wait(5)
    assert result is not None
    assert result.status is RunStatus.FAILED
    assert result.envelope.exit_code == 143


def test_ctrl_c_during_run_kills_the_processes_and_propagates(make_spec, script):
    tool = script("echo ready\nsleep 30 &\nsleep 30\n")

    def interrupt(chunk: bytes) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        run(make_spec(tool), on_output=interrupt)
    # the autouse fixture checks that both sleeps are gone


def test_quitting_the_interpreter_cancels_active_runs(tmp_path):
    code = textwrap.dedent(
        f"""
        import sys, time
        sys.path.insert(0, {str(Path(__file__).resolve().parents[2])!r})
        from gibberish.runner import RunSpec, start
        handle = start(RunSpec(argv=("sleep", "30"), cwd={str(tmp_path)!r}, grace=0.3))
        while handle.status != "running":
            time.sleep(0.01)
        print(handle.run_id, flush=True)
        """
    )
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=20, check=True
    )
    run_id = done.stdout.strip()
    assert len(run_id) == 32
    assert time.monotonic() - started < 10
    assert processes_with_run_id([run_id]) == []
