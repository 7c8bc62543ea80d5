"""The controller: the tray's views wired to the Qt-free flow of ``gibberish.engine.run_flow``.

What a click means (the form, the decision, the approval, what a reload announces) is
decided by ``Session``, shared with the command line. This module connects the views —
the tray or launcher (``surface``), result windows (``run_views``), the command bar
(``text_requests``), the dialogs — and the parts with one job each: ``lifecycle`` (start
with a lazily built Engine, quit), ``reloading`` (watcher and background reloads),
``listen.requests`` and ``install.flow``; each is given the callables and signals it needs,
never the controller, so none of them imports this module. What it reaches outside Qt
through is a ``Seams`` value (tests inject their answers). Public entry points are
wrapped in ``errors.guard``: a bug in one is logged and shown once.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QMenu

from gibberish.logger import logger
from gibberish.ui import gui_gc
from gibberish.ui.approval.mcp import McpApprovals
from gibberish.ui.command_bar.text_requests import TextRequests
from gibberish.ui.desktop_check import DesktopCheck
from gibberish.ui.dialogs import Dialogs
from gibberish.ui.engine_host import EngineHost, EngineSource
from gibberish.ui.errors import ErrorReporter, guard
from gibberish.ui.install.flow import Installing
from gibberish.ui.lifecycle import Lifecycle, TrayParts, TraySteps
from gibberish.ui.listen.requests import VoiceRequests
from gibberish.ui.menu.source import MenuSource
from gibberish.ui.menu.view import UPDATE_BUDGET_S, MenuView
from gibberish.ui.proposals import ProposalOpener
from gibberish.ui.reloader import BackgroundReload
from gibberish.ui.reloading import Reloading
from gibberish.ui.runs.views import RunSession, RunViews
from gibberish.ui.seams import Seams
from gibberish.ui.shortcuts import ShortcutTargets, TrayShortcuts
from gibberish.ui.single_instance import dispatch
from gibberish.ui.surface import Surface
from gibberish.ui.watcher import SkillsWatcher

if TYPE_CHECKING:
    from gibberish.engine.core import Engine, PreparedRun
    from gibberish.engine.run_flow import Notice, Session
    from gibberish.engine.run_history import PastRun
    from gibberish.settings import Settings
    from gibberish.skills.model import Mode
    from gibberish.trust.model_reads import RunOrigin

log = logger("gibberish.ui")


class Controller(QObject):
    """Glue between the session and the widgets; implements ``menu.MenuActions``."""

    notified = Signal(str, str, bool)  # title, body, failed: every message the person sees

    def __init__(
        self,
        engine: EngineSource,
        *,
        seams: Seams | None = None,
        reporter: ErrorReporter | None = None,
        tray_available: bool | None = None,
    ) -> None:
        super().__init__()
        self.seams = seams or Seams()
        self.host = EngineHost(engine, self)
        self.reporter = reporter
        self.tray_available = tray_available
        self._session: Session | None = None
        self.menu = QMenu()
        self.menu.setObjectName("tray-menu")
        self.menu_view = MenuView(self.menu, self)
        self.menu_view.filled.connect(gui_gc.freeze_survivors)
        self.menu.aboutToShow.connect(self.rebuild_menu)
        self.surface = Surface(self.menu, self)
        self.surface.closed.connect(self.quit)
        self.surface.command_bar_requested.connect(self.open_command_bar)
        self.menus = MenuSource(self.host, self)
        self.menus.follow_project = lambda folder: self.reloader.start(follow=folder)
        self.menus.mode_moved = self.refresh_views
        self.runs = RunViews(lambda: self.engine, self)
        self.runs.again = self.run_again
        self.runs.changed.connect(self.runs_changed)
        self.runs.notice.connect(self.notify)
        self.text = TextRequests(
            lambda: self.engine,
            lambda: self.menus.context.mode,
            router=self.seams.router,
            parent=self,
        )
        self.runs.host = self.text.bar
        self.proposals = ProposalOpener(self.launch)  # the one opener of a proposal
        self.text.proposed.connect(self.proposals.open)
        self.text.tool_picked.connect(self._tool_picked)
        self.text.past_chosen.connect(self._past_chosen)
        self.text.settings_requested.connect(self.open_settings)
        self.text.notice.connect(self.notify)
        self.dialogs = Dialogs(self)
        self.dialogs.settings_accepted.connect(self.apply_settings)
        self.dialogs.approvals_closed.connect(self.show_notices)
        self.reloading = self._make_reloading()
        self.installing = self._make_installing()
        self.voice = self._make_voice()
        self.shortcuts = self._make_shortcuts()  # the desktop portal's global shortcuts
        self.desktop_check = DesktopCheck(self.notify, self)  # once: why modes cannot follow
        self.lifecycle = self._make_lifecycle(tray_available)
        self.surface.install_requested.connect(self.install_skill)
        self.mcp_approvals = McpApprovals(lambda: self.engine, self.seams.approval_prompter(), self)

    # ======================= the parts: given the callables and signals they need, not us
    def _make_reloading(self) -> Reloading:
        reloading = Reloading(
            lambda: self.engine,
            announce=lambda before, manual: self.session.announce_reload(before, manual=manual),
            refresh_views=self.refresh_views,
            shut_down=lambda: self.shut_down,
            parent=self,
        )
        reloading.watcher.changed.connect(self.reload_in_background)
        return reloading

    def _make_installing(self) -> Installing:
        return Installing(
            lambda: self.engine,
            self.dialogs,
            reload=self.reload,
            notify=self.notify,
            open_url=self.seams.open_url,
            library_changed=self._library_changed,
            parent=self,
        )

    def _make_voice(self) -> VoiceRequests:
        return VoiceRequests(
            lambda: self.engine,
            self.surface,
            self.text,
            self.seams,
            capture=self.menus.capture,
            mode=lambda: self.menus.context.mode,
            open_proposal=self.proposals.open,
            notify=self.notify,
            show_runs=self.runs_changed,
            runs_changed=self.runs.changed,
            parent=self,
        )

    def _make_shortcuts(self) -> TrayShortcuts:
        targets = ShortcutTargets(
            command_bar=self.open_command_bar,
            listen=lambda held: self.listen(asked=False, held=held),
            stop_listening=self.voice.listening.stop,
            listening=lambda: self.voice.listening.busy,
            launch=self.launch,
        )
        return TrayShortcuts(
            targets,
            notify=self.notify,
            session_bus=self.seams.session_bus,
            parent=self,
        )

    def _make_lifecycle(self, tray_available: bool | None) -> Lifecycle:
        parts = TrayParts(
            self.host,
            self.surface,
            self.menus,
            self.runs,
            self.text,
            self.dialogs,
            self.reloading,
            self.shortcuts,
            self.desktop_check,
        )
        steps = TraySteps(
            rebuild_menu=self.rebuild_menu,
            update_menu=self.update_menu,
            reload_in_background=self.reload_in_background,
            rewatch=self.rewatch,
            show_notices=self.show_notices,
            show_fatal=self.seams.show_fatal,
            stop_watching_microphone=self.voice.stop_watching,
            welcome_once=self.welcome_once,
        )
        return Lifecycle(parts, steps, tray_available=tray_available, parent=self)

    @property
    def engine(self) -> Engine:
        """The Engine (waits for it while it is still loading; see ``engine_host``)."""
        return self.host.get()

    @property
    def shut_down(self) -> bool:
        """Whether the tray has quit (``lifecycle``): nothing starts after that."""
        return self.lifecycle.shut_down

    @property
    def session(self) -> Session:
        if self._session is None:
            from gibberish.engine.run_flow import Session
            from gibberish.ui.command_bar.in_window import WindowApprovals, WindowForms

            self._session = Session(
                lambda: self.engine,
                arguments=self.seams.forms or WindowForms(self.text.bar),
                approval=self.seams.approvals or WindowApprovals(self.text.bar),
                notify=self.notify,
                reloaded=self.reloading.reloaded,
            )
        return self._session

    # ================================================================== start / stop
    def start(self, *, no_tray: bool = False) -> None:
        """Show the tray with its menu; then load and watch the skills (``lifecycle``)."""
        self.lifecycle.start(no_tray=no_tray)

    @property
    def watcher(self) -> SkillsWatcher:
        return self.reloading.watcher

    @property
    def reloader(self) -> BackgroundReload:
        return self.reloading.reloader

    def quit(self) -> None:
        self.lifecycle.quit()

    def shutdown(self) -> None:
        """Cancel every run and wait until its process tree is gone; close every window."""
        self.lifecycle.shutdown()

    # ================================================================== menu
    @guard
    def rebuild_menu(self) -> None:
        """Bring the tray menu up to date (on ``aboutToShow``): only entries that changed
        are replaced (``menu_view``); skill submenus fill when they open, or on idle."""
        if self.runs.failed:
            self.runs.failed = False
            self.runs_changed()
        self.menu_view.update(self.menus.items())

    @guard
    def update_menu(self) -> None:
        """The menu after a change (load, reload, mode): a diff now; new entries on idle."""
        self.menu_view.update(self.menus.items(), budget_s=UPDATE_BUDGET_S)

    def refresh_views(self) -> None:
        self.surface.set_items(self.menus.items)
        if self.surface.tray is not None:
            self.update_menu()
        self.text.refresh()

    # ================================================================== MenuActions
    @guard
    def set_mode(self, mode: Mode | str | None) -> None:
        from gibberish.skills.model import Mode

        self.engine.set_mode(None if mode is None else Mode(mode))
        self.menus.forget()
        self.refresh_views()
        self.show_notices()

    @guard
    def open_command_bar(self) -> None:
        self.menus.capture_at_once()
        self.text.open_bar()

    @guard
    def welcome_once(self) -> None:
        """The first start's welcome, in the one window (``command_bar.welcome``)."""
        from gibberish.desktop.told import first_time

        if not self.seams.welcome or self.shut_down or not first_time("welcome"):
            return
        from gibberish.desktop.autostart import launch_command
        from gibberish.desktop.detect import identify
        from gibberish.desktop.shortcuts import COMMAND_BAR, BoundRecord
        from gibberish.ui.command_bar.welcome import SUGGESTED, Welcome, key_help
        from gibberish.ui.formatting import title_of_ref

        record = BoundRecord.load()
        bound = record.triggers.get(COMMAND_BAR, "") if record is not None else ""
        keys = key_help(identify().family, launch_command(), bound)
        offered = {t.ref for t in self.engine.library.tools(self.menus.context.mode)}
        ref = next((r for r in SUGGESTED if r in offered), None)
        suggestion = (ref, title_of_ref(ref)) if ref else None
        bar = self.text.bar()
        self.text.open_bar()
        bar.steps.show_dialog(Welcome(keys, suggestion, self._try_tool))
        bar.show_step()

    def _try_tool(self, ref: str) -> None:
        self.launch(ref)

    @guard
    def show_problem(self, name: str) -> None:
        self.dialogs.show_problem(name, self.engine.library.get(name))

    @guard
    def show_recent(self, index: int) -> None:
        self.runs.show_recent(index)

    def open_skills_folder(self) -> None:
        self.installing.open_skills_folder()

    def install_skill(self, source: str = "") -> None:
        """*Install skill…*, or a folder, archive or URL dropped on the launcher."""
        self.installing.install_skill(source)

    @guard
    def export_plugin(self) -> None:
        self.dialogs.open_export(self.engine, self.seams.open_url)

    def trust_project(self, project: Path, names: list[str]) -> None:
        self.installing.trust_project(project, names)

    def switch_skill(self, name: str, on: bool) -> None:
        self.installing.switch_skill(name, on)

    def _library_changed(self) -> None:
        """The skills on offer changed (a project trusted): the menus are made again."""
        self.menus.forget()
        self.refresh_views()

    @guard
    def reload_skills(self) -> None:
        self.reload_in_background(manual=True)

    @guard
    def open_approvals(self) -> None:
        self.dialogs.open_approvals(self.engine)

    @guard
    def open_settings(self) -> None:
        self.dialogs.open_settings(self.engine)

    @guard
    def apply_settings(self, settings: Settings) -> None:
        """Persist ``settings`` and apply what they change (autostart, folders)."""
        if self.session.apply_settings(settings, self.seams.set_autostart):
            self.rewatch()
        self.shortcuts.follow(settings.pinned_tools)
        self.menus.forget()
        self.refresh_views()
        self.show_notices()

    # ================================================================== notifications
    def notify(self, notice: Notice) -> None:
        """A tray message, or a line in the launcher window."""
        log.info("notification: %s: %s", notice.title, notice.body)
        self.notified.emit(notice.title, notice.body, notice.failed)
        self.surface.message(notice.title, notice.body, failed=notice.failed)

    def show_notices(self) -> None:
        """Show the Engine's one-time notices (each is drained, so shown once)."""
        notices = self.engine.notices()
        if notices and not self.surface.tray_messages(notices):
            self.dialogs.show_notices(notices)

    def runs_changed(self) -> None:
        self.surface.show_runs(self.runs.running(), self.runs.failed)
        self.surface.set_items(self.menus.items)  # the launcher's "Recent runs"

    # ================================================================== reload
    def rewatch(self, paths: set[str] | None = None) -> None:
        """Watch ``paths``, or what the Engine needs now (``reloading``)."""
        self.reloading.rewatch(paths)

    @guard
    def reload(self, *, manual: bool = False) -> None:
        """Re-read changed skills now, on this thread (the watcher: ``reload_in_background``)."""
        self.session.reload(manual=manual)

    @guard
    def reload_in_background(self, *, manual: bool = False) -> None:
        """Re-read changed skills and list the paths to watch on a worker (``reloading``)."""
        if not self.shut_down:
            self.reloader.start(manual=manual)

    # ================================================================== launching
    @guard
    def launch(
        self,
        ref: str,
        prefilled: Mapping[str, Any] | None = None,
        *,
        note: str = "",
        missing: Sequence[str] = (),
        origin: RunOrigin | None = None,
        folder: Path | None = None,
        ask_arguments: bool = True,
    ) -> RunSession | None:
        """Form → prepare → decision → run (``Session.launch``); the run's window, or None."""
        launched = self.session.launch(
            ref,
            prefilled,
            context=self.menus.context,
            note=note,
            missing=missing,
            origin=origin,
            folder=folder,
            ask_arguments=ask_arguments,
        )
        if launched.failure:
            self.runs.fail_before_start(ref, launched.failure)
        if launched.prepared is None:
            return None
        return self.runs.start(launched.prepared, confirmed=launched.confirmed)

    def _tool_picked(self, ref: str) -> None:
        """A tool the person picked in the command bar: their own run, as a menu click."""
        self.launch(ref)

    def run_again(self, prepared: PreparedRun) -> RunSession | None:
        """*Run again*: the same tool, values and folder, without the form (decided again)."""
        return self.launch(
            prepared.ref,
            dict(prepared.arguments),
            folder=prepared.cwd,
            ask_arguments=False,
            origin=prepared.origin,
        )

    def _past_chosen(self, past: PastRun) -> None:
        """A recent run chosen in the bar: its form, filled with that run's values and folder."""
        folder = Path(past.folder) if past.folder else None
        self.launch(
            past.ref, dict(past.arguments), folder=folder if folder and folder.is_dir() else None
        )

    @guard
    def handle_message(self, message: str) -> None:
        """A request from a second ``gibberish`` process (``single_instance.dispatch``)."""
        dispatch(
            message,
            raise_launcher=self.surface.raise_launcher,
            open_command_bar=self.open_command_bar,
            listen=lambda: self.listen(asked=False),
            ask=self._ask,
        )

    def _ask(self, text: str) -> None:
        """``gibberish ask`` handed over: the focused window's mode, then the words routed."""
        self.menus.capture()
        self.text.route(text)

    # ================================================================== voice
    def listen(self, *, asked: bool = True, held: bool = False) -> None:
        """*Listen* in the menu, ``gibberish listen`` handed over, or a held shortcut."""
        self.voice.listen(asked=asked, held=held)
