"""The working folder, as a row of the form: where the tool will run, and why there.

"Runs in ~/code/app — the folder of the focused window", with a list to change it (the
folder offered, the recent folders, another folder picked in the desktop's folder
dialog). When the tool needs something the folder lacks (a git repository for the git
tools, ``engine.needs``) the row says so in words before anything runs, offers the
recent folders that fit as buttons, and the form's Run stays disabled.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gibberish.engine import needs, run_history
from gibberish.paths import home_short
from gibberish.ui import accessibility
from gibberish.ui.widgets import PlainLabel, help_label, set_tone

if TYPE_CHECKING:
    from gibberish.engine.run_flow import FolderOffer
    from gibberish.skills.model import ToolDefinition

OTHER = "Another folder…"
MAX_FITTING = 3


class FolderRow(QWidget):
    """Where the run starts; ``folder`` is the person's choice, ``lacking`` what it misses."""

    changed = Signal()

    def __init__(self, tool: ToolDefinition, title: str, offer: FolderOffer, ref: str) -> None:
        super().__init__()
        self.ref = ref
        self.setObjectName("form-folder")
        self.tool = tool
        self.title = title
        self.offer = offer
        self.folder: Path = offer.path
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        row = QHBoxLayout()
        self.where = PlainLabel("")
        self.where.setObjectName("form-folder-text")
        self.where.setWordWrap(True)
        row.addWidget(self.where, 1)
        self.choice = QComboBox()
        self.choice.setObjectName("form-folder-choice")
        accessibility.name(self.choice, "Working folder", "Where the tool runs")
        self.choice.setToolTip("Change the folder the tool runs in")
        self._recent = self._folders()
        for folder in self._recent:
            self.choice.addItem(home_short(folder), str(folder))
        self.choice.addItem(OTHER, "")
        self.choice.activated.connect(self._chosen)
        change = PlainLabel("&Folder:")
        change.setBuddy(self.choice)
        row.addWidget(change)
        row.addWidget(self.choice)
        layout.addLayout(row)
        self.problem = help_label("")
        self.problem.setObjectName("form-folder-problem")
        self.problem.hide()
        layout.addWidget(self.problem)
        self.fitting = QWidget()
        self.fitting_layout = QHBoxLayout(self.fitting)
        self.fitting_layout.setContentsMargins(0, 0, 0, 0)
        self.fitting.hide()
        layout.addWidget(self.fitting)
        self._show()

    def _folders(self) -> list[Path]:
        listed = [self.offer.path]
        for folder in run_history.folders(self.ref):
            if folder not in listed:
                listed.append(folder)
        return listed

    def lacking(self) -> str:
        return needs.lacking(self.tool, self.title, self.folder)

    def set_folder(self, folder: Path) -> None:
        self.folder = folder
        found = self.choice.findData(str(folder))
        if found < 0:
            self.choice.insertItem(self.choice.count() - 1, home_short(folder), str(folder))
            found = self.choice.findData(str(folder))
        self.choice.setCurrentIndex(found)
        self._show()
        self.changed.emit()

    def _chosen(self, index: int) -> None:
        data = self.choice.itemData(index)
        if data:
            self.set_folder(Path(data))
            return
        picked = QFileDialog.getExistingDirectory(self, "Run in which folder?", str(self.folder))
        if picked:
            self.set_folder(Path(picked))
        else:
            self.choice.setCurrentIndex(max(self.choice.findData(str(self.folder)), 0))

    def _show(self) -> None:
        why = self.offer.why if self.folder == self.offer.path else "the folder you chose"
        self.where.setText(f"Runs in {home_short(self.folder)} — {why}")
        lacking = self.lacking()
        self.problem.setVisible(bool(lacking))
        while self.fitting_layout.count():
            item = self.fitting_layout.takeAt(0)
            widget = item.widget() if item is not None else None
            if widget is not None:
                widget.deleteLater()
        fits = [f for f in needs.fitting(self.tool, self._recent) if f != self.folder]
        if lacking:
            more = (
                " Run it in one of your recent folders that has one:"
                if fits
                else " Choose a folder that has one."
            )
            self.problem.setText(lacking + more)
            set_tone(self.problem, "error")
            for folder in fits[:MAX_FITTING]:
                button = QPushButton(home_short(folder))
                button.setObjectName("form-folder-fit")
                button.setToolTip(f"Run in {folder}")
                button.clicked.connect(lambda _=False, f=folder: self.set_folder(f))
                self.fitting_layout.addWidget(button)
            self.fitting_layout.addStretch(1)
        self.fitting.setVisible(bool(lacking and fits))
