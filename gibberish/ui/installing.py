"""Adding skills from the tray: *Install skill…* (or something dropped on the launcher)
and *Open skills folder*.

The installer (network and git code) is imported only when asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QObject

from gibberish import paths
from gibberish.ui.errors import guard

if TYPE_CHECKING:
    from gibberish.ui.controller import Controller


class Installing(QObject):
    def __init__(self, controller: Controller) -> None:
        super().__init__(controller)
        self._c = controller

    @guard
    def install_skill(self, source: str = "") -> None:
        """*Install skill…*, or a folder, archive or URL dropped on the launcher."""
        from gibberish.interop.installer import installer_for

        dialog = self._c.dialogs.open_install(lambda: installer_for(self._c.engine), source)
        dialog.installed.connect(self._skills_installed)

    def _skills_installed(self, names: list[str]) -> None:
        from gibberish.session import Notice

        self._c.reload()
        self._c.notify(
            Notice("Skills installed", f"{', '.join(names)}: untrusted, so every run asks first.")
        )

    @guard
    def open_skills_folder(self) -> None:
        from PySide6.QtCore import QUrl

        folder = paths.user_skills_dir()
        folder.mkdir(parents=True, exist_ok=True)
        self._c.seams.open_url(QUrl.fromLocalFile(str(folder)))
