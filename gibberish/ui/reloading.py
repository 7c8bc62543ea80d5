"""Keeping the tray's skills current: the file watcher, the background reload, and
applying what a reload found.

A change under a watched folder (or *Reload skills*) reloads on a worker
(``reloader.BackgroundReload``); its result comes back here on the GUI thread, the
session announces skills that broke or recovered, then the watched paths and the views
are updated.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from gibberish.ui import gui_gc
from gibberish.ui.errors import guard
from gibberish.ui.reloader import BackgroundReload, ReloadResult
from gibberish.ui.watcher import SkillsWatcher

if TYPE_CHECKING:
    from gibberish.ui.controller import Controller


class Reloading(QObject):
    def __init__(self, controller: Controller) -> None:
        super().__init__(controller)
        self._c = controller
        self._watch_next: set[str] | None = None
        self.watcher = SkillsWatcher(parent=self)
        self.watcher.changed.connect(controller.reload_in_background)
        self.reloader = BackgroundReload(lambda: controller.engine, self)
        self.reloader.done.connect(self._reload_done)

    def rewatch(self, paths: set[str] | None = None) -> None:
        """Watch ``paths`` (listed by a background reload), or what the Engine needs now."""
        if paths is None:
            self.watcher.watch(*self._c.engine.library.watched_folders())
        else:
            self.watcher.apply(paths)

    @guard
    def _reload_done(self, result: ReloadResult) -> None:
        if self._c.shut_down:
            return
        if result.error is not None:
            raise result.error
        self._watch_next = result.watch
        self._c.session.announce_reload(result.before, manual=result.manual)
        gui_gc.freeze_survivors()

    def reloaded(self) -> None:
        """The session applied a reload: watch what it listed, refresh the views."""
        paths, self._watch_next = self._watch_next, None
        self.rewatch(paths)
        self._c.refresh_views()

    def stop(self) -> None:
        self.watcher.stop()
        self.reloader.wait()
