"""Process execution: environment, spawn, capture, timeout, kill, envelope.

Knows nothing of skills or approval: it gets a :class:`RunSpec` (argv, cwd, environment,
limits) and returns a :class:`RunResult` whose :class:`Envelope` is the JSON the rest of
gibberish shows or hands to a model (docs/adr/0008-running-a-tool.md).

Modules, one job each: ``spec`` (what to run), ``env`` (the child environment),
``workdir`` (where), ``program`` (finding the program, launch errors), ``process``
(spawning and watching), ``capture`` (head/tail, JSON, log file), ``kill`` (process
group and run-id sweep), ``supervise`` (one run's life), ``workers`` (threads),
``handle`` (the public start/run/RunHandle), ``envelope`` (the result), ``sandbox``
(bubblewrap around a run whose spec asks for it), ``sandbox_mounts`` (what of the host
a sandboxed run sees), ``seccomp`` (the filter that keeps offline runs to a list of
socket families), ``sandbox_advice`` (why bwrap is blocked, and the fix), ``logs`` (run log
paths and pruning).

Decisions beyond docs/adr/0008-running-a-tool.md:

* **Cancel** reports exit code 130 (the shell's "interrupted", 128 + SIGINT) and error
  ``Cancelled``, whatever signal ended the process; cancelled before the process started:
  exit code ``None``, ``Cancelled before start``. Timeout is always 124.
* **parsed** is present only for a JSON *object or array* (after stripping whitespace and
  a BOM) that is the *whole* output, and only while the whole output is at most
  :data:`PARSE_LIMIT` (1 MiB) — it may be present when ``output`` itself is truncated to
  head + tail. Scalars (``42``, ``true``, ``"x"``, ``null``) are text, not documents;
  ``NaN``/``Infinity`` and invalid UTF-8 mean no ``parsed``. It is attempted whatever the
  exit code (a tool may print a JSON error).
* **Background children**: when the main process exits, whatever it left — the rest of its
  process group, and any process carrying its ``GIBBERISH_RUN_ID`` — is SIGKILLed at
  once, without a grace, before the result is returned. A tool that wants something to
  keep running must hand it to the session (``systemd-run --user``, ``xdg-open`` via the
  desktop's launcher service). Only processes created after the run's own (pids above it,
  read from ``/proc/sys/kernel/ns_last_pid``) are checked on this path, which keeps a
  normal run cheap; a timeout or cancel sweeps everything.
* **Timeout / cancel**: SIGTERM to the group and to every process carrying the run id at
  the same moment; SIGKILL to all after ``grace``; the run ends early when all are gone.
* **PATH**: relative entries (``.``, empty) are dropped from the child's PATH and ignored
  in the lookup: a run's cwd is often a freshly cloned repository.
* ``run()`` works on the calling thread (it would only wait otherwise); ``start()`` uses a
  background thread per run, from a pool that keeps idle threads for 30 s.
* At interpreter exit, active runs are cancelled and waited for (grace + 2 s at most).

* **Sandbox**: a spec with a :class:`~gibberish.runner.sandbox.Sandbox` runs inside
  bubblewrap where it works (its own PID namespace: everything dies with the main
  process; ``read_only`` and ``network: false`` enforced by mounts and namespaces; no
  capabilities; an offline run reaches no host socket, docs/adr/0027; the places a
  spec's ``hidden`` names are empty). A process killed by signal N then reports exit
  code 128+N as a plain exit status.

Known limit without the sandbox: a process that both leaves the process group
(``setsid``) *and* drops ``GIBBERISH_RUN_ID`` from its environment (``env -i``) cannot be
found; the runner still stops reading its pipe after :data:`supervise.DRAIN_TIMEOUT` and
returns. Inside the sandbox there is no such limit.
"""

from gibberish.lazy import lazy_exports

# Loaded on first use: importing one module of the runner (the sandbox's status, say)
# must not load the whole of it (psutil, the supervisor, the worker threads).
_MODULES = {
    "ABSENT": "gibberish.runner.envelope",
    "EXIT_CANCELLED": "gibberish.runner.envelope",
    "EXIT_CANNOT_EXECUTE": "gibberish.runner.envelope",
    "EXIT_NOT_FOUND": "gibberish.runner.envelope",
    "EXIT_TIMEOUT": "gibberish.runner.envelope",
    "Envelope": "gibberish.runner.envelope",
    "HEAD_LIMIT": "gibberish.runner.capture",
    "PARSE_LIMIT": "gibberish.runner.capture",
    "RUN_ID_VAR": "gibberish.runner.spec",
    "RunHandle": "gibberish.runner.handle",
    "RunResult": "gibberish.runner.envelope",
    "RunSpec": "gibberish.runner.spec",
    "RunStatus": "gibberish.runner.envelope",
    "TAIL_LIMIT": "gibberish.runner.capture",
    "active_runs": "gibberish.runner.handle",
    "build_environment": "gibberish.runner.env",
    "new_run_id": "gibberish.runner.spec",
    "run": "gibberish.runner.handle",
    "start": "gibberish.runner.handle",
    "working_directory": "gibberish.runner.workdir",
}

__all__ = [
    "ABSENT",
    "EXIT_CANCELLED",
    "EXIT_CANNOT_EXECUTE",
    "EXIT_NOT_FOUND",
    "EXIT_TIMEOUT",
    "HEAD_LIMIT",
    "PARSE_LIMIT",
    "RUN_ID_VAR",
    "TAIL_LIMIT",
    "Envelope",
    "RunHandle",
    "RunResult",
    "RunSpec",
    "RunStatus",
    "active_runs",
    "build_environment",
    "new_run_id",
    "run",
    "start",
    "working_directory",
]


__getattr__, __dir__ = lazy_exports(__name__, _MODULES)
