"""Threads for runs: one per run at a time, kept for a while when idle.

Every run gets a thread of its own for its whole life (reader and waiter), so runs never
wait on each other. Creating a thread costs about as much as the rest of the runner's
bookkeeping for a short command, so a finished run's thread waits a little for the next
run instead of exiting; idle threads exit after :data:`IDLE_TIMEOUT`.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable

IDLE_TIMEOUT = 30.0

Job = Callable[[], None]


class Workers:
    """An unbounded pool: a job starts at once on an idle thread or on a new one."""

    def __init__(self, name: str, idle_timeout: float = IDLE_TIMEOUT) -> None:
        self._name = name
        self._idle_timeout = idle_timeout
        self._lock = threading.Lock()
        self._idle = 0
        self._jobs: queue.SimpleQueue[Job] = queue.SimpleQueue()

    def submit(self, job: Job) -> None:
        with self._lock:
            if self._idle:
                # Handing the job over inside the lock is what lets a worker that is just
                # timing out tell "I was promised a job" from "nobody needs me".
                self._idle -= 1
                self._jobs.put(job)
                return
        threading.Thread(target=self._work, args=(job,), name=self._name, daemon=True).start()

    def _work(self, job: Job) -> None:
        while True:
            job()
            del job  # drop the finished run's references while idle
            with self._lock:
                self._idle += 1
            try:
                job = self._jobs.get(timeout=self._idle_timeout)
            except queue.Empty:
                with self._lock:
                    try:
                        job = self._jobs.get_nowait()  # promised while we were timing out
                    except queue.Empty:
                        self._idle -= 1
                        return
