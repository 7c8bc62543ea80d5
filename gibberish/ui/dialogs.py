"""The tray's non-modal dialogs: one of each kind open at a time.

Problems of a skill, the approvals list, the settings, and the Engine's one-time notices.
Opening a dialog of a kind that is already open closes the older one. Every text that
comes from a skill or a folder name is shown as plain text (``widgets.plain_box``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import shiboken6
from PySide6.QtCore import QObject, Signal

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from PySide6.QtWidgets import QDialog, QMessageBox, QWidget

    from gibberish.engine.core import Engine
    from gibberish.export.sync_offer import SyncOffer
    from gibberish.install.transaction import Installer
    from gibberish.skills.model import SkillDefinition
    from gibberish.ui.export.dialog import ExportDialog
    from gibberish.ui.install.dialog import InstallDialog
    from gibberish.ui.install.sync_offer_dialog import SyncOfferDialog


class Dialogs(QObject):
    settings_accepted = Signal(object)  # Settings
    approvals_closed = Signal()

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.open: dict[str, QWidget] = {}
        self.open_editor: Any = None
        """How *Open SKILL.md* opens a file at a line (tests replace it)."""

    def keep(self, name: str, dialog: QWidget) -> None:
        """Remember the one open dialog of each kind (closing an older one)."""
        from PySide6.QtCore import Qt

        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        old = self.open.pop(name, None)
        if old is not None and shiboken6.isValid(old):
            old.close()
        self.open[name] = dialog

    def close_all(self) -> None:
        for dialog in self.open.values():
            if shiboken6.isValid(dialog):
                dialog.close()
        self.open.clear()

    def show_problem(self, name: str, skill: SkillDefinition | None) -> None:
        """The problems of ``name`` (opened by the person, from the menu: not a surprise)."""
        from gibberish.ui.problem_dialog import ProblemDialog
        from gibberish.ui.widgets import plain_box

        box: QDialog
        if skill is None:
            box = plain_box("warning", f"Problem in {name} — gibberish", f"“{name}” is gone.")
            box.setObjectName("problem-dialog")
        elif skill.ok:  # it loaded, and hides another skill of the same name
            box = plain_box(
                "warning",
                f"Problem in {name} — gibberish",
                f"The skill “{name}” in {skill.directory} hides another skill of the same "
                "name, which is not offered. Rename one of the folders to keep both.",
                "\n".join(d.format() for d in skill.diagnostics),
            )
            box.setObjectName("problem-dialog")
        else:
            box = (
                ProblemDialog(skill, self.open_editor) if self.open_editor else ProblemDialog(skill)
            )
        self.keep("problem", box)
        box.open()

    def show_notices(self, notices: list[str]) -> None:
        from gibberish.ui.widgets import plain_box

        single = len(notices) == 1
        box = plain_box(
            "information",
            "gibberish",
            notices[0] if single else "Please note:",
            "" if single else "\n\n".join(notices),
        )
        box.setObjectName("notice-dialog")
        self.keep("notices", box)
        box.open()

    def ask_trust_project(
        self, project: Path, names: list[str], on_yes: Callable[[], None]
    ) -> QMessageBox:
        """The tray's question about a project folder (opened from its menu entry)."""
        from PySide6.QtWidgets import QMessageBox

        from gibberish.ui.widgets import plain_box

        box = plain_box(
            "warning",
            "Trust this project? — gibberish",
            f"Trust the project folder {project}?",
            f"It holds {_plural(len(names), 'skill')}: {', '.join(names)}. They came with the "
            "folder (a clone, a download), not from you, so they load as untrusted: every run "
            "asks first, with a warning, and they never hide your own or the bundled skills.\n\n"
            "Trust it only if you know who wrote them. Trusted, they load as your own skills "
            "(each still asks before its first run). “gibberish project untrust” undoes it.",
        )
        box.setObjectName("trust-project-dialog")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.button(QMessageBox.StandardButton.Yes).setText("Trust this folder")
        box.button(QMessageBox.StandardButton.No).setText("Keep untrusted")
        box.accepted.connect(on_yes)
        self.keep("trust-project", box)
        box.open()
        return box

    def open_install(self, installer: Callable[[], Installer], source: str = "") -> InstallDialog:
        from gibberish.ui.install.dialog import InstallDialog

        dialog = InstallDialog(installer, source)
        self.keep("install", dialog)
        dialog.open()
        return dialog

    def open_export(self, engine: Engine, open_url: Callable[..., object]) -> ExportDialog:
        """*Export as a plugin…*: the Engine's skills, by the rule ``plugin build`` uses."""
        from gibberish.export.plugin import choices
        from gibberish.ui.export.dialog import ExportDialog

        dialog = ExportDialog(choices(engine.library.skills()), open_url=open_url)
        self.keep("export", dialog)
        dialog.open()
        return dialog

    def open_sync_offer(self, offer: SyncOffer) -> SyncOfferDialog:
        from gibberish.ui.install.sync_offer_dialog import SyncOfferDialog

        dialog = SyncOfferDialog(offer)
        self.keep("sync-offer", dialog)
        dialog.open()
        return dialog

    def open_approvals(self, engine: Engine) -> None:
        from gibberish.ui.approval.approvals_dialog import ApprovalsDialog

        dialog = ApprovalsDialog(engine.trust)
        self.keep("approvals", dialog)
        dialog.finished.connect(self._approvals_finished)
        dialog.open()

    def _approvals_finished(self, _result: int = 0) -> None:
        self.approvals_closed.emit()

    def open_settings(self, engine: Engine) -> None:
        from gibberish.ui.settings.dialog import SettingsDialog

        shortcuts = getattr(self.parent(), "shortcuts", None)
        dialog = SettingsDialog(
            engine.settings,
            shortcuts=shortcuts.status() if shortcuts is not None else None,
            change_keys=shortcuts.change_keys if shortcuts is not None else None,
            tools=[(t.ref, t.tool.name, t.tool.description) for t in engine.library.tools()],
        )
        self.keep("settings", dialog)
        dialog.accepted.connect(self._settings_accepted)
        dialog.open()

    def _settings_accepted(self) -> None:
        dialog: Any = self.sender()
        result = getattr(dialog, "result_settings", None)
        if callable(result):
            self.settings_accepted.emit(result())


def _plural(count: int, one: str) -> str:
    from gibberish.ui.formatting import plural

    return plural(count, one)
