"""The settings dialog: a form over ``gibberish.settings.Settings``.

It edits a copy and returns it (``result_settings``); the controller persists it with
``Engine.update_settings`` (``config.toml``, written atomically) and applies the side
effects — the autostart entry, a reload when the skills folders changed. The model
section only stores ``ModelSettings`` for now: routing through a local model is the
next step, and having the endpoint configured ahead of it costs nothing.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gibberish import paths
from gibberish.settings import MODEL_APIS, Settings
from gibberish.ui import icons
from gibberish.ui.widgets import MARGIN, SPACING, help_label

API_LABELS = {
    "ollama-generate": "Ollama (raw prompt, /api/generate)",
    "ollama-chat": "Ollama chat (/api/chat)",
    "openai": "OpenAI-compatible (/v1/chat/completions)",
}


class SettingsDialog(QDialog):
    """Edit ``settings``; after ``exec()`` is Accepted, ``result_settings()`` is the new value."""

    def __init__(self, settings: Settings, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("settings-dialog")
        self.setWindowTitle("Settings — gibberish")
        self.setWindowIcon(icons.app_icon())
        self.original = settings

        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING + 2)

        skills_box = QGroupBox("Skills folders")
        skills_layout = QVBoxLayout(skills_box)
        skills_layout.addWidget(
            help_label(
                f"Your own skills live in {paths.user_skills_dir()}. "
                "Add other folders of skills here (each skill is a folder with a SKILL.md)."
            )
        )
        row = QHBoxLayout()
        self.folders = QListWidget()
        self.folders.setObjectName("settings-folders")
        self.folders.addItems(list(settings.extra_skills_dirs))
        self.folders.setMaximumHeight(110)
        row.addWidget(self.folders, 1)
        column = QVBoxLayout()
        add = QPushButton("Add…")
        add.setObjectName("settings-add-folder")
        add.clicked.connect(self._add_clicked)
        remove = QPushButton("Remove")
        remove.setObjectName("settings-remove-folder")
        remove.clicked.connect(self.remove_selected)
        column.addWidget(add)
        column.addWidget(remove)
        column.addStretch(1)
        row.addLayout(column)
        skills_layout.addLayout(row)
        layout.addWidget(skills_box)

        general = QGroupBox("Behaviour")
        form = QFormLayout(general)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.auto_mode = QCheckBox("Choose the mode from the focused app")
        self.auto_mode.setObjectName("settings-auto-mode")
        self.auto_mode.setChecked(settings.auto_mode)
        form.addRow("Mode", self.auto_mode)
        self.grace = QDoubleSpinBox()
        self.grace.setObjectName("settings-grace")
        self.grace.setRange(0, 60)
        self.grace.setDecimals(1)
        self.grace.setSuffix(" s")
        self.grace.setValue(settings.grace_period)
        self.grace.setToolTip(
            "When a tool is cancelled or times out it is asked to stop, "
            "and killed if it is still running after this long."
        )
        form.addRow("Grace period", self.grace)
        self.start_at_login = QCheckBox("Start gibberish when I log in")
        self.start_at_login.setObjectName("settings-start-at-login")
        self.start_at_login.setChecked(settings.start_at_login)
        form.addRow("Login", self.start_at_login)
        layout.addWidget(general)

        model = QGroupBox("Local model (for asking in your own words)")
        model_form = QFormLayout(model)
        model_form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.model_enabled = QCheckBox("Route typed requests through a local model")
        self.model_enabled.setObjectName("settings-model-enabled")
        self.model_enabled.setChecked(settings.model.enabled)
        model_form.addRow("", self.model_enabled)
        self.endpoint = QLineEdit(settings.model.endpoint)
        self.endpoint.setObjectName("settings-model-endpoint")
        self.endpoint.setPlaceholderText("http://127.0.0.1:11434")
        model_form.addRow("Endpoint", self.endpoint)
        self.model_name = QLineEdit(settings.model.model)
        self.model_name.setObjectName("settings-model-name")
        model_form.addRow("Model", self.model_name)
        self.api = QComboBox()
        self.api.setObjectName("settings-model-api")
        for api in MODEL_APIS:
            self.api.addItem(API_LABELS.get(api, api), api)
        index = self.api.findData(settings.model.api)
        self.api.setCurrentIndex(max(index, 0))
        model_form.addRow("API", self.api)
        layout.addWidget(model)

        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setObjectName("settings-save")
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setObjectName("settings-cancel")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.setMinimumWidth(520)

    def choose_folder(self) -> str:
        """Ask for a folder (tests replace this method)."""
        return QFileDialog.getExistingDirectory(self, "Add a skills folder", str(Path.home()))

    def _add_clicked(self) -> None:
        folder = self.choose_folder()
        if folder:
            self.add_folder(folder)

    def add_folder(self, folder: str | Path) -> None:
        text = str(folder)
        existing = {self.folders.item(i).text() for i in range(self.folders.count())}
        if text and text not in existing:
            self.folders.addItem(text)

    def remove_selected(self) -> None:
        for item in self.folders.selectedItems():
            self.folders.takeItem(self.folders.row(item))

    def result_settings(self) -> Settings:
        folders = tuple(self.folders.item(i).text() for i in range(self.folders.count()))
        model = replace(
            self.original.model,
            enabled=self.model_enabled.isChecked(),
            endpoint=self.endpoint.text().strip() or self.original.model.endpoint,
            model=self.model_name.text().strip() or self.original.model.model,
            api=str(self.api.currentData()),
        )
        return replace(
            self.original,
            extra_skills_dirs=folders,
            auto_mode=self.auto_mode.isChecked(),
            grace_period=float(self.grace.value()),
            start_at_login=self.start_at_login.isChecked(),
            model=model,
        )
