"""The controller: the tray's views wired to the Qt-free flow of ``gibberish.session``.

What a click means (the form, the decision, the approval, what a reload announces) is
decided by ``Session``, shared with the command line. This module connects the views:
the tray or launcher (``surface``), result windows (``run_views``), the command bar and
its router (``text_requests``) and the dialogs (``dialogs``). Whatever it reaches outside
Qt through is a ``Seams`` value given to the constructor: tests inject their answers.

Start-up is lazy: given a factory instead of an Engine, the controller shows the menu from
``menu_cache`` while ``EngineHost`` builds the Engine on a worker thread. Public entry
points are wrapped in ``errors.guard``: a bug in one is logged and shown once.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QApplication, QMenu

from gibberish import paths
from gibberish.trust.model_reads import RunOrigin
from gibberish.ui import gui_gc
from gibberish.ui.desktop_check import DesktopCheck
from gibberish.ui.dialogs import Dialogs
from gibberish.ui.engine_host import EngineHost, EngineSource
from gibberish.ui.errors import ErrorReporter, fatal_start, guard
from gibberish.ui.listening import Listening
from gibberish.ui.mcp_approvals import McpApprovals
from gibberish.ui.menu_source import MenuSource
from gibberish.ui.menu_view import UPDATE_BUDGET_S, MenuView
from gibberish.ui.reloader import BackgroundReload, ReloadResult
from gibberish.ui.run_views import RunSession, RunViews
from gibberish.ui.seams import Lazy, Seams
from gibberish.ui.shortcuts import TrayShortcuts
from gibberish.ui.single_instance import ASK_PREFIX, LISTEN, OPEN_COMMAND_BAR, SHOW
from gibberish.ui.surface import Surface
from gibberish.ui.text_requests import TextRequests
from gibberish.ui.watcher import SkillsWatcher

if TYPE_CHECKING:
    from pathlib import Path

    from gibberish.app import Engine
    from gibberish.session import Notice, Session
    from gibberish.settings import Settings
    from gibberish.skills.model import Mode

log = logging.getLogger("gibberish.ui")
GIL_SWITCH_INTERVAL_S = 0.001


COMMAND_BAR_WARM_UP_MS = 500
"""After the load, when the command bar and its ranker are made ahead of the first hotkey
press (``TextRequests.warm_up``): still within the start, after its first follow-ups."""
COMMAND_BAR_WARM_UP_RETRY_MS = 1000
"""How long the warm-up waits while a menu or a dialog is open."""


class Controller(QObject):
    """Glue between the session and the widgets; implements ``menu.MenuActions``."""

    notified = Signal(str, str, bool)  # title, body, failed
    """Every message shown in the tray (or the launcher's status line)."""

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
        self.host.ready.connect(self._engine_ready)
        self.host.failed.connect(self._engine_failed)
        self.reporter = reporter
        self._tray_available = tray_available
        self._session: Session | None = None
        self.menu = QMenu()
        self.menu.setObjectName("tray-menu")
        self.menu_view = MenuView(self.menu, self)
        self.menu_view.filled.connect(gui_gc.freeze_survivors)
        self.menu.aboutToShow.connect(self.rebuild_menu)
        self.surface = Surface(self.menu, self)
        self.surface.closed.connect(self.quit)
        self.surface.command_bar_requested.connect(self.open_command_bar)
        self.surface.install_requested.connect(self.install_skill)
        self.menus = MenuSource(self.host, self)
        self._shut_down = False
        self._watch_next: set[str] | None = None
        self._gc_held = False
        self.runs = RunViews(lambda: self.engine, self)
        self.runs.changed.connect(self._runs_changed)
        self.runs.notice.connect(self.notify)
        self.text = TextRequests(
            lambda: self.engine,
            lambda: self.menus.context.mode,
            router=self.seams.router,
            parent=self,
        )
        self.text.launch_requested.connect(self._launch_requested)
        self.text.settings_requested.connect(self.open_settings)
        self.text.notice.connect(self.notify)
        self.dialogs = Dialogs(self)
        self.dialogs.settings_accepted.connect(self.apply_settings)
        self.dialogs.approvals_closed.connect(self.show_notices)
        self.watcher = SkillsWatcher(parent=self)
        self.watcher.changed.connect(self.reload_in_background)
        self.reloader = BackgroundReload(lambda: self.engine, self)
        self.reloader.done.connect(self._reload_done)
        self.listening = Listening(self)
        self.listening.state.connect(self._voice_state)
        self.listening.heard.connect(self._heard)
        self.listening.failed.connect(self._listen_failed)
        self._voice_runs: list[RunSession] = []
        self.runs.changed.connect(self._speak_finished)
        self.shortcuts = TrayShortcuts(self)  # the desktop portal's global shortcuts
        self.desktop_check = DesktopCheck(self)  # once: why modes cannot follow the app here
        self.mcp_approvals = McpApprovals(
            lambda: self.engine,
            self.seams.approvals or Lazy("gibberish.ui.approval", "ApprovalPrompter"),
            self,
        )

    @property
    def engine(self) -> Engine:
        """The Engine (waits for it while it is still loading; see ``engine_host``)."""
        return self.host.get()

    @property
    def session(self) -> Session:
        if self._session is None:
            from gibberish.session import Session

            self._session = Session(
                lambda: self.engine,
                arguments=self.seams.forms or Lazy("gibberish.ui.param_form", "FormPrompter"),
                approval=self.seams.approvals or Lazy("gibberish.ui.approval", "ApprovalPrompter"),
                notify=self.notify,
                reloaded=self._reloaded,
            )
        return self._session

    # ================================================================== start / stop
    def start(self, *, no_tray: bool = False) -> None:
        """Show the tray (or the launcher window) with its menu; then load and watch the skills."""
        # Workers (the Engine's load, reloads, the menu cache) hold the interpreter in
        # turns of this length while the GUI thread waits for it: 1 ms, not 5.
        sys.setswitchinterval(GIL_SWITCH_INTERVAL_S)
        self.surface.show(
            no_tray=no_tray, tray_available=self._tray_available, items=self.menus.items
        )
        if self.surface.tray is not None:
            self.rebuild_menu()
        if self.host.is_ready:
            self._after_load()
        else:
            self._hold_gc(True)  # until the Engine is built: see ``gui_gc.freeze_survivors``
            QTimer.singleShot(0, self.host.start)  # once the event loop runs

    def _hold_gc(self, hold: bool) -> None:
        if hold and not self._gc_held:
            gui_gc.hold()
        elif not hold and self._gc_held:
            gui_gc.release()
        self._gc_held = hold

    def _engine_ready(self) -> None:
        self._hold_gc(False)
        if self._shut_down:
            return
        self.menus.forget()
        if self.surface.tray is not None:
            self._update_menu()
        self.surface.set_items(self.menus.items)
        self._after_load(background=True)

    def _after_load(self, *, background: bool = False) -> None:
        """Watch the skills folders — listed on the reload worker when ``background`` (the
        Engine was built on a worker: thousands of paths are not listed on this thread)."""
        self.runs.connect_events()
        if background:
            self.reload_in_background()
        else:
            self.rewatch()
        self.show_notices()
        self.shortcuts.start(self.engine.settings.pinned_tools)
        self.desktop_check.start()
        gui_gc.freeze_survivors()  # the loaded skills live on: out of the collector's way
        QTimer.singleShot(COMMAND_BAR_WARM_UP_MS, self, self._warm_up)

    def _warm_up(self) -> None:
        """Make the command bar ahead (a GUI turn of about 90 ms: Qt's enums for its
        widgets), but not while a menu or a dialog is open: then a second later."""
        if self._shut_down:
            return
        if QApplication.activePopupWidget() is not None or QApplication.activeModalWidget():
            QTimer.singleShot(COMMAND_BAR_WARM_UP_RETRY_MS, self, self._warm_up)
            return
        self.text.warm_up()
        gui_gc.freeze_survivors()  # the bar lives on: its thousands of objects are not walked

    def _engine_failed(self, error: BaseException) -> None:
        self._hold_gc(False)
        fatal_start(error, self.seams.show_fatal)
        self._shut_down = True
        QApplication.exit(1)

    @guard
    def quit(self) -> None:
        if self._shut_down:
            return
        self.shutdown()
        app = QApplication.instance()
        if app is not None:
            app.quit()

    def shutdown(self) -> None:
        """Cancel every run and wait until its process tree is gone; close every window."""
        if self._shut_down:
            return
        self._shut_down = True
        self._hold_gc(False)
        self.watcher.stop()
        self.shortcuts.close()
        self.reloader.wait()
        self.text.shutdown()
        if self.host.is_ready:
            engine = self.engine
            try:
                engine.cancel_all(wait=engine.settings.grace_period + 5.0)
            except Exception as exc:  # quitting must go on
                log.warning("cancelling runs on quit failed: %s", exc)
        self.runs.close_all()
        self.dialogs.close_all()
        self.surface.hide()

    # ================================================================== menu
    @guard
    def rebuild_menu(self) -> None:
        """Bring the tray menu up to date (on ``aboutToShow``): only entries that changed
        are replaced (``menu_view``); skill submenus fill when they open, or on idle."""
        if self.runs.failed:
            self.runs.failed = False
            self._runs_changed()
        self.menu_view.update(self.menus.items())

    @guard
    def _update_menu(self) -> None:
        """The tray menu after a change (load, reload, mode): a diff now, so an open or
        exported menu is current; many new entries are made on idle turns."""
        self.menu_view.update(self.menus.items(), budget_s=UPDATE_BUDGET_S)

    def _refresh_views(self) -> None:
        self.surface.set_items(self.menus.items)
        if self.surface.tray is not None:
            self._update_menu()
        self.text.refresh()

    # ================================================================== MenuActions
    @guard
    def set_mode(self, mode: Mode | str | None) -> None:
        from gibberish.skills.model import Mode

        self.engine.set_mode(None if mode is None else Mode(mode))
        self.menus.forget()
        self._refresh_views()
        self.show_notices()

    @guard
    def open_command_bar(self) -> None:
        self.menus.capture()
        self.text.open_bar()

    @guard
    def show_problem(self, name: str) -> None:
        self.dialogs.show_problem(name, self.engine.find_skill(name))

    @guard
    def show_recent(self, index: int) -> None:
        runs = self.engine.recent_runs()
        if 0 <= index < len(runs):
            self.runs.show_recent(runs[index])

    @guard
    def open_skills_folder(self) -> None:
        from PySide6.QtCore import QUrl

        folder = paths.user_skills_dir()
        folder.mkdir(parents=True, exist_ok=True)
        self.seams.open_url(QUrl.fromLocalFile(str(folder)))

    @guard
    def install_skill(self, source: str = "") -> None:
        """*Install skill…*, or a folder, archive or URL dropped on the launcher."""
        dialog = self.dialogs.open_install(lambda: self.engine.installer(), source)
        dialog.installed.connect(self._skills_installed)

    def trust_project(self, project: Path, names: list[str]) -> None:
        """*Trust project…*: ask; on yes the folder is trusted and its skills reload."""
        self.dialogs.ask_trust_project(project, names, lambda: self._project_trusted(project))

    @guard
    def _project_trusted(self, project: Path) -> None:
        from gibberish.trust import projects

        projects.trust(project)
        self.engine.use_project_of(project)
        self.menus.forget()
        self._refresh_views()

    def _skills_installed(self, names: list[str]) -> None:
        self.reload()
        from gibberish.session import Notice

        self.notify(
            Notice(
                "Skills installed",
                f"{', '.join(names)}: untrusted, so every run asks first.",
            )
        )
        self.offer_sync(names)

    @guard
    def offer_sync(self, names: list[str]) -> None:
        """After an install: offer to copy the new skills to the agents (as the CLI does)."""
        offer = self.engine.sync_offer(names)
        if offer.targets:
            self.dialogs.open_sync_offer(offer)

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
        self._refresh_views()
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

    def _runs_changed(self) -> None:
        self.surface.show_runs(self.runs.running(), self.runs.failed)
        self.surface.set_items(self.menus.items)  # the launcher's "Recent runs"

    # ================================================================== reload
    def rewatch(self, paths: set[str] | None = None) -> None:
        """Watch ``paths`` (listed by a background reload), or what the Engine needs now."""
        if paths is None:
            self.watcher.watch(*self.engine.watched_folders())
        else:
            self.watcher.apply(paths)

    @guard
    def reload(self, *, manual: bool = False) -> None:
        """Re-read changed skills now, on this thread; announce skills that broke or
        recovered; refresh the views. (The file watcher and the menu reload in the
        background: ``reload_in_background``.)"""
        self.session.reload(manual=manual)

    @guard
    def reload_in_background(self, *, manual: bool = False) -> None:
        """Re-read changed skills and list the paths to watch on a worker thread; the
        result is applied by ``_reload_done`` on this one."""
        if not self._shut_down:
            self.reloader.start(manual=manual)

    @guard
    def _reload_done(self, result: ReloadResult) -> None:
        if self._shut_down:
            return
        if result.error is not None:
            raise result.error
        self._watch_next = result.watch
        self.session.announce_reload(result.before, manual=result.manual)
        gui_gc.freeze_survivors()

    def _reloaded(self) -> None:
        paths, self._watch_next = self._watch_next, None
        self.rewatch(paths)
        self._refresh_views()

    # ================================================================== launching
    @guard
    def launch(
        self,
        ref: str,
        prefilled: Mapping[str, Any] | None = None,
        *,
        note: str = "",
        missing: Sequence[str] = (),
        origin: RunOrigin = RunOrigin.PERSON,
    ) -> RunSession | None:
        """Form → prepare → decision → run (``Session.launch``); the run's window, or None."""
        launched = self.session.launch(
            ref, prefilled, context=self.menus.context, note=note, missing=missing, origin=origin
        )
        if launched.failure:
            self.runs.fail_before_start(ref, launched.failure)
        if launched.prepared is None:
            return None
        return self.runs.start(launched.prepared, confirmed=launched.confirmed)

    def _launch_requested(self, ref: str, arguments: Any, note: str, missing: tuple) -> None:
        self.launch(ref, arguments or None, note=note, missing=missing, origin=RunOrigin.MODEL)

    @guard
    def handle_message(self, message: str) -> None:
        """A request from a second ``gibberish`` process (see ``single_instance``)."""
        log.info("request from another gibberish process: %s", message[:200])
        if message == OPEN_COMMAND_BAR or (message == SHOW and not self.surface.raise_launcher()):
            self.open_command_bar()
        elif message == LISTEN:
            self.listen(asked=False)
        elif message.startswith(ASK_PREFIX):
            self.menus.capture()
            self.text.route(message[len(ASK_PREFIX) :])

    # ================================================================== voice
    @guard
    def listen(self, *, asked: bool = True, held: bool = False) -> None:
        """Listen for one request (the menu's *Listen*, or ``gibberish listen``); a second
        press while listening ends the recording. ``asked``: chosen in the menu, which
        also allows listening in Meeting mode."""
        if self.listening.busy:
            self.listening.stop()
            return
        self.menus.capture()
        engine = self.engine
        mode = self.menus.context.mode
        reason = engine.may_listen(mode, asked=asked, microphone=self.seams.audio is None)
        if reason:
            self._say_notice("Not listening", reason)
            return
        if self.seams.audio is not None:
            source = self.seams.audio()
        else:
            from gibberish.voice import MicrophoneSource

            device = engine.settings.voice.microphone
            source = MicrophoneSource(int(device) if device.isdigit() else device or None)
        self.listening.start(engine, mode, source, held=held)

    def _voice_state(self, state: str) -> None:
        if not self.surface.show_voice(state):
            self._runs_changed()

    @guard
    def _heard(self, proposal: Any) -> None:
        """What was heard: the command bar shows the transcript and the proposed tool, then
        the parameter form opens with the heard values, as for a click."""
        from gibberish.voice import ProposalStatus

        text = proposal.heard.text
        call = proposal.call
        if proposal.status is ProposalStatus.NO_MATCH or call is None:
            refs = [f"{m.item.skill.name}.{m.item.tool.name}" for m in proposal.candidates]
            if not text and not refs:
                self._say_notice("Nothing recognized", proposal.message, failed=True)
                return
            self.text.show_heard(text, proposal.message, refs, failed=True)
            return
        ref = f"{call.skill}.{call.tool}"
        self.text.show_heard(text, f"Heard {proposal.heard.quoted()}", [ref], failed=False)
        QTimer.singleShot(0, lambda: self._launch_heard(ref, proposal))

    def _launch_heard(self, ref: str, proposal: Any) -> None:
        bar = self.text.command_bar
        if bar is not None:
            bar.hide()
        call = proposal.call
        session = self.launch(
            ref,
            dict(call.arguments) or None,
            note=f"Heard {proposal.heard.quoted()}"
            + (f". Check {'; '.join(call.unusual)}" if call.unusual else ""),
            missing=tuple(call.missing),
            origin=RunOrigin.MODEL,
        )
        if session is not None:
            self._voice_runs.append(session)

    def _listen_failed(self, message: str) -> None:
        self._say_notice("Not listening", message, failed=True)

    def _say_notice(self, title: str, body: str, *, failed: bool = False) -> None:
        from gibberish.session import Notice

        self.notify(Notice(title, body, failed=failed))

    def _speak_finished(self) -> None:
        """Spoken feedback for runs started by voice, when the settings ask for it."""
        done = [s for s in self._voice_runs if s.result is not None]
        if not done:
            return
        self._voice_runs = [s for s in self._voice_runs if s.result is None]
        if not self.engine.settings.voice.spoken_feedback:
            return
        from gibberish.voice.feedback import speak

        say = self.seams.speak or speak
        for session in done:
            ok = session.result is not None and session.result.success
            say(f"{session.prepared.tool.name.replace('_', ' ')} {'done' if ok else 'failed'}")
