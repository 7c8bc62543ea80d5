"""The controller: where a click (or a typed request) becomes a form, a decision and a run.

It is the only UI object that talks to the Engine, and it keeps every front piece small:
the tray and the launcher only render ``menu.build_menu``; the dialogs only show what
they are given. The flow of ``launch``:

1. resolve ``skill.tool`` (the skill may have been deleted since the menu was built);
2. the parameter form, unless the tool has no parameters (``form_prompter`` seam);
3. ``Engine.prepare`` renders the argv and decides run / ask / refuse;
4. ask → the approval dialog (``approval_prompter`` seam); refuse → the reason, no run;
5. ``Engine.start`` with the ``RunBridge`` callbacks; the result window shows the run.

Free text takes one step more (``route_text``): the router — the local model when one is
configured — proposes a tool and arguments, and the proposal enters this same flow at
step 2 with the form prefilled. A model never skips the form or the decision table.

Runs never block the GUI thread: the runner works on its own thread, and its output and
its end come back through ``RunEvents`` (queued signals, see ``runs.py``). Public entry
points are wrapped in ``errors.guard``: a bug in one is logged and shown once, and the
app keeps running.

Start-up is lazy: given a factory instead of an Engine, the controller shows the tray
with the menu from ``menu_cache`` and lets ``EngineHost`` build the Engine on a worker
thread; the menu is rebuilt from the Engine as soon as it is ready. Modules that are
not needed to show the tray (the Engine, the runner, the settings, the dialogs' data
layers) are imported where they are used.

Connections: slots are bound methods that find their widget with ``sender()``. A lambda
that captures a widget and is connected to that widget's own signal is released while
the widget is destroyed, which can drop the widget's last Python reference in the
middle of its destructor (a double delete).
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QObject, QTimer
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon

from gibberish import paths
from gibberish.ui import menu_cache
from gibberish.ui.engine_host import EngineHost, EngineSource
from gibberish.ui.errors import ErrorReporter, guard, report_exception
from gibberish.ui.formatting import summary_line
from gibberish.ui.icons import TrayState
from gibberish.ui.menu import build_menu, fill_pending_later, populate_qmenu
from gibberish.ui.runs import RunBridge, RunEvents
from gibberish.ui.single_instance import ASK_PREFIX, OPEN_COMMAND_BAR, SHOW
from gibberish.ui.watcher import SkillsWatcher

if TYPE_CHECKING:
    from PySide6.QtCore import QUrl
    from PySide6.QtWidgets import QWidget

    from gibberish.app import Engine, PreparedRun
    from gibberish.runner.envelope import RunResult
    from gibberish.runner.handle import RunHandle
    from gibberish.settings import Settings
    from gibberish.skills.model import Mode
    from gibberish.trust.modes import ModeContext
    from gibberish.ui.approval import ApprovalPrompterProtocol
    from gibberish.ui.asking import Asking
    from gibberish.ui.command_bar import CommandBar
    from gibberish.ui.launcher import LauncherWindow
    from gibberish.ui.result_window import ResultWindow
    from gibberish.ui.routing import Choices, Outcome, TextRouter

log = logging.getLogger("gibberish.ui")

NO_TRAY_REASON = (
    "This desktop has no system tray (or it is not running), so gibberish shows its menu "
    "in this window. Closing the window quits gibberish; starting `gibberish` again opens "
    "the command bar."
)
FORCED_REASON = "Started with --no-tray: gibberish shows its menu in this window."


class RunSession:
    """One run the UI follows: what was prepared, its callbacks, its window, its handle."""

    def __init__(
        self, key: int, prepared: PreparedRun, bridge: RunBridge, window: ResultWindow
    ) -> None:
        self.key = key
        self.prepared = prepared
        self.bridge = bridge
        self.window = window
        self.handle: RunHandle | None = None
        self.result: RunResult | None = None

    @property
    def running(self) -> bool:
        return self.result is None and self.handle is not None


class Controller(QObject):
    """Glue between the Engine and the widgets; implements ``menu.MenuActions``."""

    def __init__(
        self,
        engine: EngineSource,
        *,
        reporter: ErrorReporter | None = None,
        tray_available: bool | None = None,
    ) -> None:
        super().__init__()
        self.host = EngineHost(engine, self)
        self.host.ready.connect(self._engine_ready)
        self.host.failed.connect(self._engine_failed)
        self.reporter = reporter
        self._tray_available = tray_available
        # Seams (tests replace these). The defaults of the first three are made on first
        # use (see the properties below).
        self._form_prompter: Any = None
        self._approval_prompter: ApprovalPrompterProtocol | None = None
        self._router: TextRouter | None = None
        self._auto_router: TextRouter | None = None
        self._asking: Asking | None = None
        self.open_url: Callable[[QUrl], Any] = _open_url
        self.set_autostart: Callable[[bool], None] = _set_autostart
        self.show_fatal: Callable[[str, str], Any] = _critical

        self.notifications: list[tuple[str, str, bool]] = []
        self.shown_notices: list[str] = []
        self.sessions: dict[int, RunSession] = {}
        self.windows: list[ResultWindow] = []
        self.dialogs: dict[str, QWidget] = {}
        self.tray: Any = None
        self.launcher: LauncherWindow | None = None
        self.command_bar: CommandBar | None = None
        self.menu = QMenu()
        self.menu.setObjectName("tray-menu")
        self.menu.aboutToShow.connect(self.rebuild_menu)
        self._context: ModeContext | menu_cache.CachedContext | None = None
        self._failed = False
        self._keys = itertools.count(1)
        self._shut_down = False

        self.events = RunEvents(self)
        self._events_connected = False

        self.watcher = SkillsWatcher(parent=self)
        self.watcher.changed.connect(self.reload_from_disk)

    # ================================================================== seams
    # Dialog modules load on first use, not at start-up (their first import of Qt's
    # enum namespace alone costs ~17 ms).
    @property
    def form_prompter(self) -> Any:
        """Asks for a tool's arguments (default: the parameter form dialog)."""
        if self._form_prompter is None:
            from gibberish.ui.param_form import FormPrompter

            self._form_prompter = FormPrompter()
        return self._form_prompter

    @form_prompter.setter
    def form_prompter(self, value: Any) -> None:
        self._form_prompter = value

    @property
    def approval_prompter(self) -> ApprovalPrompterProtocol:
        """Asks to approve / confirm a run (default: the approval dialog)."""
        if self._approval_prompter is None:
            from gibberish.ui.approval import ApprovalPrompter

            self._approval_prompter = ApprovalPrompter()
        return self._approval_prompter

    @approval_prompter.setter
    def approval_prompter(self, value: ApprovalPrompterProtocol) -> None:
        self._approval_prompter = value

    @property
    def router(self) -> TextRouter:
        """Turns free text into a proposal: the local model when ``[model] enabled`` is
        true, else the fuzzy fallback. Read from the settings on every use, so saving the
        settings dialog switches it; a router set here (tests) wins over both."""
        if self._router is not None:
            return self._router
        from gibberish.ui.routing import FuzzyRouter, ModelRouter

        model = self.engine.settings.model
        current = self._auto_router
        if not model.enabled:
            if not isinstance(current, FuzzyRouter):
                current = FuzzyRouter()
        elif not (isinstance(current, ModelRouter) and current.settings == model):
            current = ModelRouter(self.engine, model)
        self._auto_router = current
        return current

    @router.setter
    def router(self, value: TextRouter | None) -> None:
        self._router = value

    @property
    def asking(self) -> Asking:
        """The one question a slow router is working on (made on first use)."""
        if self._asking is None:
            from gibberish.ui.asking import Asking

            self._asking = Asking(self)
            self._asking.answered.connect(self._answer)
        return self._asking

    # ================================================================== start / stop
    @property
    def engine(self) -> Engine:
        """The Engine (waits for it while it is still loading; see ``engine_host``)."""
        return self.host.get()

    @property
    def launcher_mode(self) -> bool:
        return self.launcher is not None

    def start(self, *, no_tray: bool = False) -> None:
        """Show the tray (or the launcher window) with its menu; then load and watch the skills."""
        available = (
            self._tray_available
            if self._tray_available is not None
            else QSystemTrayIcon.isSystemTrayAvailable()
        )
        if no_tray or not available:
            from gibberish.ui.launcher import LauncherWindow

            self.launcher = LauncherWindow(FORCED_REASON if no_tray else NO_TRAY_REASON)
            self.launcher.closed.connect(self.quit)
            self.refresh_launcher()
            self.launcher.show()
        else:
            from gibberish.ui.tray import Tray

            self.tray = Tray(self.menu, self)
            self.tray.command_bar_requested.connect(self.open_command_bar)
            self.rebuild_menu()
            self.tray.show()
        if self.host.is_ready:
            self._after_load()
        else:
            QTimer.singleShot(0, self.host.start)  # once the event loop runs

    def _engine_ready(self) -> None:
        """The Engine finished loading on its worker thread: show the real menu."""
        if self._shut_down:
            return
        self._context = None
        if self.tray is not None:
            self.rebuild_menu()
        self.refresh_launcher()
        self._after_load()

    def _after_load(self) -> None:
        self._connect_events()
        self.rewatch()
        self.show_notices()

    def _connect_events(self) -> None:
        """Queued connections for events from other threads (runs; ``Asking`` has its own).

        Made after the first paint: the first use of the ``Qt`` namespace costs ~17 ms.
        """
        if self._events_connected:
            return
        from PySide6.QtCore import Qt

        queued = Qt.ConnectionType.QueuedConnection
        self.events.output_ready.connect(self._output_ready, queued)
        self.events.finished.connect(self._finished, queued)
        self._events_connected = True

    def _engine_failed(self, error: BaseException) -> None:
        report_exception(error, where="loading the skills")
        self.show_fatal(
            "gibberish could not start",
            f"{type(error).__name__}: {error}\n\nDetails are in the log in {paths.state_dir()}.",
        )
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
        self.watcher.stop()
        if self._asking is not None:
            self._asking.cancel()
        if self.host.is_ready:
            engine = self.engine
            try:
                engine.cancel_all(wait=engine.settings.grace_period + 5.0)
            except Exception as exc:  # quitting must go on
                log.warning("cancelling runs on quit failed: %s", exc)
        for window in [s.window for s in self.sessions.values()] + self.windows:
            window.hide()
            window.deleteLater()
        self.sessions.clear()
        self.windows.clear()
        for dialog in self.dialogs.values():
            if shiboken6.isValid(dialog):
                dialog.close()
        self.dialogs.clear()
        if self.command_bar is not None:
            self.command_bar.hide()
        if self.tray is not None:
            self.tray.hide()
        if self.launcher is not None:
            self.launcher.close()  # its ``closed`` -> quit() is a no-op now

    # ================================================================== menu
    def capture_context(self) -> ModeContext:
        """The mode and focused app *now* (before our own window takes the focus)."""
        context = self.engine.mode_context()
        self._context = context
        return context

    @property
    def context(self) -> ModeContext:
        if self._context is None or isinstance(self._context, menu_cache.CachedContext):
            return self.capture_context()
        return self._context

    def _menu_items(self) -> list:
        """The menu from the Engine, or from the cache while the Engine is still loading."""
        if self.host.is_ready:
            context = self.capture_context()
            items = build_menu(self.engine, self, context)
            menu_cache.save(self.engine, context)
            return items
        cached = menu_cache.load()
        library, context = cached if cached is not None else (menu_cache.CachedLibrary(), None)
        self._context = context or menu_cache.CachedContext()
        return build_menu(library, self, self._context, loading=True)  # type: ignore[arg-type]

    @guard
    def rebuild_menu(self) -> None:
        """Rebuild the tray menu (on ``aboutToShow``); skill submenus fill lazily."""
        if self._failed:
            self._failed = False
            self._update_tray()
        pending = populate_qmenu(self.menu, self._menu_items())
        fill_pending_later(pending)

    def refresh_launcher(self) -> None:
        if self.launcher is not None:
            self.launcher.set_items(self._menu_items())

    def _refresh_views(self) -> None:
        self.refresh_launcher()
        if self.command_bar is not None and self.command_bar.isVisible():
            self.command_bar.set_tools(self.engine.tools(self.context.mode))

    # ================================================================== MenuActions
    @guard
    def set_mode(self, mode: Mode | str | None) -> None:
        from gibberish.skills.model import Mode

        self.engine.set_mode(None if mode is None else Mode(mode))
        self._context = None
        self._refresh_views()
        self.show_notices()

    @guard
    def open_command_bar(self) -> None:
        context = self.capture_context()
        bar = self._bar()
        bar.set_tools(self.engine.tools(context.mode))
        bar.popup()

    def _bar(self) -> CommandBar:
        """The command bar (made once), its hint naming what free text will be asked."""
        if self.command_bar is None:
            from gibberish.ui.command_bar import CommandBar

            self.command_bar = CommandBar()
            self.command_bar.tool_chosen.connect(self.launch)
            self.command_bar.text_submitted.connect(self._bar_submitted)
            self.command_bar.cancel_requested.connect(self.cancel_asking)
            self.command_bar.settings_requested.connect(self.open_settings)
        router = self.router
        name = getattr(router, "name", None)
        if getattr(router, "instant", True) and self._router is None:
            hint = "Enter for the closest tools"
        else:
            hint = f"Enter to ask {name}" if name else "Enter to ask in your own words"
        self.command_bar.ask_hint = hint
        return self.command_bar

    @guard
    def show_problem(self, name: str) -> None:
        skill = self.engine.library.get(name)
        if skill is None:
            text = f"The skill “{name}” is gone."
            details = ""
        else:
            text = f"The skill “{name}” could not be loaded. Fix its SKILL.md; it reloads on save."
            details = "\n".join(d.format() for d in skill.diagnostics)
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(QMessageBox.Icon.Warning, f"Problem in {name} — gibberish", text)
        box.setObjectName("problem-dialog")
        box.setInformativeText(details)
        box.setAttribute(_delete_on_close())
        self._keep_dialog("problem", box)
        box.open()

    @guard
    def show_recent(self, index: int) -> None:
        runs = self.engine.recent_runs()
        if not 0 <= index < len(runs):
            return
        run = runs[index]
        from gibberish.ui.result_window import ResultWindow

        window = ResultWindow(run.ref, run.argv, cwd=run.result.cwd)
        window.finish(run.result)
        self._track_window(window)
        window.show()

    @guard
    def open_skills_folder(self) -> None:
        folder = paths.user_skills_dir()
        folder.mkdir(parents=True, exist_ok=True)
        from PySide6.QtCore import QUrl

        self.open_url(QUrl.fromLocalFile(str(folder)))

    @guard
    def reload_skills(self) -> None:
        self.reload(manual=True)

    @guard
    def open_approvals(self) -> None:
        from gibberish.ui.approvals_dialog import ApprovalsDialog

        dialog = ApprovalsDialog(self.engine.approvals)
        dialog.setAttribute(_delete_on_close())
        self._keep_dialog("approvals", dialog)
        dialog.finished.connect(self._approvals_closed)
        dialog.open()

    def _approvals_closed(self, _result: int = 0) -> None:
        self.show_notices()

    @guard
    def open_settings(self) -> None:
        from gibberish.ui.settings_dialog import SettingsDialog

        dialog = SettingsDialog(self.engine.settings)
        dialog.setAttribute(_delete_on_close())
        self._keep_dialog("settings", dialog)
        dialog.accepted.connect(self._settings_accepted)
        dialog.open()

    @guard
    def _settings_accepted(self) -> None:
        dialog = self.sender()
        result = getattr(dialog, "result_settings", None)
        if callable(result):
            self.apply_settings(result())

    def _keep_dialog(self, name: str, dialog: QWidget) -> None:
        """Remember the one open dialog of each kind (closing an older one)."""
        old = self.dialogs.pop(name, None)
        if old is not None and shiboken6.isValid(old):
            old.close()
        self.dialogs[name] = dialog

    @guard
    def apply_settings(self, settings: Settings) -> None:
        """Persist ``settings`` and apply what they change (autostart, folders)."""
        before = self.engine.settings
        self.engine.update_settings(settings)
        from gibberish import desktop

        if settings.start_at_login != before.start_at_login or (
            settings.start_at_login and not desktop.is_autostart_enabled()
        ):
            try:
                self.set_autostart(settings.start_at_login)
            except OSError as exc:
                self.notify(
                    "Start at login", f"Could not change the autostart entry: {exc}", failed=True
                )
        if settings.extra_skills_dirs != before.extra_skills_dirs:
            self.engine.reload()
            self.rewatch()
        self._context = None
        self._refresh_views()
        self.show_notices()

    # ================================================================== notifications
    def notify(self, title: str, body: str, *, failed: bool = False) -> None:
        """A tray message, or a line in the launcher window."""
        self.notifications.append((title, body, failed))
        log.info("notification: %s: %s", title, body)
        if self.tray is not None:
            self.tray.notify(title, body, failed=failed)
        elif self.launcher is not None:
            self.launcher.show_status(title, body, failed=failed)

    def show_notices(self) -> None:
        """Show the Engine's one-time notices (each is drained, so shown once)."""
        notices = self.engine.notices()
        if not notices:
            return
        self.shown_notices.extend(notices)
        if self.tray is not None:
            for notice in notices:
                self.tray.notify("gibberish", notice, failed=True)
            return
        from PySide6.QtWidgets import QMessageBox

        box = QMessageBox(
            QMessageBox.Icon.Information,
            "gibberish",
            notices[0] if len(notices) == 1 else "Please note:",
        )
        box.setObjectName("notice-dialog")
        if len(notices) > 1:
            box.setInformativeText("\n\n".join(notices))
        box.setAttribute(_delete_on_close())
        self._keep_dialog("notices", box)
        box.open()

    def _update_tray(self) -> None:
        if self.tray is None:
            return
        running = [s for s in self.sessions.values() if s.running]
        if running:
            names = ", ".join(sorted({s.prepared.ref for s in running}))
            self.tray.set_state(TrayState.RUNNING, f"gibberish — running {names}")
        elif self._failed:
            self.tray.set_state(TrayState.FAILED, "gibberish — the last run failed")
        else:
            self.tray.set_state(TrayState.NORMAL)

    # ================================================================== reload
    def rewatch(self) -> None:
        sources = [s.path for s in self.engine.library.sources]
        self.watcher.watch(sources, [s.directory for s in self.engine.skills()])

    @guard
    def reload_from_disk(self) -> None:
        self.reload(manual=False)

    def reload(self, *, manual: bool = False) -> None:
        """Re-read changed skills; announce skills that broke or recovered; refresh the views."""
        engine = self.engine
        before = {s.name for s in engine.problems()}
        engine.reload()
        problems = engine.problems()
        now = {s.name for s in problems}
        for skill in problems:
            if skill.name not in before:
                first = skill.errors[0].format() if skill.errors else "it has errors"
                self.notify(f"Skill “{skill.name}” has a problem", first, failed=True)
        for name in sorted(before - now):
            if engine.library.get(name) is not None:
                self.notify(f"Skill “{name}” works again", "It loads without errors now.")
        if manual:
            count = len([s for s in engine.skills() if s.ok])
            self.notify("Skills reloaded", f"{count} skills ready, {len(problems)} with problems.")
        self.rewatch()
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
    ) -> RunSession | None:
        """Form → prepare → decision → run. Returns the session, or None when nothing ran.

        ``prefilled``, ``note`` and ``missing`` come from a proposal (a model's call): the
        form shows them, and the person confirms or corrects every value before the Engine
        decides — a proposal is never a way around the form or the approval.
        """
        from gibberish.app import EngineError
        from gibberish.skills.render import RenderError

        engine = self.engine
        context = self.context
        try:
            target = engine.find_tool(ref)
        except EngineError as exc:
            self._fail_before_start(ref, str(exc))
            return None
        if not target.skill.source_path.is_file():
            self.reload(manual=False)
            self._fail_before_start(
                ref, f"The skill “{target.skill.name}” was removed from {target.skill.directory}."
            )
            return None
        arguments = dict(prefilled or {})
        if target.tool.parameters:
            values = self.form_prompter.ask(
                target.skill,
                target.tool,
                lambda args, t=target: engine.render(t, args),
                arguments,
                None,
                note=note,
                missing=tuple(missing),
            )
            if values is None:
                return None
            arguments = values
        context_dir = context.focus.cwd if context.focus is not None else None
        try:
            prepared = engine.prepare(target, arguments, context_dir=context_dir, mode=context.mode)
        except (EngineError, RenderError, OSError) as exc:
            self._fail_before_start(ref, getattr(exc, "message", None) or str(exc))
            return None
        return self.run_prepared(prepared)

    def run_prepared(self, prepared: PreparedRun) -> RunSession | None:
        """Ask when the decision says so, then start."""
        from gibberish.ui.approval import ApprovalAnswer

        decision = prepared.decision
        if decision.refused:
            self.approval_prompter.ask(prepared, None)
            return None
        confirmed = False
        if decision.asks:
            answer = self.approval_prompter.ask(prepared, None)
            if answer is ApprovalAnswer.CANCEL:
                return None
            if answer is ApprovalAnswer.ALWAYS and decision.can_always_allow:
                self.engine.approve(prepared)
            confirmed = True
        return self.start_run(prepared, confirmed=confirmed)

    def start_run(self, prepared: PreparedRun, *, confirmed: bool, show: bool = True) -> RunSession:
        """Start ``prepared`` and follow it in a result window."""
        from gibberish.app import EngineError
        from gibberish.ui.result_window import ResultWindow

        self._connect_events()
        key = next(self._keys)
        bridge = RunBridge(self.events, key)
        window = ResultWindow(
            prepared.ref, prepared.argv, cwd=prepared.cwd, description=prepared.tool.description
        )
        session = RunSession(key, prepared, bridge, window)
        self.sessions[key] = session
        window.closed.connect(self._window_closed)
        try:
            handle = self.engine.start(prepared, confirmed=confirmed, on_output=bridge.feed)
        except (EngineError, OSError) as exc:
            window.fail_before_start(str(exc))
            self.sessions.pop(key, None)
            self.windows.append(window)
            if show:
                window.show()
            return session
        session.handle = handle
        window.set_running(bridge.tail, handle.cancel)
        handle.add_done_callback(bridge.done)
        self._update_tray()
        if show:
            window.show()
        return session

    def _fail_before_start(self, ref: str, message: str) -> None:
        from gibberish.ui.result_window import ResultWindow

        window = ResultWindow(ref, ())
        window.fail_before_start(message)
        self._track_window(window)
        window.show()

    def _output_ready(self, key: int) -> None:
        session = self.sessions.get(key)
        if session is not None:
            session.window.output_arrived()

    @guard
    def _finished(self, key: int, result: RunResult) -> None:
        session = self.sessions.get(key)
        if session is None:
            return
        session.result = result
        session.window.finish(result)
        if not result.envelope.success:
            self._failed = True
        if not session.window.isVisible():
            self.notify(session.prepared.ref, summary_line(result), failed=not result.success)
            self._discard_session(key)
        self._update_tray()
        self.refresh_launcher()  # its "Recent runs" (the tray menu rebuilds when opened)

    def _track_window(self, window: ResultWindow) -> None:
        """A window that is not a live run (a recent run, a failure before start)."""
        self.windows.append(window)
        window.closed.connect(self._window_closed)

    def _window_closed(self) -> None:
        window = self.sender()
        if window in self.windows:
            self._drop_window(window)
            return
        for key, session in list(self.sessions.items()):
            if session.window is window and session.result is not None:
                self._discard_session(key)

    def _discard_session(self, key: int) -> None:
        session = self.sessions.pop(key, None)
        if session is not None:
            session.window.deleteLater()

    def _drop_window(self, window: Any) -> None:
        if window in self.windows:
            self.windows.remove(window)
            window.deleteLater()

    def running_sessions(self) -> list[RunSession]:
        return [s for s in self.sessions.values() if s.running]

    # ================================================================== free text
    @guard
    def handle_message(self, message: str) -> None:
        """A request from a second ``gibberish`` process (see ``single_instance``)."""
        log.info("request from another gibberish process: %s", message[:200])
        if message == OPEN_COMMAND_BAR:
            self.open_command_bar()
        elif message == SHOW:
            if self.launcher is not None:
                self.launcher.showNormal()
                self.launcher.raise_()
                self.launcher.activateWindow()
            else:
                self.open_command_bar()
        elif message.startswith(ASK_PREFIX):
            self.capture_context()
            self.route_text(message[len(ASK_PREFIX) :])

    @guard
    def route_text(self, text: str) -> None:
        """Free text (the command bar, or ``ask TEXT`` from a second process) → the router.

        An instant router (the fuzzy fallback) answers here and now. A slow one (the local
        model) is asked on a worker thread by ``asking``; meanwhile the command bar shows
        the question with a spinner, and Esc cancels it. Either answer ends in ``_answer``.
        """
        text = text.strip()
        if not text:
            return
        self.cancel_asking()
        mode = self.context.mode
        tools = self.engine.tools(mode)
        router = self.router
        if getattr(router, "instant", True):
            self._answer(router.propose(text, tools, mode=mode), text)
            return
        bar = self._bar()
        if not bar.isVisible() or bar.input.text().strip() != text:
            bar.set_tools(tools)
            bar.popup(text)
        bar.set_busy(getattr(router, "busy_text", "") or "Thinking…")
        self.asking.ask(router, text, tools, mode)

    @guard
    def _bar_submitted(self, text: str) -> None:
        """Enter on free text in the bar: ask the model, or (none configured) say so and
        list the closest tools for the whole sentence."""
        from gibberish.ui.routing import FuzzyRouter

        router = self.router
        if isinstance(router, FuzzyRouter):
            self._offer(router.choices(text, self.engine.tools(self.context.mode)), text)
        else:
            self.route_text(text)

    @guard
    def cancel_asking(self) -> None:
        """Forget the question being asked (its answer, when it comes, is dropped)."""
        if self._asking is not None and self._asking.cancel():
            bar = self.command_bar
            if bar is not None and bar.busy:
                bar.cancel()

    @guard
    def _answer(self, outcome: Outcome, text: str) -> None:
        """What the router said, on the GUI thread: open a proposal like a click, or show
        the choices (unsure, error, nothing in this mode) in the command bar."""
        from gibberish.ui.routing import Choices, Proposal

        bar = self.command_bar
        if bar is not None and bar.busy:
            bar.set_busy(None)
        if isinstance(outcome, Proposal):
            if bar is not None:
                bar.hide()
            log.info("proposal for %r: %s %s", text[:200], outcome.ref, dict(outcome.arguments))
            self.launch(
                outcome.ref, dict(outcome.arguments), note=outcome.note, missing=outcome.missing
            )
        elif isinstance(outcome, Choices):
            if outcome.failed:
                log.warning("asking about %r failed: %s", text[:200], outcome.message)
            self._offer(outcome, text)
        elif bar is not None and bar.isVisible():
            self._offer(Choices(f"No tool matches “{text}”."), text)
        else:
            self.notify("No tool found", f"Nothing matches “{text}”.")

    def _offer(self, choices: Choices, text: str) -> None:
        """Show ``choices`` in the command bar under ``text`` (opening the bar if needed)."""
        bar = self._bar()
        if not bar.isVisible():
            bar.set_tools(self.engine.tools(self.context.mode))
            bar.popup(text)
        bar.show_choices(
            choices.message,
            choices.refs,
            failed=choices.failed,
            settings_link=choices.settings_link,
        )


def _set_autostart(enabled: bool) -> None:
    from gibberish import desktop

    desktop.set_autostart(enabled)


def _critical(title: str, text: str) -> None:
    from PySide6.QtWidgets import QMessageBox

    QMessageBox.critical(None, title, text)


def _open_url(url: QUrl) -> bool:
    from PySide6.QtGui import QDesktopServices

    return QDesktopServices.openUrl(url)


def _delete_on_close() -> Any:
    from PySide6.QtCore import Qt

    return Qt.WidgetAttribute.WA_DeleteOnClose
