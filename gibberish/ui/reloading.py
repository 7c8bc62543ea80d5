"""Keeping the tray's skills current: the file watcher, the background reload, and
applying what a reload found.

A change under a watched folder (or *Reload skills*) reloads on a worker
(``reloader.BackgroundReload``); its result comes back here on the GUI thread, the
session announces skills that broke or recovered, then the watched paths and the views
are updated.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from gibberish.ui import gui_gc
from gibberish.ui.errors import guard
from gibberish.ui.reloader import BackgroundReload, ReloadResult
from gibberish.ui.watcher import SkillsWatcher

if TYPE_CHECKING:
    from gibberish.engine.core import Engine


class Reloading(QObject):
    """Given what it acts on: the Engine, the session's announcement of a reload, the
    views to refresh, and whether the tray has shut down. What a change the watcher sees
    does is connected by the owner (``watcher.changed``), which decides how to reload."""

    def __init__(
        self,
        engine: Callable[[], Engine],
        *,
        announce: Callable[[set[str], bool], None],
        refresh_views: Callable[[], None],
        shut_down: Callable[[], bool],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._engine = engine
        self._announce = announce
        self._refresh_views = refresh_views
        self._shut_down = shut_down
        self._watch_next: set[str] | None = None
        self.watcher = SkillsWatcher(parent=self)
        self.reloader = BackgroundReload(engine, self)
        self.reloader.done.connect(self._reload_done)

    def rewatch(self, paths: set[str] | None = None) -> None:
        """Watch ``paths`` (listed by a background reload), or what the Engine needs now."""
        if paths is None:
            self.watcher.watch(*self._engine().library.watched_folders())
        else:
            self.watcher.apply(paths)

    @guard
    def _reload_done(self, result: ReloadResult) -> None:
        if self._shut_down():
            return
        if result.error is not None:
            raise result.error
        self._watch_next = result.watch
        self._announce(result.before, result.manual)
        gui_gc.freeze_survivors()

    def reloaded(self) -> None:
        """The session applied a reload: watch what it listed, refresh the views."""
        paths, self._watch_next = self._watch_next, None
        self.rewatch(paths)
        self._refresh_views()

    def stop(self) -> None:
        self.watcher.stop()
        self.reloader.wait()
