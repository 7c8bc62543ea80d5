"""The worker pool: a thread per running job, idle threads reused, then retired."""

from __future__ import annotations

import threading
import time

from gibberish.runner.workers import Workers


def _wait_until(condition, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.005)


def _named(name: str) -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == name]


def test_jobs_run_concurrently_on_separate_threads():
    workers = Workers("test-concurrent", idle_timeout=0.2)
    barrier = threading.Barrier(4, timeout=5)
    seen: set[int] = set()

    def job() -> None:
        seen.add(threading.get_ident())
        barrier.wait()  # deadlocks unless all four run at once

    for _ in range(3):
        workers.submit(job)
    barrier.wait()
    _wait_until(lambda: len(seen) == 3)


def test_idle_threads_are_reused_then_retire():
    workers = Workers("test-reuse", idle_timeout=0.3)
    idents: list[int] = []
    done = threading.Event()

    def job() -> None:
        idents.append(threading.get_ident())
        done.set()

    for _ in range(5):
        done.clear()
        workers.submit(job)
        assert done.wait(5)
        _wait_until(lambda: workers._idle == 1)  # the worker is back waiting for a job
    assert len(set(idents)) == 1
    _wait_until(lambda: not _named("test-reuse"))


def test_a_failing_job_does_not_break_the_pool():
    workers = Workers("test-failing", idle_timeout=0.2)
    ran = threading.Event()

    def bad() -> None:
        raise RuntimeError("boom")

    original_hook = threading.excepthook
    threading.excepthook = lambda args: None
    try:
        workers.submit(bad)
        time.sleep(0.05)
        workers.submit(ran.set)
        assert ran.wait(5)
    finally:
        threading.excepthook = original_hook
