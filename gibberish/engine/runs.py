"""The runs facade: a request becomes a prepared run, then a process.

``prepare`` renders the argv and decides (run / ask / refuse); ``start`` refuses what was
refused or not yet confirmed, checks the skill folder against the fingerprint the person
saw, and hands the runner one :class:`RunSpec` (the one place a run's process is
described). It never blocks on a run: ``start`` returns a handle.
"""

from __future__ import annotations

import collections
import os
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gibberish import paths
from gibberish.engine.library import LibraryFacade
from gibberish.engine.trust import TrustFacade
from gibberish.engine.values import EngineError, PreparedRun, RecentRun, ToolRef
from gibberish.runner import (
    RunHandle,
    RunResult,
    RunSpec,
    build_environment,
    new_run_id,
    start,
    working_directory,
)
from gibberish.runner import sandbox as runner_sandbox
from gibberish.runner.logs import RunLogs
from gibberish.runner.sandbox import Sandbox
from gibberish.runner.workdir import git_root
from gibberish.settings import Settings
from gibberish.skills.model import Mode, SkillDefinition, ToolDefinition
from gibberish.skills.render import coerce_value, render
from gibberish.trust.decision import Decision
from gibberish.trust.fingerprint import Fingerprint, outside_programs, snapshot_folder
from gibberish.trust.model_reads import RunOrigin, limit_model_run, project_folder
from gibberish.trust.secrets import MissingSecretError

RECENT_RUNS = 20
FULL_LOG_LIMIT = 16 * 1024 * 1024
MAX_TIMEOUT = 300.0
"""The longest timeout a request may ask for, in seconds."""


class RunsFacade:
    def __init__(
        self,
        library: LibraryFacade,
        trust: TrustFacade,
        settings: Callable[[], Settings],
        current_mode: Callable[[], Mode],
    ) -> None:
        self._library = library
        self._trust = trust
        self._settings = settings
        self._current_mode = current_mode
        self._lock = threading.Lock()
        self._recent: collections.deque[RecentRun] = collections.deque(maxlen=RECENT_RUNS)
        self._handles: set[RunHandle] = set()
        self._run_logs = RunLogs(paths.state_dir() / "runs")
        self._snapshots_pruned = False

    # ------------------------------------------------------------------ preparing
    @staticmethod
    def coerce_arguments(tool: ToolDefinition, args: Mapping[str, Any]) -> dict[str, Any]:
        out = {}
        for name, value in args.items():
            param = tool.parameter(name)
            out[name] = value if param is None else coerce_value(param, value)
        return out

    def render(self, target: ToolRef | str, args: Mapping[str, Any]) -> list[str]:
        ref = self._library.find_tool(target) if isinstance(target, str) else target
        return render(ref.tool, args, skill_dir=ref.skill.directory)

    def _reread(
        self, ref: ToolRef, args: Mapping[str, Any]
    ) -> tuple[ToolRef, list[str], Decision, Fingerprint]:
        """SKILL.md changed since it was parsed: read it again, or refuse."""
        self._library.reload()
        fresh = self._library.find_tool(ref.ref)
        argv = render(fresh.tool, args, skill_dir=fresh.skill.directory)
        self._trust.check_program_inside(fresh)
        decision, fp = self._trust.decide(fresh.skill, fresh.tool)
        if not self._trust.shows_what_is_on_disk(fresh.skill, fp):
            raise EngineError(
                f"Skill {fresh.skill.name!r} is changing on disk right now; try again in a moment."
            )
        return fresh, argv, decision, fp

    @staticmethod
    def _run_folder(cwd: Path | None, context_dir: Path | None) -> Path:
        if cwd is None:
            return working_directory(context_dir)
        cwd = Path(cwd).expanduser()
        if not cwd.is_dir():
            raise EngineError(f"Working folder {cwd} does not exist.")
        return cwd.resolve()

    def prepare(
        self,
        target: ToolRef | str,
        args: Mapping[str, Any] | None = None,
        *,
        cwd: Path | None = None,
        context_dir: Path | None = None,
        timeout: float | None = None,
        mode: Mode | None = None,
        origin: RunOrigin = RunOrigin.PERSON,
    ) -> PreparedRun:
        """Render the argv and decide. Raises ``EngineError``/``RenderError`` for bad requests.

        ``origin`` says who picked the tool: a model's pick gets the limits of
        ``trust.model_reads`` (no credentials, asks before reading outside the project)."""
        ref = self._library.find_tool(target) if isinstance(target, str) else target
        args = dict(args or {})
        argv = render(ref.tool, args, skill_dir=ref.skill.directory)
        self._trust.check_program_inside(ref)
        run_dir = self._run_folder(cwd, context_dir)
        if timeout is not None and not (0 < timeout <= MAX_TIMEOUT):
            raise EngineError(
                f"A timeout must be more than 0 and at most {MAX_TIMEOUT:g} seconds (got {timeout:g})."
            )
        decision, fp = self._trust.decide(ref.skill, ref.tool)
        if not self._trust.shows_what_is_on_disk(ref.skill, fp):
            ref, argv, decision, fp = self._reread(ref, args)
        decision, hidden = limit_model_run(
            origin,
            decision,
            ref=ref.ref,
            skill=ref.skill,
            arguments=args,
            workdir=run_dir,
            sandboxed=runner_sandbox.status().active,
            argv=argv,
            project=project_folder(run_dir, None if cwd else context_dir, git_root),
        )
        return PreparedRun(
            skill=ref.skill,
            tool=ref.tool,
            arguments=self.coerce_arguments(ref.tool, args),
            argv=tuple(argv),
            cwd=run_dir,
            timeout=float(timeout if timeout is not None else ref.skill.timeout_secs),
            decision=decision,
            fingerprint=fp,
            mode=mode if mode is not None else self._current_mode(),
            programs=outside_programs(ref.skill),
            secrets=self._trust.secrets.receives(ref.skill),
            origin=origin,
            hidden=hidden,
        )

    # ------------------------------------------------------------------ starting
    def start(
        self,
        prepared: PreparedRun,
        *,
        confirmed: bool = False,
        on_output: Callable[[bytes], None] | None = None,
    ) -> RunHandle:
        """Start a prepared run. ``confirmed`` says a person accepted an ``ask`` decision.

        The skill's folder is fingerprinted again: if it changed after the person looked
        at it, the run is refused rather than running something they did not see.
        """
        decision = prepared.decision
        if decision.refused:
            raise EngineError(decision.reason)
        if decision.asks and not confirmed:
            raise EngineError(f"{prepared.ref} needs your approval first: {decision.reason}")
        spec = self.run_spec(prepared)
        handle = start(spec, on_output=on_output)
        with self._lock:
            self._handles.add(handle)
        handle.add_done_callback(lambda result: self._finished(prepared, handle, result))
        return handle

    def run_spec(self, prepared: PreparedRun) -> RunSpec:
        """What the runner is given for ``prepared``: argv, folder, environment, limits.

        The one place a run's process is described; everything the runner enforces
        (timeout, grace period, output limits, the environment filter, the sandbox) is
        set here. The skill folder is checked against the fingerprint the person saw.
        """
        try:
            secret_values = self._trust.secrets.resolve(prepared.skill)
        except MissingSecretError as exc:
            raise EngineError(str(exc)) from None
        sandbox = self._verified_sandbox(prepared)
        run_id = new_run_id()
        try:
            env = build_environment(
                os.environ,
                skill_name=prepared.skill.name,
                skill_dir=prepared.skill.directory,
                mode=prepared.mode.value,
                run_id=run_id,
                secrets=secret_values,
                pycache_prefix=paths.cache_dir() / "pycache",
            )
        except ValueError as exc:
            runner_sandbox.remove_snapshot(sandbox)
            raise EngineError(f"{prepared.ref}: {exc}.") from None
        return RunSpec(
            argv=prepared.argv,
            cwd=prepared.cwd,
            timeout=prepared.timeout,
            env=env,
            grace=self._settings().grace_period,
            run_id=run_id,
            log_path=self._run_logs.path_for(run_id),
            log_limit=FULL_LOG_LIMIT,
            sandbox=sandbox,
        )

    def _snapshot(self, sandbox: Sandbox, skill: SkillDefinition) -> Fingerprint:
        """Copy the skill folder into the sandbox's private snapshot; its fingerprint.
        On any failure the snapshot is removed (by the runner's ``remove_snapshot``, the
        one place a snapshot is deleted) and the run refused."""
        assert sandbox.snapshot is not None
        try:
            snapshot_folder(skill.directory, sandbox.snapshot)
            return self._trust.fingerprint(skill, folder=sandbox.snapshot)
        except (OSError, EngineError) as exc:
            runner_sandbox.remove_snapshot(sandbox)
            raise EngineError(
                f"Skill {skill.name!r} could not be copied for its run: {exc}"
            ) from None

    def _new_snapshot_folder(self) -> Path:
        parent = paths.cache_dir() / "snapshots"
        parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        if not self._snapshots_pruned:  # leftovers of a process that crashed mid-run
            self._snapshots_pruned = True
            runner_sandbox.prune_snapshots(parent)
        return Path(tempfile.mkdtemp(prefix="run-", dir=parent))

    def _verified_sandbox(self, prepared: PreparedRun) -> Sandbox:
        """The run's sandbox, with a private snapshot of the skill folder when sandboxed.

        The snapshot (or, unsandboxed, the folder itself) must match the fingerprint the
        person saw: if it changed since, the run is refused rather than running something
        they did not see. Sandboxed, the run executes the verified copy, so a file swapped
        in the original after this check is never what runs.
        """
        skill = prepared.skill
        sandboxed = runner_sandbox.status().active
        sandbox = Sandbox(
            read_only=skill.read_only,
            network=skill.network,
            skill_dir=skill.directory,
            snapshot=self._new_snapshot_folder() if sandboxed else None,
            gui=skill.gui,
            hidden=prepared.hidden,
        )
        current = self._snapshot(sandbox, skill) if sandboxed else self._trust.fingerprint(skill)
        if current.digest != prepared.fingerprint.digest:
            runner_sandbox.remove_snapshot(sandbox)
            raise EngineError(
                f"Skill {skill.name!r} changed on disk after it was checked; "
                "ask again to see what changed."
            )
        return sandbox

    def run(
        self,
        prepared: PreparedRun,
        *,
        confirmed: bool = False,
        on_output: Callable[[bytes], None] | None = None,
    ) -> RunResult:
        """Start ``prepared`` and wait for it (the command line's way)."""
        handle = self.start(prepared, confirmed=confirmed, on_output=on_output)
        result = handle.wait()
        assert result is not None
        return result

    # ------------------------------------------------------------------ runs under way
    def _finished(self, prepared: PreparedRun, handle: RunHandle, result: RunResult) -> None:
        with self._lock:
            self._handles.discard(handle)
            self._recent.appendleft(RecentRun(prepared.ref, prepared.argv, result))

    def recent(self) -> list[RecentRun]:
        with self._lock:
            return list(self._recent)

    def running(self) -> list[RunHandle]:
        with self._lock:
            return list(self._handles)

    def cancel_all(self, *, wait: float | None = 10.0) -> None:
        """Cancel every run (used on quit) and wait until each process tree is gone."""
        handles = self.running()
        for handle in handles:
            handle.cancel()
        for handle in handles:
            handle.wait(wait)
