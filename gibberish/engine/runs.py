"""The runs facade: a request becomes a prepared run, then a process.

``prepare`` renders the argv and decides (run / ask / refuse); ``start`` refuses what was
refused or not yet confirmed, checks the skill folder against the fingerprint the person
saw, and hands the runner one :class:`RunSpec` (the one place a run's process is
described). It never blocks on a run: ``start`` returns a handle.
"""

from __future__ import annotations

import collections
import contextlib
import os
import tempfile
import threading
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from gibberish import paths
from gibberish.engine.library import LibraryFacade
from gibberish.engine.model import EngineError, PreparedRun, RecentRun, ToolRef
from gibberish.engine.trust import TrustFacade
from gibberish.redaction import describe_redactions, redact_value
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
from gibberish.trust import sealed_programs
from gibberish.trust.decision import Decision
from gibberish.trust.fingerprint import (
    Fingerprint,
    FingerprintError,
    combine,
    fingerprint,
    outside_programs,
    snapshot_folder,
)
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
        self, ref: ToolRef, args: Mapping[str, Any], own_run: bool
    ) -> tuple[ToolRef, list[str], Decision, Fingerprint]:
        """SKILL.md changed since it was parsed: read it again, or refuse."""
        self._library.reload()
        fresh = self._library.find_tool(ref.ref)
        argv = render(fresh.tool, args, skill_dir=fresh.skill.directory)
        self._trust.check_program_inside(fresh)
        decision, fp = self._trust.decide(fresh.skill, fresh.tool, own_run=own_run)
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
        own_run: bool = False,
    ) -> PreparedRun:
        """Render the argv and decide. Raises ``EngineError``/``RenderError`` for bad requests.

        ``origin`` says who picked the tool: a model's pick gets the limits of
        ``trust.model_reads`` (no credentials, asks before reading outside the project).
        ``own_run`` says the person started this run themselves — a Run they pressed,
        ``gibberish run`` typed, a form they confirmed — so a version they trusted runs
        without another question (docs/adr/0057); leave it False for anything a model or
        the recognizer sends straight to run, which then asks before a tool that writes."""
        ref = self._library.find_tool(target) if isinstance(target, str) else target
        args = dict(args or {})
        argv = render(ref.tool, args, skill_dir=ref.skill.directory)
        self._trust.check_program_inside(ref)
        run_dir = self._run_folder(cwd, context_dir)
        if timeout is not None and not (0 < timeout <= MAX_TIMEOUT):
            raise EngineError(
                f"A timeout must be more than 0 and at most {MAX_TIMEOUT:g} seconds (got {timeout:g})."
            )
        decision, fp = self._trust.decide(ref.skill, ref.tool, own_run=own_run)
        if not self._trust.shows_what_is_on_disk(ref.skill, fp):
            ref, argv, decision, fp = self._reread(ref, args, own_run)
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
            confirmed=own_run,
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
            own_run=own_run,
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
        set here. The skill folder is checked against the fingerprint the person saw, and
        a home program the tool runs is run from its sealed, checked copy.
        """
        try:
            secret_values = self._trust.secrets.resolve(prepared.skill)
        except MissingSecretError as exc:
            raise EngineError(str(exc)) from None
        sandbox, sealed = self._verified_sandbox(prepared)
        argv, fds = sealed_programs.substitute(prepared.argv, prepared.tool.name, sealed)
        sealed_programs.close(sealed_programs.unused(sealed, fds))
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
            sealed_programs.close(sealed)
            raise EngineError(f"{prepared.ref}: {exc}.") from None
        return RunSpec(
            argv=argv,
            cwd=prepared.cwd,
            timeout=prepared.timeout,
            env=env,
            grace=self._settings().grace_period,
            run_id=run_id,
            log_path=self._run_logs.path_for(run_id),
            log_limit=FULL_LOG_LIMIT,
            sandbox=sandbox,
            inherit_fds=fds,
        )

    def _folder_fingerprint(self, sandbox: Sandbox, skill: SkillDefinition) -> Fingerprint:
        """The skill folder's fingerprint: of its private snapshot when sandboxed (copied
        now), else of the folder itself. On any failure the snapshot is removed (by the
        runner's ``remove_snapshot``, the one place a snapshot is deleted) and the run
        refused."""
        try:
            if sandbox.snapshot is None:
                return fingerprint(skill.directory)
            snapshot_folder(skill.directory, sandbox.snapshot)
            return fingerprint(sandbox.snapshot)
        except FingerprintError as exc:
            runner_sandbox.remove_snapshot(sandbox)
            raise EngineError(f"Skill {skill.name!r}: {exc}") from None
        except OSError as exc:
            runner_sandbox.remove_snapshot(sandbox)
            if sandbox.snapshot is None and not skill.directory.is_dir():
                raise EngineError(
                    f"Skill {skill.name!r} is gone from {skill.directory}; reload the skills."
                ) from None
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

    def _verified_sandbox(
        self, prepared: PreparedRun
    ) -> tuple[Sandbox, tuple[sealed_programs.SealedProgram, ...]]:
        """The run's sandbox, with a private snapshot of the skill folder when sandboxed,
        and a sealed copy of each home program the approval covers.

        The snapshot (or, unsandboxed, the folder itself) and the sealed copies must
        match the fingerprint the person saw: if anything changed since, the run is
        refused rather than running something they did not see. The run executes the
        verified copies — the snapshot when sandboxed, the sealed programs always — so a
        file swapped in after this check is never what runs.
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
        folder = self._folder_fingerprint(sandbox, skill)
        try:
            sealed = sealed_programs.seal(outside_programs(skill))
        except OSError as exc:
            runner_sandbox.remove_snapshot(sandbox)
            raise EngineError(f"Skill {skill.name!r} cannot run: {exc}.") from None
        files = {**folder.files, **sealed_programs.digests(sealed)}
        if combine(files) != prepared.fingerprint.digest:
            runner_sandbox.remove_snapshot(sandbox)
            sealed_programs.close(sealed)
            raise EngineError(
                f"Skill {skill.name!r} changed on disk after it was checked; "
                "ask again to see what changed."
            )
        return sandbox, sealed

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

    def for_model(self, result: RunResult) -> dict[str, Any]:
        """The envelope of ``result`` as a model may see it: what the run printed passes
        the redaction (addresses' passwords, well-known token formats, private keys), and
        the person's run log says what was removed. The log keeps the full output."""
        envelope, counts = redact_value(result.envelope.to_dict())
        assert isinstance(envelope, dict)
        if counts and result.log_path is not None:
            note = (
                f"\n[gibberish] Removed before this output went to the model: "
                f"{describe_redactions(counts)}.\n"
            )
            with contextlib.suppress(OSError), open(result.log_path, "a", encoding="utf-8") as log:
                log.write(note)
        return envelope

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
