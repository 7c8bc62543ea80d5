"""The result windows of runs: one per run the tray follows, plus finished and failed ones.

A run is started here (``engine.runs.start`` with a ``RunBridge`` for its callbacks) and shown
in a ``ResultWindow`` that streams its output. Its output and its end come back from the
runner's thread as queued ``RunEvents`` signals (``runs.py``); the views never block the
GUI thread. What the rest of the tray needs to know leaves as signals: ``changed`` when
the set of running tools changed (the tray icon, the launcher's recent runs) and
``notice`` when a run ended whose window the person had closed.

Slots are bound methods that find their window with ``sender()``: a lambda capturing a
widget, connected to that widget's own signal, can drop the widget's last Python
reference in the middle of its destructor (a double delete).
"""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, QTimer, Signal

from gibberish.ui.errors import guard
from gibberish.ui.runs.bridge import RunBridge, RunEvents

if TYPE_CHECKING:
    from pathlib import Path

    from gibberish.engine.core import Engine, PreparedRun
    from gibberish.runner.envelope import RunResult
    from gibberish.runner.handle import RunHandle
    from gibberish.ui.command_bar.bar import CommandBar
    from gibberish.ui.runs.result_window import ResultWindow


def _keep_run(ref: str, arguments: dict, folder: Path, ok: bool) -> None:
    """Write a finished run to the recent runs (on a thread: the file is synced to disk)."""
    from gibberish.engine import run_history

    with _KEEPING:
        run_history.add(ref, arguments, folder, ok=ok)


_KEEPING = threading.Lock()


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


class RunViews(QObject):
    changed = Signal()
    notice = Signal(object)  # a session.Notice: a run ended whose window was closed

    def __init__(self, engine: Callable[[], Engine], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._engine = engine
        self.sessions: dict[int, RunSession] = {}
        self.windows: list[ResultWindow] = []
        self.failed = False
        """The last run failed (the tray shows it until the menu is next opened)."""
        self.events = RunEvents(self)
        self._connected = False
        self._keys = itertools.count(1)
        self.host: Callable[[], CommandBar] | None = None
        """The one window the results show in (None: each in a window of its own)."""
        self.again: Callable[[PreparedRun], object] | None = None
        """Starts a prepared run's call again (*Run again*); None: no such button."""

    def connect_events(self) -> None:
        """Queued connections for the runner's threads; made after the first paint (the
        first use of the ``Qt`` namespace costs ~17 ms)."""
        if self._connected:
            return
        from PySide6.QtCore import Qt

        queued = Qt.ConnectionType.QueuedConnection
        self.events.output_ready.connect(self._output_ready, queued)
        self.events.finished.connect(self._finished, queued)
        self._connected = True

    def running(self) -> list[RunSession]:
        return [s for s in self.sessions.values() if s.running]

    def start(self, prepared: PreparedRun, *, confirmed: bool, show: bool = True) -> RunSession:
        """Start ``prepared`` and follow it in a result window."""
        from gibberish.engine.core import EngineError
        from gibberish.ui.runs.result_window import ResultWindow

        self.connect_events()
        key = next(self._keys)
        bridge = RunBridge(self.events, key)
        window = self._made_ahead() if show else None
        if window is None:
            window = ResultWindow("", ())
        window.fill(
            prepared.ref,
            prepared.argv,
            cwd=prepared.cwd,
            description=prepared.tool.description,
            tool=prepared.tool,
        )
        session = RunSession(key, prepared, bridge, window)
        self.sessions[key] = session
        window.closed.connect(self._window_closed)
        try:
            handle = self._engine().runs.start(prepared, confirmed=confirmed, on_output=bridge.feed)
        except (EngineError, OSError) as exc:
            window.fail_before_start(str(exc))
            self.sessions.pop(key, None)
            self.windows.append(window)
            if show:
                self._present(window, None)
            return session
        session.handle = handle
        window.set_running(bridge.tail, handle.cancel)
        handle.add_done_callback(bridge.done)
        self.changed.emit()
        if show:
            self._present(window, key)
        return session

    def output_ahead(self) -> None:
        """Make the next run's output in the one window now, on idle (after the bar is
        made, after a run ended): Enter then only fills it in. Never a used one."""
        if self.host is None:
            return
        steps = self.host().steps
        if steps.ahead is None:
            from gibberish.ui.runs.result_window import ResultWindow

            steps.keep_ahead(ResultWindow("", ()))

    def _made_ahead(self) -> ResultWindow | None:
        from gibberish.ui.runs.result_window import ResultWindow

        if self.host is None:
            return None
        window = self.host().steps.take_ahead()
        return window if isinstance(window, ResultWindow) else None

    def _present(self, window: ResultWindow, key: int | None) -> None:
        """In the one window when there is one (Back, Run again, Own window), else alone."""
        if self.host is None:
            window.show()
            return
        bar = self.host()
        again = partial(self._run_again, key) if key is not None and self.again else None
        window.in_window(run_again=again, detach=partial(self._detach, id(window)))
        bar.steps.show_output(window)
        bar.show_step()

    def _run_again(self, key: int) -> None:
        session = self.sessions.get(key)
        if session is not None and self.again is not None:
            self.again(session.prepared)

    def _detach(self, ident: int) -> None:
        windows = [s.window for s in self.sessions.values()] + self.windows
        window = next((w for w in windows if id(w) == ident), None)
        if window is not None and self.host is not None:
            self.host().steps.detach(window)
            window.detached()

    def fail_before_start(self, ref: str, message: str) -> None:
        """A window saying why ``ref`` never started."""
        from gibberish.ui.runs.result_window import ResultWindow

        window = ResultWindow(ref, ())
        window.fail_before_start(message)
        self._track(window)
        self._present(window, None)

    def show_recent(self, index: int) -> None:
        """The window of the Engine's ``index``-th recent run (the menu's *Recent runs*)."""
        from gibberish.ui.runs.result_window import ResultWindow

        runs = self._engine().runs.recent()
        if not 0 <= index < len(runs):
            return
        run = runs[index]
        window = ResultWindow(run.ref, run.argv, cwd=run.result.cwd)
        window.finish(run.result)
        self._track(window)
        self._present(window, None)

    def close_all(self) -> None:
        for window in [s.window for s in self.sessions.values()] + self.windows:
            window.hide()
            window.deleteLater()
        self.sessions.clear()
        self.windows.clear()

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
        QTimer.singleShot(0, self, self.output_ahead)
        prepared = session.prepared
        keep = (prepared.ref, dict(prepared.arguments), prepared.cwd, result.success)
        threading.Thread(target=_keep_run, args=keep, name="recent-runs", daemon=True).start()
        if not result.envelope.success:
            self.failed = True
        if not session.window.isVisible():
            from gibberish.engine.run_flow import Notice
            from gibberish.ui.formatting import run_notice

            title, body = run_notice(session.prepared.ref, result)
            self.notice.emit(Notice(title, body, failed=not result.success))
            self._discard(key)
        self.changed.emit()

    def _track(self, window: ResultWindow) -> None:
        """A window that is not a live run (a recent run, a failure before start)."""
        self.windows.append(window)
        window.closed.connect(self._window_closed)

    def _window_closed(self) -> None:
        window: Any = self.sender()
        if window in self.windows:
            self.windows.remove(window)
            window.deleteLater()
            return
        for key, session in list(self.sessions.items()):
            if session.window is window and session.result is not None:
                self._discard(key)

    def _discard(self, key: int) -> None:
        session = self.sessions.pop(key, None)
        if session is not None:
            session.window.deleteLater()
