"""The Engine: the one facade the tray, the CLI and the model router use.

A request to run a tool becomes a decision here (run / ask / refuse, from the trust
table) and then a run, so each rule is enforced in exactly one place whichever front end
asked. The Engine holds no Qt objects and never blocks on a run: ``start`` returns a
handle the caller can wait on, cancel, or stream from.
"""

from __future__ import annotations

import collections
import hashlib
import os
import shutil
import tempfile
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gibberish import paths
from gibberish.desktop.detect import focus_provider
from gibberish.interop.projectdir import find_project, project_skills_dir
from gibberish.runner import (
    Envelope,
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
from gibberish.runner.sandbox import Sandbox, SandboxStatus
from gibberish.runner.workdir import git_root
from gibberish.settings import Settings, load_settings, save_settings
from gibberish.skills.cache import ParseCache
from gibberish.skills.fields import W_SKILL_OVERRIDDEN
from gibberish.skills.library import LibraryChanges, SkillLibrary, SkillSource
from gibberish.skills.model import (
    Diagnostic,
    Mode,
    Profile,
    SkillDefinition,
    ToolDefinition,
    Trust,
)
from gibberish.skills.render import coerce_value, render
from gibberish.trust import projects as project_trust
from gibberish.trust.approvals import ApprovalRecord, ApprovalStore
from gibberish.trust.context import MicrophoneProbe
from gibberish.trust.decision import Decision
from gibberish.trust.fingerprint import (
    Fingerprint,
    FingerprintError,
    OutsideProgram,
    covers,
    outside_programs,
    skill_fingerprint,
    snapshot_folder,
)
from gibberish.trust.model_reads import RunOrigin, limit_model_run, project_folder
from gibberish.trust.modes import AppLists, ModeContext, ModeDetector, resolve_mode
from gibberish.trust.policy import ToolPolicy, decide
from gibberish.trust.provenance import read_provenance
from gibberish.trust.secrets import MissingSecretError, SecretStore

if TYPE_CHECKING:  # the model feed pulls in httpx; only ``catalog``/``route`` need it
    from gibberish.assistant import ModelClient, ModelSettings, RouteResult, ToolCatalog
    from gibberish.assistant.context import ContextBlock, ContextFeed
    from gibberish.assistant.tool_index import ToolIndex, ToolIndexCache
    from gibberish.interop.install import Installer
    from gibberish.interop.sync_offer import SyncOffer
    from gibberish.voice import AudioSource, Grammar, Proposal, VoiceService

RECENT_RUNS = 20
FULL_LOG_LIMIT = 16 * 1024 * 1024
MAX_TIMEOUT = 300.0
"""The longest timeout a request may ask for, in seconds."""


class EngineError(Exception):
    """A problem the user caused or can fix; ``str(error)`` is the message to show."""


@dataclass(frozen=True)
class EngineOptions:
    extra_skills_dirs: tuple[Path, ...] = ()
    include_user: bool = True
    include_bundled: bool = True
    settings_path: Path | None = None


@dataclass(frozen=True)
class ToolRef:
    skill: SkillDefinition
    tool: ToolDefinition

    @property
    def ref(self) -> str:
        return f"{self.skill.name}.{self.tool.name}"


@dataclass(frozen=True)
class PreparedRun:
    """Everything a person must see before a run, and everything the run needs."""

    skill: SkillDefinition
    tool: ToolDefinition
    arguments: Mapping[str, Any]
    argv: tuple[str, ...]
    cwd: Path
    timeout: float
    decision: Decision
    fingerprint: Fingerprint
    mode: Mode
    programs: tuple[OutsideProgram, ...] = ()
    """Programs the skill's tools run from outside its folder (home ones are fingerprinted)."""
    secrets: tuple[str, ...] = ()
    """Names of the secrets this run receives (bound to this skill's folder)."""
    origin: RunOrigin = RunOrigin.PERSON
    hidden: tuple[str, ...] = ()
    """Credential places the run's sandbox hides (a model started it; trust/credentials)."""

    @property
    def ref(self) -> str:
        return f"{self.skill.name}.{self.tool.name}"

    @property
    def network(self) -> bool:
        return self.skill.network


HELD_CUT_OFF = 2.0
"""Seconds of silence that end a recording whose key is held (its release may be lost)."""


@dataclass(frozen=True)
class RecentRun:
    ref: str
    argv: tuple[str, ...]
    result: RunResult


@dataclass(frozen=True)
class ApprovalStatus:
    """A stored approval and what it means for the skill on disk today."""

    APPROVED = "approved"
    CHANGED = "changed since approval"
    GONE = "skill not found"

    record: ApprovalRecord
    status: str

    @property
    def current(self) -> bool:
        return self.status == self.APPROVED


@dataclass
class _State:
    recent: collections.deque[RecentRun] = field(
        default_factory=lambda: collections.deque(maxlen=RECENT_RUNS)
    )
    handles: set[RunHandle] = field(default_factory=set)


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
        self.approvals = approvals or ApprovalStore()
        self.secrets = secrets or SecretStore()
        self._detector = detector
        self._lock = threading.Lock()
        self._state = _State()
        self._project_skills: Path | None = None
        self._project_trusted = False
        self._run_logs = RunLogs(paths.state_dir() / "runs")
        self._snapshots_pruned = False
        self.library = self._new_library()
        self._loaded = False
        self._tool_refs: dict[int, tuple[SkillDefinition, tuple[ToolRef, ...]]] = {}
        self._voice: VoiceService | None = None
        self._tool_indexes: ToolIndexCache | None = None
        self.session_context: set[str] = set()
        """Context blocks loaded for this session (the tray's Context menu)."""

    # ------------------------------------------------------------------ settings
    @property
    def settings(self) -> Settings:
        return self._settings

    def update_settings(self, settings: Settings) -> None:
        """Persist new settings; a change of skills folders takes effect on the next reload."""
        save_settings(settings, self.options.settings_path)
        sources_changed = settings.extra_skills_dirs != self._settings.extra_skills_dirs
        self._settings = settings
        if sources_changed:
            self.library = self._new_library()
            self._loaded = False

    def notices(self) -> list[str]:
        """One-time messages for the user (broken settings, tampered approvals ...), drained."""
        out, self._notices = self._notices, []
        out.extend(self.approvals.notices())
        out.extend(project_trust.notices())
        sandbox_notice = runner_sandbox.take_notice()
        if sandbox_notice:
            out.append(sandbox_notice)
        return out

    @staticmethod
    def sandbox_status() -> SandboxStatus:
        """Whether runs are sandboxed here (bubblewrap), and a sentence saying so or why not."""
        return runner_sandbox.status()

    def _new_library(self) -> SkillLibrary:
        """A library over the current sources, backed by their parse cache on disk."""
        sources = self._sources()
        return SkillLibrary(sources, cache=ParseCache.for_sources(sources, Profile.GIBBERISH))

    def _sources(self) -> list[SkillSource]:
        extra = tuple(self.options.extra_skills_dirs) + self._settings.extra_skill_paths
        sources = SkillLibrary.default_sources(
            extra_dirs=extra,
            include_user=self.options.include_user,
            include_bundled=self.options.include_bundled,
        )
        if self._project_skills is not None:  # placed by the project's trust (trust/projects)
            sources = project_trust.with_project(sources, self._project_skills)
        return sources

    def use_project_of(self, folder: Path | None) -> bool:
        """Also load the skills installed in the project holding ``folder`` (gibberish.toml).

        Called with the focused app's working folder; True when the skill sources changed.
        """
        project = find_project(folder) if folder is not None else None
        skills = project_skills_dir(project) if project is not None else None
        trusted = project is not None and project_trust.is_trusted(project)
        if (skills, trusted) == (self._project_skills, self._project_trusted):
            return False
        self._project_skills, self._project_trusted = skills, trusted
        self.library = SkillLibrary(self._sources())
        self._loaded = False
        return True

    def untrusted_project(self) -> tuple[Path, list[str]] | None:
        """The focused project whose skills wait for the person's trust (the tray asks)."""
        return project_trust.waiting(self._project_skills)

    def installer(self, project: Path | None = None) -> Installer:
        """The installer for the user's skills folder, or for ``project``'s (gibberish.interop)."""
        from gibberish.interop.install import Installer, InstallTarget

        self.ensure_loaded()
        target = InstallTarget.for_project(project) if project else InstallTarget.user()
        bundled_dir = paths.bundled_skills_dir()
        bundled = {p.name for p in bundled_dir.iterdir()} if bundled_dir.is_dir() else set()
        available = {s.name for s in self.library.skills()}
        return Installer(target, available=available, bundled=bundled, base=Path.cwd())

    def sync_offer(self, names: list[str], project: Path | None = None) -> SyncOffer:
        """Copying the skills ``names`` just installed to the person's agents: the
        ``[sync] targets``, else the agents found (gibberish.interop.sync_offer)."""
        import os

        from gibberish.interop.install import InstallTarget
        from gibberish.interop.sync_offer import SyncOffer, sync_targets

        target = InstallTarget.for_project(project) if project else InstallTarget.user()
        home = Path(os.path.expanduser("~"))
        targets, _unknown = sync_targets(self.settings.sync_targets, home)
        servers = self.settings.mcp_servers
        return SyncOffer(target.skills_dir, list(names), targets, home, project, servers)

    # ------------------------------------------------------------------ skills
    def ensure_loaded(self) -> None:
        if not self._loaded:
            self.library.load()
            self._loaded = True

    def reload(self) -> LibraryChanges:
        """Re-read what changed on disk (cheap; the tray calls it from its file watcher)."""
        if not self._loaded:
            self._loaded = True
            return self.library.load()
        return self.library.refresh()

    def skills(self) -> list[SkillDefinition]:
        self.ensure_loaded()
        return self.library.skills()

    def problems(self) -> list[SkillDefinition]:
        self.ensure_loaded()
        return self.library.problems()

    def diagnostics(self) -> list[Diagnostic]:
        self.ensure_loaded()
        return self.library.diagnostics()

    def overrides(self) -> dict[str, Diagnostic]:
        """Skills that hide another of the same name (a user ``files`` over the bundled
        one), by name, with the warning that names both folders."""
        found: dict[str, Diagnostic] = {}
        for diagnostic in self.diagnostics():
            if diagnostic.code == W_SKILL_OVERRIDDEN and diagnostic.file:
                found.setdefault(Path(diagnostic.file).parent.name, diagnostic)
        return found

    def skill(self, name: str) -> SkillDefinition:
        self.ensure_loaded()
        found = self.library.get(name)
        if found is None:
            known = ", ".join(s.name for s in self.library.skills()) or "none"
            raise EngineError(f"No skill named {name!r}. Known skills: {known}.")
        return found

    def _one_skill(self, name: str) -> SkillDefinition:
        """The skill ``name``; before the first full load, only its own folder is read."""
        if not self._loaded:
            found = self.library.lookup(name)
            if found is not None:
                return found
        return self.skill(name)

    def find_skill(self, name: str) -> SkillDefinition | None:
        """The skill called ``name`` (broken ones included), or None."""
        self.ensure_loaded()
        return self.library.get(name)

    def watched_folders(self) -> tuple[list[Path], list[Path]]:
        """The skills folders and every skill's own folder: what a file watcher follows."""
        self.ensure_loaded()
        return [s.path for s in self.library.sources], [s.directory for s in self.skills()]

    def tools(self, mode: Mode | None = None) -> list[ToolRef]:
        """Tools of every loaded, valid skill; only those offered in ``mode`` when given."""
        refs = []
        made = self._tool_refs
        kept: dict[int, tuple[SkillDefinition, tuple[ToolRef, ...]]] = {}
        for skill in self.skills():
            held = made.get(id(skill))
            if held is not None and held[0] is not skill:
                held = None  # another skill object at a reused address
            if skill.ok and (mode is None or skill.available_in(mode)):
                if held is None:
                    held = (skill, tuple(ToolRef(skill, tool) for tool in skill.tools))
                refs.extend(held[1])
            if held is not None:
                kept[id(skill)] = held
        self._tool_refs = kept  # an unchanged skill keeps its refs (views compare them)
        return refs

    def find_tool(self, ref: str) -> ToolRef:
        """Resolve ``skill.tool`` (or ``skill__tool``, the model-feed form)."""
        skill_name, sep, tool_name = ref.partition(".")
        if not sep:
            skill_name, sep, tool_name = ref.partition("__")
        if not sep or not skill_name or not tool_name:
            raise EngineError(f"{ref!r} is not SKILL.TOOL (for example git.git_status).")
        skill = self._one_skill(skill_name)
        if not skill.ok:
            first = skill.errors[0].format() if skill.errors else "it has errors"
            raise EngineError(f"Skill {skill.name!r} failed to load: {first}")
        tool = skill.tool(tool_name)
        if tool is None:
            names = ", ".join(t.name for t in skill.tools)
            raise EngineError(
                f"Skill {skill.name!r} has no tool {tool_name!r}. Its tools: {names}."
            )
        return ToolRef(skill, tool)

    # ------------------------------------------------------------------ modes
    def mode_context(self) -> ModeContext:
        manual = None if self._settings.auto_mode else self._settings.manual_mode
        detector = None
        if manual is None:
            detector = self._detector or ModeDetector(
                apps=AppLists.from_mapping(self._settings.apps), focus=focus_provider()
            )
            self._detector = detector
        context = resolve_mode(manual, detector)
        if context.focus is not None and context.focus.cwd is not None:
            self.use_project_of(context.focus.cwd)
        return context

    def _app_lists(self) -> AppLists:
        try:
            return AppLists.from_mapping(self._settings.apps)
        except ValueError as exc:
            self._notices.append(
                f"The [apps] lists in the settings file are not valid ({exc}); using the built-in lists."
            )
            return AppLists()

    def set_mode(self, mode: Mode | None) -> None:
        """``None`` switches to automatic detection; a mode pins it."""
        if mode is None:
            self.update_settings(replace(self._settings, auto_mode=True))
        else:
            self.update_settings(replace(self._settings, auto_mode=False, mode=mode.value))

    # ------------------------------------------------------------------ model feed
    def catalog(self, mode: Mode | None = None) -> ToolCatalog:
        """The tools offered to a model in ``mode``, with their exposed (unique) names."""
        return self.tool_index(mode).catalog

    def tool_index(self, mode: Mode | None = None) -> ToolIndex:
        """The model feed's index of the tools of ``mode``: built once per library change
        (the library's skill definitions, compared by identity) and reused by every request
        until then (docs/adr/0020-router-index.md)."""
        if self._tool_indexes is None:
            from gibberish.assistant.tool_index import ToolIndexCache

            self._tool_indexes = ToolIndexCache()
        return self._tool_indexes.get(self.skills(), mode)

    def model_settings(self, **overrides: Any) -> ModelSettings:
        """The model settings from the settings file, with ``overrides`` (None values ignored)."""
        from gibberish.assistant import ModelSettings

        stored = self._settings.model
        from gibberish.assistant.credentials import model_api_key

        values = {
            "endpoint": stored.endpoint,
            "model": stored.model,
            "api": stored.api,
            "timeout": stored.timeout,
            "budget": stored.budget,
            "stream": stored.stream,
            "temperature": stored.temperature,
            "max_tokens": stored.max_tokens,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        if values["api"] == "openai":
            values["api_key"] = model_api_key()
        return ModelSettings.from_dict(values)

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
        """Ask the model which tool fits ``request``. The answer is only a proposal: the
        caller still goes through ``prepare`` and the decision table, as for a click.

        ``context`` is the context-block text for the user turn; None means the pinned and
        session blocks (``context_feed``)."""
        from gibberish.assistant import Router, client_for

        if mode is None:
            mode = self.mode_context().mode
        client = client or client_for(self.model_settings())
        router = Router(client, budget=client.settings.budget)
        if context is None:
            context = self.context_feed(request).text
        return router.route(
            request, self.tool_index(mode), cancel=cancel, on_text=on_text, context=context
        )

    # ------------------------------------------------------------------ context blocks
    def context_blocks(self) -> list[ContextBlock]:
        """Skills without tools, then imported blocks (a skill's name wins), by name."""
        from gibberish.assistant.context import context_blocks
        from gibberish.assistant.context_folders import imported_blocks

        blocks = {b.name: b for b in context_blocks(self.skills())}
        for block in imported_blocks():
            blocks.setdefault(block.name, block)
        return [blocks[name] for name in sorted(blocks)]

    def context_feed(
        self, request: str, request_blocks: Sequence[str] = (), budget: int | None = None
    ) -> ContextFeed:
        """Pinned blocks, the session's (``session_context``), and ``request_blocks``."""
        from gibberish.assistant.context import DEFAULT_CONTEXT_BUDGET, Attached, Zone, build_feed
        from gibberish.assistant.context_store import PinStore

        store = PinStore()
        pinned = store.names()
        if store.problem:
            self._notices.append(store.problem)
        if not (pinned or self.session_context or request_blocks):
            return build_feed([], request, budget or DEFAULT_CONTEXT_BUDGET)  # nothing to read
        by_name = {b.name: b for b in self.context_blocks()}
        unknown = [n for n in request_blocks if n not in by_name]
        if unknown:
            known = ", ".join(by_name) or "none"
            raise EngineError(
                f"No context block named {unknown[0]!r}. Known blocks: {known}. A context "
                "block is a skill without tools; `gibberish context scan` finds other agents' skills."
            )
        zones = [(pinned, Zone.PINNED), (sorted(self.session_context), Zone.SESSION)]
        zones.append((list(request_blocks), Zone.REQUEST))
        attached = [
            Attached(by_name[n], zone) for names, zone in zones for n in names if n in by_name
        ]
        return build_feed(attached, request, budget or DEFAULT_CONTEXT_BUDGET)

    # ------------------------------------------------------------------ voice
    def voice_service(self) -> VoiceService:
        """The voice pipeline (recognizers are cached in it, rebuilt when the tools change)."""
        if self._voice is None:
            from gibberish.voice import VoiceService

            self._voice = VoiceService()
        return self._voice

    def voice_grammar(self, mode: Mode | None = None) -> Grammar:
        """The grammar built from the tools offered in ``mode`` (default: the current one)."""
        if mode is None:
            mode = self.mode_context().mode
        return self.voice_service().grammar(self.catalog(mode))

    def may_listen(
        self,
        mode: Mode,
        *,
        asked: bool = False,
        microphone: bool = False,
        probe: MicrophoneProbe | None = None,
    ) -> str | None:
        """Why listening is not allowed now, or None. In Meeting mode gibberish listens only
        when the person asked (``asked``) or allowed it in the settings, and never from the
        microphone while another program records from it (a call)."""
        if mode is not Mode.MEETING:
            return None
        if not (asked or self._settings.voice.listen_in_meeting):
            return (
                "Not listening in Meeting mode; allow it with voice.listen_in_meeting in the "
                "settings, or choose Listen from the menu."
            )
        if microphone and (probe or MicrophoneProbe()).in_use():
            return "Another program is recording from the microphone (a call?); not listening."
        return None

    def listen(
        self,
        source: AudioSource,
        *,
        mode: Mode | None = None,
        backend: str | None = None,
        held: bool = False,
    ) -> Proposal:
        """One utterance from ``source`` → a proposed call (only a proposal: the caller
        still goes through ``prepare`` and the decision table, as for a click). ``held``:
        a key held down ends it when released, pauses included (docs/adr/0039-portal-shortcuts.md)."""
        from gibberish.voice import ProposalStatus, VoiceConfig, VoiceError

        if mode is None:
            mode = self.mode_context().mode
        stored = self._settings.voice
        config = VoiceConfig(
            backend or stored.backend,
            stored.model_folder,
            until_stopped=held or stored.activation == "toggle",
            second_opinion=stored.second_opinion,
            cut_off=HELD_CUT_OFF if held else None,
        )
        catalog = self.catalog(mode)
        try:
            proposal = self.voice_service().listen(source, catalog, config)
        except VoiceError as exc:
            raise EngineError(str(exc)) from None
        if (
            proposal.status is ProposalStatus.NO_MATCH
            and config.backend == "whisper"
            and proposal.heard.text
            and self._settings.model.enabled
        ):
            return self._route_heard(proposal, mode)
        return proposal

    def _route_heard(self, proposal: Proposal, mode: Mode) -> Proposal:
        """A free-form transcript no spoken form covers goes to the model router."""
        from gibberish.assistant import ModelError, RouteStatus
        from gibberish.voice import ProposalStatus

        try:
            route = self.route(proposal.heard.text, mode=mode)
        except ModelError as exc:
            return replace(proposal, message=f"{proposal.message} The model failed: {exc}")
        status = {
            RouteStatus.OK: ProposalStatus.OK,
            RouteStatus.NEEDS_ARGUMENTS: ProposalStatus.NEEDS_ARGUMENTS,
        }.get(route.status)
        if status is None or route.call is None:
            return replace(proposal, candidates=route.candidates or proposal.candidates)
        return replace(proposal, status=status, call=route.call, message=route.message)

    # ------------------------------------------------------------------ running
    def coerce_arguments(self, tool: ToolDefinition, args: Mapping[str, Any]) -> dict[str, Any]:
        out = {}
        for name, value in args.items():
            param = tool.parameter(name)
            out[name] = value if param is None else coerce_value(param, value)
        return out

    def render(self, target: ToolRef | str, args: Mapping[str, Any]) -> list[str]:
        ref = self.find_tool(target) if isinstance(target, str) else target
        return render(ref.tool, args, skill_dir=ref.skill.directory)

    def decide(self, skill: SkillDefinition, tool: ToolDefinition) -> tuple[Decision, Fingerprint]:
        fp = self._fingerprint(skill)
        state = self.approvals.state_for(skill.name, fp)
        untrusted = skill.trust is Trust.UNTRUSTED
        project = project_trust.untrusted_project_of(skill.directory) if untrusted else None
        policy = replace(
            ToolPolicy.for_tool(skill, tool),
            read_only_enforced=runner_sandbox.status().active,
            project=str(project) if project is not None else None,
        )
        decision = decide(policy, state)
        origin = read_provenance(skill.directory) if decision.banner else None
        if origin is not None:  # an installed skill: say where it came from
            decision = replace(decision, banner=f"{decision.banner} Source: {origin.source}")
        return decision, fp

    @staticmethod
    def _fingerprint(skill: SkillDefinition, folder: Path | None = None) -> Fingerprint:
        """The skill folder (or its snapshot ``folder``) plus the home programs it runs."""
        try:
            return skill_fingerprint(skill, folder=folder)
        except FingerprintError as exc:
            raise EngineError(f"Skill {skill.name!r}: {exc}") from None
        except OSError as exc:
            if not skill.directory.is_dir():
                raise EngineError(
                    f"Skill {skill.name!r} is gone from {skill.directory}; reload the skills."
                ) from None
            raise EngineError(f"Skill {skill.name!r} cannot be read: {exc}") from None

    @staticmethod
    def _check_program_inside(ref: ToolRef) -> None:
        """A ``./scripts/x`` program must still resolve inside its skill folder.

        The library checks symlinks when it loads; this catches a link swapped in since.
        """
        program = ref.tool.command.program if ref.tool.command else ""
        if not program.startswith("./"):
            return
        root = ref.skill.directory.resolve()
        target = (ref.skill.directory / program).resolve()
        if not target.is_relative_to(root):
            raise EngineError(
                f"{ref.ref}: {program} resolves to {target}, outside the skill folder {root}; "
                "refusing to run it (E-PATH-ESCAPE)."
            )
        if not covers(ref.skill.directory, ref.skill.directory / program):
            raise EngineError(
                f"{ref.ref}: {program} is not covered by the skill's approval (files under the "
                "skill's top-level .git/ are not fingerprinted); move it, e.g. to scripts/."
            )

    @staticmethod
    def _shows_what_is_on_disk(skill: SkillDefinition, fp: Fingerprint) -> bool:
        """True when the SKILL.md that was parsed is byte for byte the one fingerprinted.

        The argv and the read_only/always_ask flags come from the parsed definition, the
        decision from the files on disk; they must describe the same SKILL.md, or a file
        swapped between a reload and a click would run unseen.
        """
        if not skill.source_sha256:
            return True
        on_disk = fp.files.get(skill.source_path.name)
        if skill.source_path.is_symlink():
            try:
                on_disk = hashlib.sha256(skill.source_path.read_bytes()).hexdigest()
            except OSError:
                return False
        return on_disk == skill.source_sha256

    def _reread(
        self, ref: ToolRef, args: Mapping[str, Any]
    ) -> tuple[ToolRef, list[str], Decision, Fingerprint]:
        """SKILL.md changed since it was parsed: read it again, or refuse."""
        self.reload()
        fresh = self.find_tool(ref.ref)
        argv = render(fresh.tool, args, skill_dir=fresh.skill.directory)
        self._check_program_inside(fresh)
        decision, fp = self.decide(fresh.skill, fresh.tool)
        if not self._shows_what_is_on_disk(fresh.skill, fp):
            raise EngineError(
                f"Skill {fresh.skill.name!r} is changing on disk right now; try again in a moment."
            )
        return fresh, argv, decision, fp

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
        ref = self.find_tool(target) if isinstance(target, str) else target
        args = dict(args or {})
        argv = render(ref.tool, args, skill_dir=ref.skill.directory)
        self._check_program_inside(ref)
        if cwd is not None:
            cwd = Path(cwd).expanduser()
            if not cwd.is_dir():
                raise EngineError(f"Working folder {cwd} does not exist.")
            run_dir = cwd.resolve()
        else:
            run_dir = working_directory(context_dir)
        if timeout is not None and not (0 < timeout <= MAX_TIMEOUT):
            raise EngineError(
                f"A timeout must be more than 0 and at most {MAX_TIMEOUT:g} seconds (got {timeout:g})."
            )
        decision, fp = self.decide(ref.skill, ref.tool)
        if not self._shows_what_is_on_disk(ref.skill, fp):
            ref, argv, decision, fp = self._reread(ref, args)
        if mode is None:
            mode = self.mode_context().mode
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
            mode=mode,
            programs=outside_programs(ref.skill),
            secrets=self.secrets.receives(ref.skill),
            origin=origin,
            hidden=hidden,
        )

    # ------------------------------------------------------------------ approvals
    def approval_list(self) -> list[ApprovalStatus]:
        """Every stored approval, and whether it still covers the skill on disk."""
        current = {s.name: s for s in self.skills()}
        out = []
        for record in self.approvals.list():
            skill = current.get(record.skill)
            if skill is None:
                status = ApprovalStatus.GONE
            else:
                try:
                    same = self._fingerprint(skill).digest == record.digest
                except EngineError:
                    same = False
                status = ApprovalStatus.APPROVED if same else ApprovalStatus.CHANGED
            out.append(ApprovalStatus(record, status))
        return out

    def approve_skill(self, name: str) -> Fingerprint:
        """Approve a skill as it is on disk now (every file in its folder)."""
        skill = self.skill(name)
        fp = self._fingerprint(skill)
        self.approvals.approve(skill.name, fp, skill_dir=skill.directory)
        return fp

    def revoke_approval(self, name: str) -> bool:
        """Forget a skill's approval; False when it had none."""
        return self.approvals.revoke(name)

    def reset_approvals(self) -> None:
        self.approvals.reset()

    # ------------------------------------------------------------------ secrets
    def check_secret(self, skill_name: str, secret: str | None = None) -> SkillDefinition:
        """The skill, when it exists and declares ``secret``; else an ``EngineError``."""
        skill = self.skill(skill_name)
        if secret is not None and secret not in skill.secrets:
            declared = ", ".join(skill.secrets) or "none"
            raise EngineError(
                f"Skill {skill.name} does not declare a secret {secret!r} (it declares: {declared})."
            )
        return skill

    def secret_status(self, skill_name: str) -> dict[str, tuple[bool, bool]]:
        """Each secret a skill declares or has stored: (value stored, declared in SKILL.md)."""
        skill = self.check_secret(skill_name, None)
        stored = set(self.secrets.names(skill))
        names = sorted(set(skill.secrets) | stored)
        return {n: (n in stored, n in skill.secrets) for n in names}

    def store_secret(self, skill_name: str, secret: str, value: str) -> SkillDefinition:
        """Keep a secret the skill declares, bound to that skill's folder (not its name).

        An imported skill that takes the same name never receives it. An empty value is
        refused, never stored. Returns the skill it was stored for.
        """
        skill = self.check_secret(skill_name, secret)
        if not value:
            raise EngineError("An empty value was not stored.")
        self.secrets.set(skill, secret, value)
        return skill

    def delete_secret(self, skill_name: str, secret: str) -> bool:
        """Forget a stored secret (bound, or stored by name before secrets were bound)."""
        try:
            skill = self.skill(skill_name)
        except EngineError:
            return self.secrets.delete(skill_name, secret)
        return self.secrets.delete(skill, secret) | self.secrets.delete(skill_name, secret)

    def secret_storage_warning(self) -> str | None:
        """A sentence when the keyring keeps secrets in plain text; None otherwise."""
        return self.secrets.plaintext_warning()

    # ------------------------------------------------------------------ starting runs
    def approve(self, prepared: PreparedRun) -> None:
        """ "Always allow this skill": remember the exact fingerprint the person saw."""
        self.approvals.approve(
            prepared.skill.name, prepared.fingerprint, skill_dir=prepared.skill.directory
        )

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
            self._state.handles.add(handle)
        handle.add_done_callback(lambda result: self._finished(prepared, handle, result))
        return handle

    def run_spec(self, prepared: PreparedRun) -> RunSpec:
        """What the runner is given for ``prepared``: argv, folder, environment, limits.

        The one place a run's process is described; everything the runner enforces
        (timeout, grace period, output limits, the environment filter, the sandbox) is
        set here. The skill folder is checked against the fingerprint the person saw.
        """
        try:
            secret_values = self.secrets.resolve(prepared.skill)
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
            grace=self._settings.grace_period,
            run_id=run_id,
            log_path=self._run_logs.path_for(run_id),
            log_limit=FULL_LOG_LIMIT,
            sandbox=sandbox,
        )

    def _verified_sandbox(self, prepared: PreparedRun) -> Sandbox:
        """The run's sandbox, with a private snapshot of the skill folder when sandboxed.

        The snapshot (or, unsandboxed, the folder itself) must match the fingerprint the
        person saw: if it changed since, the run is refused rather than running something
        they did not see. Sandboxed, the run executes the verified copy, so a file swapped
        in the original after this check is never what runs.
        """
        skill = prepared.skill
        snapshot = None
        if runner_sandbox.status().active:
            parent = paths.cache_dir() / "snapshots"
            parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            if not self._snapshots_pruned:  # leftovers of a process that crashed mid-run
                self._snapshots_pruned = True
                runner_sandbox.prune_snapshots(parent)
            snapshot = Path(tempfile.mkdtemp(prefix="run-", dir=parent))
            try:
                snapshot_folder(skill.directory, snapshot)
                current = self._fingerprint(skill, folder=snapshot)
            except (OSError, EngineError) as exc:
                shutil.rmtree(snapshot, ignore_errors=True)
                raise EngineError(
                    f"Skill {skill.name!r} could not be copied for its run: {exc}"
                ) from None
        else:
            current = self._fingerprint(skill)
        if current.digest != prepared.fingerprint.digest:
            if snapshot is not None:
                shutil.rmtree(snapshot, ignore_errors=True)
            raise EngineError(
                f"Skill {skill.name!r} changed on disk after it was checked; "
                "ask again to see what changed."
            )
        return Sandbox(
            read_only=skill.read_only,
            network=skill.network,
            skill_dir=skill.directory,
            snapshot=snapshot,
            gui=skill.gui,
            hidden=prepared.hidden,
        )

    def run(
        self,
        prepared: PreparedRun,
        *,
        confirmed: bool = False,
        on_output: Callable[[bytes], None] | None = None,
    ) -> RunResult:
        handle = self.start(prepared, confirmed=confirmed, on_output=on_output)
        result = handle.wait()
        assert result is not None
        return result

    def _finished(self, prepared: PreparedRun, handle: RunHandle, result: RunResult) -> None:
        with self._lock:
            self._state.handles.discard(handle)
            self._state.recent.appendleft(RecentRun(prepared.ref, prepared.argv, result))

    def recent_runs(self) -> list[RecentRun]:
        with self._lock:
            return list(self._state.recent)

    def running(self) -> list[RunHandle]:
        with self._lock:
            return list(self._state.handles)

    def cancel_all(self, *, wait: float | None = 10.0) -> None:
        """Cancel every run (used on quit) and wait until each process tree is gone."""
        handles = self.running()
        for handle in handles:
            handle.cancel()
        for handle in handles:
            handle.wait(wait)

    @staticmethod
    def failure(message: str) -> Envelope:
        """The envelope for a request that never started (bad argument, refused approval)."""
        return Envelope.before_start(message)
