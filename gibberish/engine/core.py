"""The Engine: the one entry the tray, the CLI and the model router use.

It composes four facades with one concern each (``gibberish.engine``): ``library``
(where skills come from, loading, lookup, tools), ``trust`` (decisions, fingerprints,
approvals with their copies, secrets), ``runs`` (prepare, start, recent, cancel) and
``feed`` (catalog, tool index, model settings, routing, context blocks and pins). What it
keeps itself is what they share: the settings, the notices, and the current mode.

A request to run a tool becomes a decision (run / ask / refuse, from the trust table) and
then a run, so each rule is enforced in exactly one place whichever front end asked. The
Engine holds no Qt objects and never blocks on a run.

Callers use the facade that owns what they need (``engine.runs.prepare``,
``engine.library.skills``); voice (``gibberish.voice.spoken``) and the installer
(``gibberish.install.installer``) are functions of the features above, given the Engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from msgspec.structs import replace

from gibberish.desktop.detect import focus_provider
from gibberish.desktop.modes import AppLists, ModeContext, ModeDetector, resolve_mode
from gibberish.engine.feed import FeedFacade
from gibberish.engine.library import LibraryFacade
from gibberish.engine.runs import FULL_LOG_LIMIT, MAX_TIMEOUT, RECENT_RUNS, RunsFacade
from gibberish.engine.trust import TrustFacade
from gibberish.engine.values import (
    ApprovalPreview,
    ApprovalStatus,
    EngineError,
    EngineOptions,
    PreparedRun,
    RecentRun,
    ToolRef,
    tool_ref,
)
from gibberish.runner import sandbox as runner_sandbox
from gibberish.runner.sandbox import SandboxStatus
from gibberish.settings import Settings, load_settings, save_settings
from gibberish.skills.model import Mode
from gibberish.trust import projects as project_trust
from gibberish.trust.approvals import ApprovalStore
from gibberish.trust.secrets import SecretStore

if TYPE_CHECKING:
    pass

__all__ = [
    "FULL_LOG_LIMIT",
    "MAX_TIMEOUT",
    "RECENT_RUNS",
    "ApprovalPreview",
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
    def mode_context(self, *, ask_microphone: bool = True) -> ModeContext:
        """The current mode and the focused window it was detected from. Only a query:
        following the focused app's project is :meth:`follow_focus`. Without
        ``ask_microphone`` the microphone's last answer stands in (see
        :meth:`microphone_moved`)."""
        manual = None if self._settings.auto_mode else self._settings.manual_mode
        detector = None
        if manual is None:
            detector = self._detector or ModeDetector(
                apps=AppLists.from_mapping(self._settings.apps), focus=focus_provider()
            )
            self._detector = detector
        return resolve_mode(manual, detector, ask_microphone=ask_microphone)

    def microphone_moved(self) -> bool:
        """Ask the microphone now (a process: call it off the GUI thread); True when the
        answer changed since the last, so a mode taken from the last answer is stale."""
        if not self._settings.auto_mode or self._detector is None:
            return False
        return self._detector.microphone_moved()

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
