"""Starting runs and following them: :func:`start`, :func:`run`, :class:`RunHandle`.

Each run gets one background thread (from :mod:`gibberish.runner.workers`) that resolves the program, spawns it, reads its
output and waits for it (see :mod:`gibberish.runner.supervise`), so ``start`` returns at
once and a UI thread never blocks. Everything a caller may do from another thread —
``status``, ``cancel``, ``wait``, ``done``, ``add_done_callback`` — is guarded by a lock.
At interpreter exit, runs still going are cancelled (and waited for, briefly), so
quitting the app does not leave its tools running.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

from gibberish.logger import logger
from gibberish.runner import sandbox, seccomp
from gibberish.runner.capture import LogFile, OutputCapture
from gibberish.runner.envelope import (
    EXIT_CANCELLED,
    EXIT_TIMEOUT,
    Envelope,
    RunResult,
    RunStatus,
    exit_code_from_returncode,
    failure_message,
    timeout_message,
)
from gibberish.runner.process import Waker, spawn
from gibberish.runner.program import LaunchError, check_working_directory, resolve_program
from gibberish.runner.spec import RunSpec
from gibberish.runner.supervise import Outcome, Supervisor, abandon
from gibberish.runner.workers import Workers

_log = logger(__name__)

OutputCallback = Callable[[bytes], None]
DoneCallback = Callable[[RunResult], None]

_active: set[RunHandle] = set()
_active_lock = threading.Lock()
_workers = Workers("gibberish-run")


class RunHandle:
    """A run in progress (or finished). Thread-safe."""

    def __init__(self, spec: RunSpec, on_output: OutputCallback | None = None) -> None:
        self.spec = spec
        self.run_id = spec.run_id
        self._on_output = on_output
        self._lock = threading.Lock()
        self._status = RunStatus.PENDING
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._result: RunResult | None = None
        self._callbacks: list[DoneCallback] = []
        self._waker = Waker()

    def __repr__(self) -> str:
        return f"<RunHandle {self.run_id} {self.status} argv={list(self.spec.argv)!r}>"

    # -- public ------------------------------------------------------------------------

    @property
    def status(self) -> RunStatus:
        with self._lock:
            return self._status

    def cancel(self) -> None:
        """Ask the run to stop. Idempotent; a no-op once the run has ended.

        Before the process started, it never starts (status CANCELLED, exit code None);
        while it runs, it gets the timeout treatment: TERM, grace, KILL (exit code 130).
        """
        with self._lock:
            if self._status.is_final:
                return
            self._cancel.set()
        self._waker.wake()

    def wait(self, timeout: float | None = None) -> RunResult | None:
        """The result, waiting at most ``timeout`` seconds; None if still running then."""
        if not self._done.wait(timeout):
            return None
        return self._result

    def done(self) -> bool:
        return self._done.is_set()

    def add_done_callback(self, fn: DoneCallback) -> None:
        """Call ``fn(result)`` once: from the run's thread, or now if already done."""
        with self._lock:
            if not self._done.is_set():
                self._callbacks.append(fn)
                return
            result = self._result
        assert result is not None
        _call_safely(fn, result)

    # -- the run's thread ----------------------------------------------------------------

    def _launch(self) -> None:
        with _active_lock:
            _active.add(self)
        _workers.submit(self._main)

    def _main(self) -> None:
        try:
            result = self._execute()
        except Exception as exc:  # the handle must end whatever happens
            _log.exception("run %s failed inside the runner", self.run_id)
            result = self._result_of(
                Envelope.before_start(f"internal error in the runner: {exc}"), RunStatus.FAILED
            )
        except BaseException:  # KeyboardInterrupt in run(): processes are killed by now
            self._finish(self._result_of(Envelope.before_start("Interrupted"), RunStatus.CANCELLED))
            raise
        self._finish(result)

    def _run_here(self) -> RunResult:
        with _active_lock:
            _active.add(self)
        self._main()
        assert self._result is not None
        return self._result

    def _execute(self) -> RunResult:
        try:
            return self._execute_spec()
        finally:
            sandbox.remove_snapshot(self.spec.sandbox)
            for fd in self.spec.inherit_fds:
                with contextlib.suppress(OSError):
                    os.close(fd)

    def _command(self, executable: str) -> tuple[tuple[str, ...], str, bool, int | None]:
        """argv, program file, whether it is sandboxed, and the seccomp filter's descriptor
        (to hand to bwrap, then close): bwrap around the program when it works."""
        spec = self.spec
        if spec.sandbox is None:
            return spec.argv, executable, False, None
        current = sandbox.status()
        if not current.active or current.bwrap is None:
            return spec.argv, executable, False, None
        box = spec.sandbox
        program = seccomp.offline_filter(display=box.gui) if box.offline else None
        fd = seccomp.filter_fd(program) if program is not None else None
        argv = sandbox.wrap(
            current.bwrap,
            spec.sandbox,
            argv=spec.argv,
            executable=executable,
            cwd=spec.cwd,
            env=spec.env,
            seccomp_fd=fd,
        )
        return tuple(argv), current.bwrap, True, fd

    def _execute_spec(self) -> RunResult:
        spec = self.spec
        if self._cancel.is_set():
            return self._result_of(
                Envelope.before_start("Cancelled before start"), RunStatus.CANCELLED
            )
        try:
            check_working_directory(spec.cwd)
            executable = resolve_program(spec.argv[0], path=spec.env.get("PATH"), cwd=spec.cwd)
        except LaunchError as exc:
            return self._launch_failure(exc)

        argv, program, sandboxed, filter_fd = self._command(executable)
        passed = ((filter_fd,) if filter_fd is not None else ()) + spec.inherit_fds
        started = time.monotonic()
        try:
            popen = spawn(argv, executable=program, cwd=spec.cwd, env=spec.env, pass_fds=passed)
        except LaunchError as exc:
            return self._launch_failure(exc)
        finally:
            if filter_fd is not None:
                os.close(filter_fd)
        with self._lock:
            self._status = RunStatus.RUNNING
        log = self._open_log()
        capture = OutputCapture()
        try:
            supervisor = Supervisor(
                popen,
                run_id=spec.run_id,
                timeout=spec.timeout,
                grace=spec.grace,
                started=started,
                sink=self._sink(capture, log),
                cancel=self._cancel,
                waker=self._waker,
                sandboxed=sandboxed,
            )
        except BaseException:
            abandon(popen, spec.run_id)
            if log is not None:
                log.close()
            raise
        try:
            outcome = supervisor.run()  # kills everything itself if it fails
            duration_ms = int((time.monotonic() - started) * 1000)
        finally:
            if log is not None:
                log.close()
        envelope, status = self._envelope(outcome, capture, duration_ms)
        return self._result_of(
            envelope,
            status,
            log_path=log.path if log is not None else None,
            log_truncated=log.truncated if log is not None else False,
        )

    # -- helpers -------------------------------------------------------------------------

    def _open_log(self) -> LogFile | None:
        if self.spec.log_path is None:
            return None
        try:
            return LogFile(self.spec.log_path, self.spec.log_limit)
        except OSError as exc:
            _log.warning("run %s: cannot write log %s: %s", self.run_id, self.spec.log_path, exc)
            return None

    def _sink(self, capture: OutputCapture, log: LogFile | None) -> Callable[[memoryview], None]:
        on_output = self._on_output

        def sink(chunk: memoryview) -> None:
            nonlocal on_output
            capture.feed(chunk)
            if log is not None:
                log.write(chunk)
            if on_output is not None:
                try:
                    on_output(bytes(chunk))
                except Exception:
                    # A broken consumer must not stall the run or flood the log.
                    _log.exception("run %s: on_output failed; no more chunks", self.run_id)
                    on_output = None

        return sink

    def _envelope(
        self, outcome: Outcome, capture: OutputCapture, duration_ms: int
    ) -> tuple[Envelope, RunStatus]:
        common = {
            "output": capture.text(),
            "truncated": capture.truncated,
            "duration_ms": duration_ms,
            "parsed": capture.parsed(),
        }
        if outcome.ending is RunStatus.TIMED_OUT:
            error = timeout_message(self.spec.timeout)
            return Envelope(False, EXIT_TIMEOUT, error=error, **common), RunStatus.TIMED_OUT
        if outcome.ending is RunStatus.CANCELLED:
            return Envelope(False, EXIT_CANCELLED, error="Cancelled", **common), RunStatus.CANCELLED
        returncode = outcome.returncode
        if returncode is None:
            error = "The process could not be reaped"
            return Envelope(False, None, error=error, **common), RunStatus.FAILED
        if returncode == 0:
            return Envelope(True, 0, **common), RunStatus.SUCCEEDED
        code = exit_code_from_returncode(returncode)
        return Envelope(False, code, error=failure_message(returncode), **common), RunStatus.FAILED

    def _launch_failure(self, exc: LaunchError) -> RunResult:
        envelope = Envelope(
            success=False,
            exit_code=exc.exit_code,
            output="",
            truncated=False,
            duration_ms=0,
            error=exc.message,
        )
        return self._result_of(envelope, RunStatus.FAILED)

    def _result_of(
        self,
        envelope: Envelope,
        status: RunStatus,
        *,
        log_path: Path | None = None,
        log_truncated: bool = False,
    ) -> RunResult:
        return RunResult(
            envelope=envelope,
            status=status,
            argv=self.spec.argv,
            cwd=self.spec.cwd,
            run_id=self.run_id,
            log_path=log_path,
            log_truncated=log_truncated,
        )

    def _finish(self, result: RunResult) -> None:
        # Release the descriptor before anyone can see the run as done: a caller that
        # counts its open files right after wait() must not find ours.
        self._waker.close()
        with self._lock:
            self._result = result
            self._status = result.status
            callbacks, self._callbacks = self._callbacks, []
            self._done.set()
        with _active_lock:
            _active.discard(self)
        for fn in callbacks:
            _call_safely(fn, result)


def _call_safely(fn: DoneCallback, result: RunResult) -> None:
    try:
        fn(result)
    except Exception:
        _log.exception("run %s: a done callback failed", result.run_id)


def start(spec: RunSpec, *, on_output: OutputCallback | None = None) -> RunHandle:
    """Start ``spec`` on a background thread and return its handle at once.

    ``on_output`` receives the raw output chunks, in order, as they arrive — on the run's
    thread, so it should be quick (a Qt caller emits a signal from it).
    """
    handle = RunHandle(spec, on_output)
    handle._launch()
    return handle


def run(spec: RunSpec, *, on_output: OutputCallback | None = None) -> RunResult:
    """Run ``spec`` to its end and return the result: ``start(spec).wait()``, but done on
    the calling thread — it would only be waiting — which saves two thread hand-offs per
    run. ``on_output`` is then called on the calling thread, and Ctrl-C (KeyboardInterrupt)
    in a CLI kills the run's processes before it propagates.
    """
    return RunHandle(spec, on_output)._run_here()


def active_runs() -> list[RunHandle]:
    """Runs not finished yet (for an app that wants to cancel them on quit)."""
    with _active_lock:
        return list(_active)


@atexit.register
def _cancel_active_runs() -> None:
    handles = active_runs()
    for handle in handles:
        handle.cancel()
    deadline = time.monotonic() + max((h.spec.grace for h in handles), default=0.0) + 2.0
    for handle in handles:
        handle.wait(max(0.0, deadline - time.monotonic()))
