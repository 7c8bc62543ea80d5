"""The flow every front end shares, with no Qt in it: launch → decide → run → notify.

The tray and the command line ask a person different ways (a dialog, a terminal prompt)
but must apply the same rules in the same order:

1. resolve ``skill.tool`` (the skill may have been deleted since the menu was built);
2. ask for the arguments, unless the tool has none (``ArgumentsPrompt``);
3. ``engine.runs.prepare`` renders the argv and decides run / ask / refuse;
4. ask → the person answers (``ApprovalPrompt``); "always" stores the approval;
5. the front end starts the run and follows it.

A proposed call — a model's, a spoken one, the command bar's best match — takes one
path to a run: ``proposed_runs`` turns the ``Proposal`` into the calls to open, each with
its note and missing values; the tray opens each like a click (its form first), the
terminal prepares it with ``prepare_proposed`` and authorizes it as a model's choice.

``authorize`` is step 4 on its own (the CLI has its arguments from flags and runs in the
foreground); ``Session`` is steps 1–4 plus what the tray says about reloads and settings.
A tool a *model* chose is authorized with ``model_chose=True``: a standing "yes" from the
person (``--yes``) then covers only confirmations of skills they already approved, never
a skill nobody approved (docs/adr/0013-model-feed.md). Every prompt and the notifier are
injected, so tests answer them without patching anything.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from msgspec import Struct

from gibberish.engine.core import Engine, EngineError, PreparedRun
from gibberish.runner.workdir import working_directory
from gibberish.skills.render import RenderError
from gibberish.trust.model_reads import RunOrigin

if TYPE_CHECKING:
    from gibberish.assistant.heard import Heard
    from gibberish.assistant.proposal import Proposal
    from gibberish.assistant.validate import ValidatedCall
    from gibberish.desktop.modes import ModeContext
    from gibberish.engine.values import ToolRef
    from gibberish.settings import Settings
    from gibberish.skills.model import SkillDefinition, ToolDefinition


class Answer(StrEnum):
    """What a person said to an approval question."""

    CANCEL = "cancel"
    ONCE = "once"
    ALWAYS = "always"


class FolderOffer(Struct, frozen=True):
    """The working folder a form shows before a run, and why it is that one."""

    path: Path
    why: str
    """"the folder of the focused terminal", "the folder you used last time" …"""


class ChosenArguments(dict):
    """A form's answer: the arguments, and the working folder the person settled on
    (None: the folder offered)."""

    folder: Path | None = None


class ArgumentsPrompt(Protocol):
    """Asks for a tool's arguments; None when the person cancelled. A prompt that shows
    the working folder (``folder``) may return ``ChosenArguments`` with another one."""

    def ask(
        self,
        skill: SkillDefinition,
        tool: ToolDefinition,
        render: Callable[[Mapping[str, Any]], list[str]],
        prefilled: Mapping[str, Any] | None = None,
        parent: Any = None,
        *,
        note: str = "",
        missing: Sequence[str] = (),
        folder: FolderOffer | None = None,
    ) -> dict[str, Any] | None: ...


class ApprovalPrompt(Protocol):
    """Shows a prepared run (or why it is refused) and returns the person's answer."""

    def ask(self, prepared: PreparedRun, parent: Any = None) -> Answer: ...


class Notice(Struct, frozen=True):
    """One line for the person: a tray message, a launcher status line."""

    title: str
    body: str
    failed: bool = False


Notify = Callable[[Notice], None]


class Authorization(Struct, frozen=True):
    """May ``prepared`` start, and was a person asked? ``refused`` says why not."""

    confirmed: bool = False
    refused: str = ""


class Launch(Struct, frozen=True):
    """Where a launch ended: ready to start, failed before a run, or cancelled (neither)."""

    ref: str
    prepared: PreparedRun | None = None
    confirmed: bool = False
    failure: str = ""


def folder_offer(ref: str, context_dir: Path | None, chosen: Path | None = None) -> FolderOffer:
    """The working folder to show in the form, and why: one chosen before (a recent run),
    the focused terminal's project, the folder this tool last ran in, else home."""
    from gibberish.runner.workdir import working_directory

    if chosen is not None:
        return FolderOffer(chosen, "the folder of that run")
    if context_dir is not None and Path(context_dir).is_dir():
        return FolderOffer(working_directory(context_dir), "the folder of the focused window")
    from gibberish.engine.run_history import last_folder

    last = last_folder(ref)
    if last is not None:
        return FolderOffer(last, "the folder you used last time")
    return FolderOffer(
        working_directory(None), "your home folder: no window with a folder had the focus"
    )


def never_approved(prepared: PreparedRun) -> bool:
    """No person approved this skill as it is now: a first run, a change since the
    approval, or a skill that carries the warning of one from outside (an installed
    skill not trusted in this version, a skill of an untrusted project folder)."""
    decision = prepared.decision
    return decision.first_run or decision.banner is not None


class ProposedRun(Struct, frozen=True):
    """One proposed call as its form opens: the tool (``skill.tool``), the values to
    prefill, the sentence shown with them, and the required values still missing."""

    ref: str
    arguments: Mapping[str, Any]
    note: str
    missing: tuple[str, ...]
    call: ValidatedCall


def proposed_runs(proposal: Proposal[Heard | None]) -> tuple[ProposedRun, ...]:
    """The one path from a proposal to a run: its calls in order (none when it proposes
    nothing), each to be opened through the same form, decision and approval as a click,
    as a run a model started (``RunOrigin.MODEL``) — a proposal never runs by itself."""
    from gibberish.skills.model import tool_ref

    if not proposal.proposes:
        return ()
    return tuple(
        ProposedRun(
            tool_ref(call.skill or "", call.tool or ""),
            dict(call.arguments),
            _note(proposal, k, call),
            tuple(call.missing),
            call,
        )
        for k, call in enumerate(proposal.calls)
    )


def _note(proposal: Proposal[Heard | None], k: int, call: ValidatedCall) -> str:
    """The sentence shown with the ``k``-th call: the proposer's own, else what was heard
    (and the values to check), else the proposal's message with the first call."""
    if k < len(proposal.notes):
        return proposal.notes[k]
    if proposal.heard is not None:
        check = f". Check {'; '.join(call.unusual)}" if call.unusual else ""
        return f"Heard {proposal.heard.quoted()}{check}"
    return proposal.message if k == 0 else ""


def prepare_proposed(
    engine: Engine, run: ProposedRun, *, context_dir: Path | None = None
) -> PreparedRun:
    """A proposed call prepared as a model's run, for a front end without a form (the
    terminal): the argv and the decision, for ``authorize`` with ``model_chose=True``."""
    from gibberish.engine.values import ToolRef

    exposed = run.call.exposed
    target = ToolRef(exposed.skill, exposed.tool) if exposed is not None else run.ref
    return engine.runs.prepare(
        target, run.arguments, context_dir=context_dir, origin=RunOrigin.MODEL
    )


def needs_a_person(prepared: PreparedRun) -> bool:
    """A question a model-chosen run must put to a person, never to ``--yes``: a skill
    nobody approved, or a model's read outside the project."""
    return never_approved(prepared) or prepared.decision.person_must_answer


def authorize(
    engine: Engine,
    prepared: PreparedRun,
    ask: Callable[[PreparedRun], Answer],
    *,
    yes: bool = False,
    model_chose: bool = False,
) -> Authorization:
    """Apply the decision: run, ask the person (``ask``), or refuse.

    ``yes`` is the person's answer given in advance; it is not taken for a skill nobody
    approved when a model, not the person, picked the tool.
    """
    decision = prepared.decision
    if decision.refused:
        return Authorization(refused=decision.reason)
    if not decision.asks:
        return Authorization()
    if yes and not (model_chose and needs_a_person(prepared)):
        return Authorization(confirmed=True)
    answer = ask(prepared)
    if answer is Answer.CANCEL:
        return Authorization(refused="Not run: you declined.")
    if answer is Answer.ALWAYS and decision.can_always_allow:
        engine.trust.approve_prepared(prepared)
    return Authorization(confirmed=True)


class Session:
    """One front end's conversation with the Engine (the tray's; see ``ui.controller``).

    ``engine`` is a callable because the tray builds its Engine on a worker thread and
    a click may come first: the session asks for it only when it needs it.
    """

    def __init__(
        self,
        engine: Callable[[], Engine],
        *,
        arguments: ArgumentsPrompt,
        approval: ApprovalPrompt,
        notify: Notify,
        reloaded: Callable[[], None] = lambda: None,
    ) -> None:
        self._engine = engine
        self.arguments = arguments
        self.approval = approval
        self.notify = notify
        self.reloaded = reloaded
        """Called after every reload (the tray re-watches folders, redraws its views)."""

    @property
    def engine(self) -> Engine:
        return self._engine()

    def launch(
        self,
        ref: str,
        prefilled: Mapping[str, Any] | None = None,
        *,
        context: ModeContext,
        note: str = "",
        missing: Sequence[str] = (),
        origin: RunOrigin | None = None,
        folder: Path | None = None,
        ask_arguments: bool = True,
    ) -> Launch:
        """Steps 1–4. ``prefilled``, ``note`` and ``missing`` come from a proposal (a
        model's call): the form shows them and the person confirms or corrects every
        value before the Engine decides — a proposal never skips the form or approval.
        ``folder`` is a working folder chosen before (a recent run); ``ask_arguments``
        False runs ``prefilled`` as they are (*Run again*), still through the decision.

        The run is the person's own (``own_run``: a trusted version runs without another
        question) when they started it (``origin`` PERSON) or confirmed its form; a
        proposal that opens no form is decided as a run a model started."""
        engine = self.engine
        target = self._target(ref)
        if isinstance(target, Launch):
            return target
        arguments = dict(prefilled or {})
        own_run = origin in (None, RunOrigin.PERSON)
        context_dir = context.focus.cwd if context.focus is not None else None
        offer = folder_offer(target.ref, context_dir, folder)
        chosen = folder
        if ask_arguments and self._asks(target.tool, offer.path):
            values = self._ask_values(target, arguments, note, missing, offer)
            if values is None:
                return Launch(ref)
            arguments = dict(values)
            chosen = getattr(values, "folder", None) or chosen
            own_run = True  # the person read the values in the form and pressed Run
        if chosen is None and offer.path != working_directory(context_dir):
            chosen = offer.path
        try:
            prepared = engine.runs.prepare(
                target,
                arguments,
                cwd=chosen,
                context_dir=context_dir,
                mode=context.mode,
                origin=origin or RunOrigin.PERSON,
                own_run=own_run,
            )
        except (EngineError, RenderError, OSError) as exc:
            return Launch(ref, failure=getattr(exc, "message", None) or str(exc))
        return self._decided(ref, prepared)

    def _target(self, ref: str) -> ToolRef | Launch:
        """The tool ``ref`` names, or the Launch that says why there is none (a skill
        removed since the menu was made is reloaded away)."""
        try:
            target = self.engine.library.find_tool(ref)
        except EngineError as exc:
            return Launch(ref, failure=str(exc))
        if not target.skill.source_path.is_file():
            self.reload()
            skill = target.skill
            return Launch(
                ref, failure=f"The skill “{skill.name}” was removed from {skill.directory}."
            )
        return target

    def _decided(self, ref: str, prepared: PreparedRun) -> Launch:
        """Step 4: the decision table's question, when it has one; the Launch to start."""
        if prepared.decision.refused:
            self.approval.ask(prepared, None)  # says why; nothing runs whatever the answer
            return Launch(ref)
        verdict = authorize(self.engine, prepared, lambda p: self.approval.ask(p, None))
        if verdict.refused:
            return Launch(ref)
        return Launch(ref, prepared, confirmed=verdict.confirmed)

    def _ask_values(
        self,
        target: ToolRef,
        arguments: dict[str, Any],
        note: str,
        missing: Sequence[str],
        offer: FolderOffer,
    ) -> Mapping[str, Any] | None:
        """The tool's form, prefilled, with its working folder; the values the person
        confirmed (with the folder they chose), or None."""
        return self.arguments.ask(
            target.skill,
            target.tool,
            lambda args: self.engine.runs.render(target, args),
            arguments,
            None,
            note=note,
            missing=tuple(missing),
            folder=offer,
        )

    @staticmethod
    def _asks(tool: ToolDefinition, folder: Path) -> bool:
        """The form opens for a tool with parameters, and for one without whose folder
        lacks what it needs (the form says so and offers folders that fit)."""
        from gibberish.engine.needs import folder_need

        if tool.parameters:
            return True
        need = folder_need(tool)
        return need is not None and not need.met_by(folder)

    def reload(self, *, manual: bool = False) -> None:
        """Re-read changed skills; announce skills that broke or recovered."""
        before = self.problem_names()
        self.engine.library.reload()
        self.announce_reload(before, manual=manual)

    def problem_names(self) -> set[str]:
        """The skills with problems now (what ``announce_reload`` compares against)."""
        return {s.name for s in self.engine.library.problems()}

    def announce_reload(self, before: set[str], *, manual: bool = False) -> None:
        """Say what a reload changed: skills that broke since ``before``, skills that work
        again, and (``manual``) the count. Separate from ``reload`` so that the tray can
        reload on a worker thread and announce on its own."""
        engine = self.engine
        problems = engine.library.problems()
        for skill in problems:
            if skill.name not in before:
                first = skill.errors[0].format() if skill.errors else "it has errors"
                self.notify(Notice(f"Skill “{skill.name}” has a problem", first, failed=True))
        for name in sorted(before - {s.name for s in problems}):
            if engine.library.get(name) is not None:
                self.notify(Notice(f"Skill “{name}” works again", "It loads without errors now."))
        if manual:
            count = len([s for s in engine.library.skills() if s.ok])
            self.notify(
                Notice("Skills reloaded", f"{count} skills ready, {len(problems)} with problems.")
            )
        self.reloaded()

    def apply_settings(self, settings: Settings, set_autostart: Callable[[bool], None]) -> bool:
        """Persist ``settings`` and apply what they change; True when the skills folders
        changed (the skills were reloaded and need watching anew)."""
        from gibberish import desktop

        engine = self.engine
        before = engine.settings
        engine.update_settings(settings)
        if settings.start_at_login != before.start_at_login or (
            settings.start_at_login and not desktop.is_autostart_enabled()
        ):
            try:
                set_autostart(settings.start_at_login)
            except OSError as exc:
                self.notify(
                    Notice("Start at login", f"Could not change the autostart entry: {exc}", True)
                )
        if settings.extra_skills_dirs != before.extra_skills_dirs:
            engine.library.reload()
            return True
        return False
