"""Adding skills from the tray: *Install skill…* (or something dropped on the launcher),
*Open skills folder*, *Trust project “X”…* (a project's skills becoming the person's
own), and *Turn off* / *Turn on* (a skill kept but left out).

The installer (network and git code) is imported only when asked for.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from PySide6.QtCore import QObject, QUrl

from gibberish import paths
from gibberish.ui.errors import guard

if TYPE_CHECKING:
    from pathlib import Path

    from gibberish.engine.core import Engine
    from gibberish.engine.run_flow import Notice
    from gibberish.ui.dialogs import Dialogs


class Installing(QObject):
    """Given what it acts on: the Engine, the dialogs, and what the tray does after an
    install (reload now, a notice, open a folder, the library changed)."""

    def __init__(
        self,
        engine: Callable[[], Engine],
        dialogs: Dialogs,
        *,
        reload: Callable[[], None],
        notify: Callable[[Notice], None],
        open_url: Callable[[QUrl], object],
        library_changed: Callable[[], None],
        parent: QObject | None = None,
    ) -> None:
        super().__init__(parent)
        self._engine = engine
        self._dialogs = dialogs
        self._reload = reload
        self._notify = notify
        self._open_url = open_url
        self._library_changed = library_changed

    @guard
    def install_skill(self, source: str = "") -> None:
        """*Install skill…*, or a folder, archive or URL dropped on the launcher."""
        from gibberish.install.installer import installer_for

        dialog = self._dialogs.open_install(lambda: installer_for(self._engine()), source)
        dialog.installed.connect(self._skills_installed)

    def _skills_installed(self, names: list[str]) -> None:
        from gibberish.engine.run_flow import Notice

        self._reload()
        self._notify(
            Notice("Skills installed", f"{', '.join(names)}: untrusted, so every run asks first.")
        )
        self.offer_sync(names)

    @guard
    def offer_sync(self, names: list[str]) -> None:
        """After an install: offer to copy the new skills to the agents (as the CLI does)."""
        from gibberish.export.sync_offer import offer_for

        offer = offer_for(self._engine().settings, names)
        if offer.targets:
            self._dialogs.open_sync_offer(offer)

    @guard
    def switch_skill(self, name: str, on: bool) -> None:
        """*Turn off* / *Turn on* from the menu, as ``gibberish disable/enable``
        (``skill_switch``): reloaded at once so every view agrees, then said; a skill
        turned on is offered to the agents again as after an install."""
        from gibberish.ui.skill_switch import switch_skill

        notice = switch_skill(self._engine(), name, on)
        self._reload()
        self._library_changed()
        self._notify(notice)
        if on and not notice.failed:
            self.offer_sync([name])

    @guard
    def open_skills_folder(self) -> None:
        folder = paths.user_skills_dir()
        folder.mkdir(parents=True, exist_ok=True)
        self._open_url(QUrl.fromLocalFile(str(folder)))

    def trust_project(self, project: Path, names: list[str]) -> None:
        """Ask about ``project`` (trust/projects.py); on yes it is trusted at once."""
        self._dialogs.ask_trust_project(project, names, lambda: self._project_trusted(project))

    @guard
    def _project_trusted(self, project: Path) -> None:
        from gibberish.trust import projects

        projects.trust(project)
        self._engine().library.follow_project(project)  # its skills now load as the user's
        self._library_changed()
