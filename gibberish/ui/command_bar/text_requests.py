"""Free text → a tool: the command bar, the router, and the answer shown or launched.

Free text comes from the command bar or from ``ask TEXT`` sent by a second process. A
``TextRouter`` (``routing.py``) turns it into a proposal; an instant router (the fuzzy
fallback) answers at once, a slow one (the local model) on a worker thread through
``Asking`` while the bar shows a spinner and Esc cancels. A proposal that proposes a call
is handed on (``proposed``) to the one path to a run, so it goes through the same form
and approval as a click; anything else is shown as choices in the bar. The router is picked from the settings on every use, so saving
the settings dialog switches it; a router given to the constructor (tests) wins.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QTimer, Signal

from gibberish.logger import logger
from gibberish.ui.errors import guard

if TYPE_CHECKING:
    from gibberish.assistant.proposal import Proposal
    from gibberish.engine.core import Engine, ToolRef
    from gibberish.skills.model import Mode, SkillDefinition
    from gibberish.ui.command_bar.asking import Asking
    from gibberish.ui.command_bar.bar import CommandBar
    from gibberish.ui.command_bar.routing import Outcome, TextRouter

log = logger("gibberish.ui")


class TextRequests(QObject):
    """Owns the command bar and the question being asked; emits what to do next."""

    proposed = Signal(object)  # a Proposal whose calls are to be opened, each like a click
    tool_picked = Signal(str)  # ref: the person picked this tool in the bar (their own run)
    past_chosen = Signal(object)  # a run_history.PastRun chosen among the recent runs
    settings_requested = Signal()
    notice = Signal(object)  # a session.Notice: nothing matched and no bar is open to say so

    def __init__(
        self,
        engine: Callable[[], Engine],
        mode: Callable[[], Mode],
        *,
        router: TextRouter | None = None,
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._engine = engine
        self._mode = mode
        self._fixed_router = router
        self._auto_router: TextRouter | None = None
        self._asking: Asking | None = None
        self.command_bar: CommandBar | None = None
        self.embedded_bar: CommandBar | None = None
        """The launcher window's own bar (no tray): the one window is that window."""
        self._offered: tuple[Mode, list[SkillDefinition], list[ToolRef]] | None = None

    @property
    def router(self) -> TextRouter:
        """The local model when ``[model] enabled`` is true, else the fuzzy fallback."""
        if self._fixed_router is not None:
            return self._fixed_router
        from gibberish.ui.command_bar.routing import FuzzyRouter, ModelRouter

        engine = self._engine()
        model = engine.settings.model
        current = self._auto_router
        if not model.enabled:
            if not isinstance(current, FuzzyRouter):
                current = FuzzyRouter()
        elif not (isinstance(current, ModelRouter) and current.settings == model):
            current = ModelRouter(engine, model)
        self._auto_router = current
        return current

    @property
    def asking(self) -> Asking:
        """The one question a slow router is working on (made on first use)."""
        if self._asking is None:
            from gibberish.ui.command_bar.asking import Asking

            self._asking = Asking(self)
            self._asking.answered.connect(self._answer)
        return self._asking

    def _tools(self) -> list[ToolRef]:
        """The tools offered now. The same list while the library's skills (the same
        objects: a changed skill is a new one) and the mode stay the same, so the command
        bar sees the same tools and keeps its index."""
        engine = self._engine()
        mode = self._mode()
        skills = engine.library.skills()
        held = self._offered
        if (
            held is not None
            and held[0] == mode
            and len(held[1]) == len(skills)
            and all(a is b for a, b in zip(held[1], skills, strict=True))
        ):
            return held[2]
        tools = engine.library.tools(mode)
        self._offered = (mode, skills, tools)
        return tools

    def warm_up(self) -> None:
        """Make the command bar (hidden) in one idle turn, and in the next start making its
        ranker over the tools on a thread (``indexes_ahead``): the first hotkey press then
        only shows it. At 1,000 skills the bar's module and Qt's enums take about 90 ms,
        the index 50 ms more."""
        if self.command_bar is None:
            self.bar()
            QTimer.singleShot(0, self, self.indexes_ahead)
            QTimer.singleShot(0, self, self._icons_ahead)
        else:
            self.indexes_ahead()

    def _icons_ahead(self) -> None:
        """Draw one letter icon in an idle turn: the first costs ~100 ms (the font and
        the painter on a pixmap), which the first open would otherwise pay."""
        from gibberish.ui.skill_icons import letter_icon

        letter_icon("gibberish")

    def indexes_ahead(self) -> None:
        """Start making the bar's index (when the bar has none yet) and, with a model set
        up, the model feed's, each on a thread of its own."""
        if self.command_bar is not None and self.command_bar.index is None:
            self.command_bar.index_ahead(self._tools())
        self._model_index_ahead()

    def _model_index_ahead(self) -> threading.Thread | None:
        """With a model set up, build the model feed's index of the tools offered now on
        a thread, so the first request does not wait for it (half a second at 1,000
        skills); the Engine keeps it until the library changes."""
        engine = self._engine()
        if not engine.settings.model.enabled:
            return None
        thread = threading.Thread(
            target=engine.feed.tool_index,
            args=(self._mode(),),
            name="model-feed-index",
            daemon=True,
        )
        thread.start()
        return thread

    def open_bar(self) -> None:
        bar = self.bar()
        self._prime(bar)
        if not bar.steps.active:
            bar.input.clear()  # the last words typed are not ranked again over the new tools
        bar.set_tools(self._tools())
        bar.popup()

    def _prime(self, bar: CommandBar) -> None:
        """What the empty query lists: pinned tools, recent runs, the most used."""
        from gibberish.engine import run_history

        engine = self._engine()
        bar.history = [run.ref for run in engine.runs.recent()]
        bar.pinned = list(engine.settings.pinned_tools)
        bar.past_runs = run_history.runs()

    def refresh(self) -> None:
        bar = self.embedded_bar or self.command_bar
        if bar is not None and bar.isVisible():
            if bar.embedded:
                self.command_bar = bar
            self._prime(bar)
            bar.set_tools(self._tools())

    def bar(self) -> CommandBar:
        """The command bar (made once), its hint naming what free text will be asked."""
        if self.command_bar is None:
            from gibberish.ui.command_bar.bar import CommandBar

            self.command_bar = self.embedded_bar or CommandBar()
            self.command_bar.tool_chosen.connect(self._tool_chosen)
            self.command_bar.run_chosen.connect(self.past_chosen)
            self.command_bar.searching.connect(self.refresh)
            self.command_bar.text_submitted.connect(self._bar_submitted)
            self.command_bar.cancel_requested.connect(self.cancel)
            self.command_bar.settings_requested.connect(self.settings_requested)
        router = self.router
        name = getattr(router, "name", None)
        if getattr(router, "instant", True) and self._fixed_router is None:
            hint = "Enter for the closest tools"
        else:
            hint = f"Enter to ask {name}" if name else "Enter to ask in your own words"
        self.command_bar.ask_hint = hint
        return self.command_bar

    def _tool_chosen(self, ref: str) -> None:
        self.tool_picked.emit(ref)

    @guard
    def route(self, text: str) -> None:
        """Free text → the router; the answer (now, or from a worker) ends in ``_answer``."""
        text = text.strip()
        if not text:
            return
        self.cancel()
        mode = self._mode()
        tools = self._tools()
        router = self.router
        if getattr(router, "instant", True):
            self._answer(router.propose(text, tools, mode=mode), text)
            return
        bar = self.bar()
        if not bar.isVisible() or bar.input.text().strip() != text:
            bar.set_tools(tools)
            bar.popup(text)
        bar.set_busy(getattr(router, "busy_text", "") or "Thinking…")
        self.asking.ask(router, text, tools, mode)

    @guard
    def _bar_submitted(self, text: str) -> None:
        """Enter on free text: ask the model, or (none configured) say so and list the
        closest tools for the whole sentence."""
        from gibberish.ui.command_bar.routing import FuzzyRouter

        router = self.router
        if isinstance(router, FuzzyRouter):
            self._offer(router.choices(text, self._tools()), text)
        else:
            self.route(text)

    @guard
    def cancel(self) -> None:
        """Forget the question being asked (its answer, when it comes, is dropped)."""
        if self._asking is not None and self._asking.cancel():
            bar = self.command_bar
            if bar is not None and bar.busy:
                bar.cancel()

    def shutdown(self) -> None:
        if self._asking is not None:
            self._asking.cancel()
        if self.command_bar is not None:
            self.command_bar.hide()

    @guard
    def _answer(self, outcome: Outcome, text: str) -> None:
        """What the router said, on the GUI thread: open a proposal like a click, or show
        the choices (unsure, error, nothing in this mode) in the command bar."""
        from gibberish.assistant.proposal import Proposal, ProposalStatus

        bar = self.command_bar
        if bar is not None and bar.busy:
            bar.set_busy(None)
        if outcome is not None and outcome.proposes:
            if bar is not None:
                bar.hide()
            for call in outcome.calls:  # each opened in turn, each decided
                log.info(
                    "proposal for %r: %s.%s %s", text[:200], call.skill, call.tool, call.arguments
                )
            self.proposed.emit(outcome)
        elif outcome is not None:
            if outcome.failed:
                log.warning("asking about %r failed: %s", text[:200], outcome.message)
            self._offer(outcome, text)
        elif bar is not None and bar.isVisible() and not bar.steps.active:
            nothing = Proposal(
                None, ProposalStatus.NO_MATCH, text, message=f"No tool matches “{text}”."
            )
            self._offer(nothing, text)
        else:
            from gibberish.engine.run_flow import Notice

            self.notice.emit(Notice("No tool found", f"Nothing matches “{text}”."))

    def show_heard(self, text: str, message: str, refs: Sequence[str], *, failed: bool) -> None:
        """The command bar holding what was heard, with the proposed (or closest) tools."""
        from gibberish.assistant.proposal import Choice, Proposal, ProposalStatus

        status = ProposalStatus.ERROR if failed else ProposalStatus.ASK_USER
        choices = tuple(Choice(ref) for ref in refs)
        self._offer(Proposal(None, status, text, message=message, choices=choices), text)

    def _offer(self, proposal: Proposal[None], text: str) -> None:
        """Show ``proposal``'s sentence and choices in the command bar under ``text``
        (opening the bar if needed)."""
        bar = self.bar()
        bar.steps.leave_outputs()  # the choices replace an output shown (its run goes on)
        if not bar.isVisible() or bar.input.text() != text:
            bar.set_tools(self._tools())
            bar.popup(text)
        bar.show_choices(
            proposal.message,
            proposal.refs,
            failed=proposal.failed,
            settings_link=proposal.settings_link,
        )
