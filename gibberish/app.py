"""The Engine: the one entry the tray, the CLI and the model router use.

It composes four facades with one concern each (``gibberish.engine``): ``library``
(where skills come from, loading, lookup, tools), ``trust`` (decisions, fingerprints,
approvals with their copies, secrets), ``runs`` (prepare, start, recent, cancel) and
``feed`` (catalog, tool index, model settings, routing, context blocks and pins). What it
keeps itself is what they share: the settings, the notices, and the current mode.

A request to run a tool becomes a decision (run / ask / refuse, from the trust table) and
then a run, so each rule is enforced in exactly one place whichever front end asked. The
Engine holds no Qt objects and never blocks on a run.

The methods below the facades (``engine.prepare`` …) are thin delegations kept while
branches written against the single Engine are merged; new code calls the facade.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gibberish.desktop.detect import focus_provider
from gibberish.engine.feed import FeedFacade
from gibberish.engine.library import LibraryFacade
from gibberish.engine.model import (
    ApprovalStatus,
    EngineError,
    EngineOptions,
    PreparedRun,
    RecentRun,
    ToolRef,
    tool_ref,
)
from gibberish.engine.runs import FULL_LOG_LIMIT, MAX_TIMEOUT, RECENT_RUNS, RunsFacade
from gibberish.engine.trust import TrustFacade
from gibberish.runner import Envelope, RunHandle, RunResult, RunSpec
from gibberish.runner import sandbox as runner_sandbox
from gibberish.runner.sandbox import SandboxStatus
from gibberish.settings import Settings, load_settings, save_settings
from gibberish.skills.library import LibraryChanges
from gibberish.skills.model import Diagnostic, Mode, SkillDefinition, ToolDefinition
from gibberish.trust import projects as project_trust
from gibberish.trust.approvals import ApprovalStore
from gibberish.trust.decision import Decision
from gibberish.trust.fingerprint import Fingerprint
from gibberish.trust.modes import AppLists, ModeContext, ModeDetector, resolve_mode
from gibberish.trust.secrets import SecretStore

if TYPE_CHECKING:
    from gibberish.assistant import ModelClient, ModelSettings, RouteResult, ToolCatalog
    from gibberish.assistant.context import ContextBlock, ContextFeed
    from gibberish.assistant.tool_index import ToolIndex
    from gibberish.trust.context import MicrophoneProbe

__all__ = [
    "FULL_LOG_LIMIT",
    "MAX_TIMEOUT",
    "RECENT_RUNS",
    "ApprovalStatus",
    "Engine",
    "EngineError",
    "EngineOptions",
    "PreparedRun",
    "RecentRun",
    "ToolRef",
    "tool_ref",
]


class Engine:
    def __init__(
        self,
        options: EngineOptions | None = None,
        *,
        approvals: ApprovalStore | None = None,
        secrets: SecretStore | None = None,
        detector: ModeDetector | None = None,
    ) -> None:
        self.options = options or EngineOptions()
        loaded = load_settings(self.options.settings_path)
        self._settings = loaded.settings
        self._notices: list[str] = list(loaded.notices)
        self._detector = detector
        self.library = LibraryFacade(self.options, lambda: self._settings)
        self.trust = TrustFacade(
            self.library, approvals or ApprovalStore(), secrets or SecretStore()
        )
        self.runs = RunsFacade(self.library, self.trust, lambda: self._settings, self._mode)
        self.feed = FeedFacade(
            self.library, lambda: self._settings, self._mode, self._notices.append
        )

    # ------------------------------------------------------------------ settings
    @property
    def settings(self) -> Settings:
        return self._settings

    def update_settings(self, settings: Settings) -> None:
        """Persist new settings; a change of skills folders takes effect on the next use."""
        save_settings(settings, self.options.settings_path)
        sources_changed = settings.extra_skills_dirs != self._settings.extra_skills_dirs
        self._settings = settings
        if sources_changed:
            self.library.sources_changed()

    def notices(self) -> list[str]:
        """One-time messages for the user (broken settings, tampered approvals ...), drained."""
        out, self._notices[:] = list(self._notices), []
        out.extend(self.trust.approvals.notices())
        out.extend(project_trust.notices())
        sandbox_notice = runner_sandbox.take_notice()
        if sandbox_notice:
            out.append(sandbox_notice)
        return out

    @staticmethod
    def sandbox_status() -> SandboxStatus:
        """Whether runs are sandboxed here (bubblewrap), and a sentence saying so or why not."""
        return runner_sandbox.status()

    # ------------------------------------------------------------------ modes
    def mode_context(self) -> ModeContext:
        """The current mode and the focused window it was detected from. Only a query:
        following the focused app's project is :meth:`follow_focus`."""
        manual = None if self._settings.auto_mode else self._settings.manual_mode
        detector = None
        if manual is None:
            detector = self._detector or ModeDetector(
                apps=AppLists.from_mapping(self._settings.apps), focus=focus_provider()
            )
            self._detector = detector
        return resolve_mode(manual, detector)

    def _mode(self) -> Mode:
        return self.mode_context().mode

    def follow_focus(self, context: ModeContext | None = None) -> bool:
        """Also load the skills of the project the focused app works in (its gibberish.toml);
        True when the skill sources changed. Call it where a changed library is expected
        (off the GUI thread: the next use loads the project's skills)."""
        context = context or self.mode_context()
        folder = context.focus.cwd if context.focus is not None else None
        return self.library.follow_project(folder) if folder is not None else False

    def set_mode(self, mode: Mode | None) -> None:
        """``None`` switches to automatic detection; a mode pins it."""
        if mode is None:
            self.update_settings(replace(self._settings, auto_mode=True))
        else:
            self.update_settings(replace(self._settings, auto_mode=False, mode=mode.value))

    # ================================================================== shims
    # Delegations to the facades, kept while other branches still call them.
    @property
    def approvals(self) -> ApprovalStore:
        return self.trust.approvals

    @property
    def secrets(self) -> SecretStore:
        return self.trust.secrets

    @property
    def session_context(self) -> set[str]:
        return self.feed.session_context

    def use_project_of(self, folder: Path | None) -> bool:
        return self.library.follow_project(folder)

    def installer(self, project: Path | None = None) -> Any:
        from gibberish.install.installer import installer_for

        return installer_for(self, project)

    def ensure_loaded(self) -> None:
        self.library.ensure_loaded()

    def reload(self) -> LibraryChanges:
        return self.library.reload()

    def skills(self) -> list[SkillDefinition]:
        return self.library.skills()

    def problems(self) -> list[SkillDefinition]:
        return self.library.problems()

    def diagnostics(self) -> list[Diagnostic]:
        return self.library.diagnostics()

    def overrides(self) -> dict[str, Diagnostic]:
        return self.library.overrides()

    def skill(self, name: str) -> SkillDefinition:
        return self.library.require(name)

    def find_skill(self, name: str) -> SkillDefinition | None:
        return self.library.get(name)

    def watched_folders(self) -> tuple[list[Path], list[Path]]:
        return self.library.watched_folders()

    def tools(self, mode: Mode | None = None) -> list[ToolRef]:
        return self.library.tools(mode)

    def find_tool(self, ref: str) -> ToolRef:
        return self.library.find_tool(ref)

    def catalog(self, mode: Mode | None = None) -> ToolCatalog:
        return self.feed.catalog(mode)

    def tool_index(self, mode: Mode | None = None) -> ToolIndex:
        return self.feed.tool_index(mode)

    def model_settings(self, **overrides: Any) -> ModelSettings:
        return self.feed.model_settings(**overrides)

    def route(
        self,
        request: str,
        *,
        mode: Mode | None = None,
        client: ModelClient | None = None,
        cancel: threading.Event | None = None,
        on_text: Callable[[str], None] | None = None,
        context: str | None = None,
    ) -> RouteResult:
        return self.feed.route(
            request, mode=mode, client=client, cancel=cancel, on_text=on_text, context=context
        )

    def context_blocks(self) -> list[ContextBlock]:
        return self.feed.context_blocks()

    def context_feed(
        self, request: str, request_blocks: Sequence[str] = (), budget: int | None = None
    ) -> ContextFeed:
        return self.feed.context_feed(request, request_blocks, budget)

    def voice_service(self) -> Any:
        from gibberish.voice.spoken import voice_service

        return voice_service(self)

    def voice_grammar(self, mode: Mode | None = None) -> Any:
        from gibberish.voice.spoken import voice_grammar

        return voice_grammar(self, mode)

    def may_listen(
        self,
        mode: Mode,
        *,
        asked: bool = False,
        microphone: bool = False,
        probe: MicrophoneProbe | None = None,
    ) -> str | None:
        from gibberish.voice.spoken import may_listen

        return may_listen(self, mode, asked=asked, microphone=microphone, probe=probe)

    def listen(
        self,
        source: Any,
        *,
        mode: Mode | None = None,
        backend: str | None = None,
        held: bool = False,
    ) -> Any:
        from gibberish.voice.spoken import listen

        return listen(self, source, mode=mode, backend=backend, held=held)

    def coerce_arguments(self, tool: ToolDefinition, args: Mapping[str, Any]) -> dict[str, Any]:
        return self.runs.coerce_arguments(tool, args)

    def render(self, target: ToolRef | str, args: Mapping[str, Any]) -> list[str]:
        return self.runs.render(target, args)

    def decide(self, skill: SkillDefinition, tool: ToolDefinition) -> tuple[Decision, Fingerprint]:
        return self.trust.decide(skill, tool)

    def prepare(
        self, target: ToolRef | str, args: Mapping[str, Any] | None = None, **options: Any
    ) -> PreparedRun:
        return self.runs.prepare(target, args, **options)

    def approval_list(self) -> list[ApprovalStatus]:
        return self.trust.approval_list()

    def approve_skill(self, name: str) -> Fingerprint:
        return self.trust.approve_skill_by_name(name)

    def approve(self, prepared: PreparedRun) -> None:
        self.trust.approve_prepared(prepared)

    def revoke_approval(self, name: str) -> bool:
        return self.trust.revoke(name)

    def reset_approvals(self) -> None:
        self.trust.reset()

    def check_secret(self, skill_name: str, secret: str | None = None) -> SkillDefinition:
        return self.trust.check_secret(skill_name, secret)

    def secret_status(self, skill_name: str) -> dict[str, tuple[bool, bool]]:
        return self.trust.secret_status(skill_name)

    def store_secret(self, skill_name: str, secret: str, value: str) -> SkillDefinition:
        return self.trust.store_secret(skill_name, secret, value)

    def delete_secret(self, skill_name: str, secret: str) -> bool:
        return self.trust.delete_secret(skill_name, secret)

    def secret_storage_warning(self) -> str | None:
        return self.trust.secret_storage_warning()

    def start(self, prepared: PreparedRun, **options: Any) -> RunHandle:
        return self.runs.start(prepared, **options)

    def run_spec(self, prepared: PreparedRun) -> RunSpec:
        return self.runs.run_spec(prepared)

    def run(self, prepared: PreparedRun, **options: Any) -> RunResult:
        return self.runs.run(prepared, **options)

    def recent_runs(self) -> list[RecentRun]:
        return self.runs.recent()

    def running(self) -> list[RunHandle]:
        return self.runs.running()

    def cancel_all(self, *, wait: float | None = 10.0) -> None:
        self.runs.cancel_all(wait=wait)

    @staticmethod
    def failure(message: str) -> Envelope:
        return RunsFacade.failure(message)
