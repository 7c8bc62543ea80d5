"""The "Approvals…" dialog: which skills may run without asking, and a way to take that back.

An approval belongs to one exact fingerprint of a skill (docs/adr/0010-trust-table.md), so the list shows
when it was given and from which folder; "Revoke" forgets it and the next run asks again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QHBoxLayout,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gibberish.ui import accessibility, icons
from gibberish.ui.formatting import plain_tooltip
from gibberish.ui.widgets import (
    MARGIN,
    SPACING,
    help_label,
    keyboard_buttons,
    mnemonic_buttons,
)

if TYPE_CHECKING:
    from gibberish.app import ApprovalStatus

NAME_ROLE = Qt.ItemDataRole.UserRole


class ApprovalSource(Protocol):
    """What the dialog needs of the Engine's trust facade."""

    def approval_list(self) -> list[ApprovalStatus]: ...
    def revoke(self, name: str) -> bool: ...


class ApprovalsDialog(QDialog):
    def __init__(self, store: ApprovalSource, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approvals-dialog")
        self.setWindowTitle("Approvals — gibberish")
        self.setWindowIcon(icons.app_icon())
        self.store = store

        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING)
        layout.addWidget(
            help_label(
                "These skills were allowed to run. An approval covers one exact version "
                "of a skill: any change to its files asks again. Revoke to be asked next time."
            )
        )
        self.table = QTreeWidget()
        self.table.setObjectName("approvals-table")
        accessibility.name(self.table, "Approved skills")
        accessibility.name(self.table.header(), "Columns")
        self.table.setHeaderLabels(["Skill", "Approved", "Status", "Folder"])
        self.table.setRootIsDecorated(False)
        self.table.setAlternatingRowColors(True)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        layout.addWidget(self.table, 1)

        row = QHBoxLayout()
        self.revoke_button = QPushButton("&Revoke")
        self.revoke_button.setObjectName("approvals-revoke")
        self.revoke_button.setEnabled(False)
        self.revoke_button.clicked.connect(self.revoke_selected)
        row.addWidget(self.revoke_button)
        row.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        buttons.button(QDialogButtonBox.StandardButton.Close).setObjectName("approvals-close")
        row.addWidget(buttons)
        layout.addLayout(row)
        mnemonic_buttons(self)
        keyboard_buttons(self)
        self.resize(620, 320)
        self.refresh()

    def refresh(self) -> None:
        self.table.clear()
        records = self.store.approval_list()
        for status in records:
            record = status.record
            when = record.approved_at.astimezone().strftime("%Y-%m-%d %H:%M")
            item = QTreeWidgetItem([record.skill, when, status.status, str(record.path or "")])
            item.setData(0, NAME_ROLE, record.skill)
            item.setToolTip(3, plain_tooltip(str(record.path or "")))
            self.table.addTopLevelItem(item)
        if not records:
            empty = QTreeWidgetItem(["No approvals yet", "", "", ""])
            empty.setFlags(Qt.ItemFlag.NoItemFlags)
            self.table.addTopLevelItem(empty)
        for column in range(3):
            self.table.resizeColumnToContents(column)
        self._selection_changed()

    def names(self) -> list[str]:
        out = []
        for i in range(self.table.topLevelItemCount()):
            item = self.table.topLevelItem(i)
            name = item.data(0, NAME_ROLE) if item is not None else None
            if name:
                out.append(str(name))
        return out

    def select(self, skill: str) -> None:
        for i in range(self.table.topLevelItemCount()):
            item = self.table.topLevelItem(i)
            if item is not None and item.data(0, NAME_ROLE) == skill:
                self.table.setCurrentItem(item)

    def revoke_selected(self) -> None:
        for item in self.table.selectedItems():
            name = item.data(0, NAME_ROLE)
            if name:
                self.store.revoke(str(name))
        self.refresh()

    def _selection_changed(self) -> None:
        self.revoke_button.setEnabled(
            any(item.data(0, NAME_ROLE) for item in self.table.selectedItems())
        )
