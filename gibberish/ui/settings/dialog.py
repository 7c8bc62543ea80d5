"""The settings dialog: a form over ``gibberish.settings.Settings``.

It edits a copy and returns it (``result_settings``); the controller persists it with
``Engine.update_settings`` (``config.toml``, written atomically) and applies the side
effects — the autostart entry, a reload when the skills folders changed. The model
section edits every field of ``ModelSettings`` (``[model]`` in config.toml); the
controller reads them on each request, so ticking *enabled* switches the command bar to
the local model as soon as the dialog is saved. Its fields stay editable but dimmed
while routing is off, so an endpoint can be set up before it is switched on. The voice
section edits ``[voice]``, read on each request to listen.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from msgspec.structs import replace
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
    QSpinBox,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from gibberish import paths
from gibberish.assistant.settings import Api
from gibberish.paths import home_short
from gibberish.settings import (
    DEFAULT_MODEL_ENDPOINT,
    DEFAULT_MODEL_NAME,
    MODEL_APIS,
    ModelSettings,
    Settings,
    VoiceSettings,
)
from gibberish.ui import icons
from gibberish.ui.settings.shortcuts_tab import ShortcutsBox, ShortcutStatus
from gibberish.ui.settings.whisper_box import WhisperSetupBox
from gibberish.ui.widgets import (
    MARGIN,
    SPACING,
    fit_to_width,
    help_label,
    keyboard_buttons,
    mnemonic_buttons,
)
from gibberish.voice.settings import Activation, VoiceBackend
from gibberish.voice.whisper_install import Environment

TIMEOUT_RANGE = (1.0, 600.0)
BUDGET_RANGE = (64, 131072)
BACKEND_LABELS = {
    "pocketsphinx": "Built in: hears the tools' phrases",
    "whisper": "Whisper: hears anything said (set it up below)",
}
BACKEND_DETAILS = {
    "pocketsphinx": "PocketSphinx, on this computer: it listens for the phrases the tools list.",
    "whisper": "faster-whisper, on this computer: it writes down whatever was said.",
}
ACTIVATION_LABELS = {
    "push_to_talk": "Push to talk: stop when I stop talking",
    "toggle": "Toggle: listen until I press again",
}
API_LABELS = {
    "ollama-generate": "Ollama, with gibberish's own prompt (for FunctionGemma)",
    "ollama-chat": "Ollama, with the model's own chat format",
    "openai": "Another model server (llama.cpp, LM Studio, vLLM …)",
}
API_DETAILS = {
    "ollama-generate": "Sends gibberish's FunctionGemma prompt as raw text to Ollama's "
    "/api/generate.",
    "ollama-chat": "Sends the tools as schemas to Ollama's /api/chat, for models whose chat "
    "format knows tools.",
    "openai": "Any server that answers OpenAI's chat format at /v1/chat/completions.",
}


def _tab_page(*boxes: QGroupBox) -> QWidget:
    """``boxes`` at the top of a tab page, the rest of the page empty."""
    page = QWidget()
    column = QVBoxLayout(page)
    for box in boxes:
        column.addWidget(box)
    column.addStretch(1)
    return page


def _choice(
    name: str, labels: dict[str, str], current: str, details: dict[str, str] | None = None
) -> QComboBox:
    """A combo box of ``labels`` (value → what it shows), ``current`` selected (else the
    first); ``details`` (value → how it works) are each item's tooltip."""
    combo = QComboBox()
    combo.setObjectName(name)
    for value, label in labels.items():
        combo.addItem(label, value)
        if details and value in details:
            combo.setItemData(combo.count() - 1, details[value], Qt.ItemDataRole.ToolTipRole)
    combo.setCurrentIndex(max(combo.findData(current), 0))
    return combo


class SettingsDialog(QDialog):
    """Edit ``settings``; after ``exec()`` is Accepted, ``result_settings()`` is the new value."""

    def __init__(
        self,
        settings: Settings,
        parent: QWidget | None = None,
        *,
        shortcuts: ShortcutStatus | None = None,
        change_keys: Callable[[], str | None] | None = None,
        tools: Sequence[tuple[str, str, str]] = (),
    ) -> None:
        super().__init__(parent)
        self.setObjectName("settings-dialog")
        self.setWindowTitle("Settings — gibberish")
        self.setWindowIcon(icons.app_icon())
        self.original = settings

        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING + 2)
        # Three tabs keep the dialog within a small laptop screen.
        self.tabs = QTabWidget()
        self.tabs.setObjectName("settings-tabs")
        self.tabs.setAccessibleName("Settings sections")
        general = _tab_page(self._skills_box(settings), self._behaviour_box(settings))
        self.tabs.addTab(general, "&General")
        self.tabs.addTab(_tab_page(self._model_box(settings.model)), "Local &model")
        self.tabs.addTab(_tab_page(self._voice_box(settings.voice)), "&Voice")
        self.shortcuts = ShortcutsBox(
            shortcuts or ShortcutStatus(portal=False), settings.pinned_tools, change_keys, tools
        )
        self.tabs.addTab(_tab_page(self.shortcuts), "S&hortcuts")
        layout.addWidget(self.tabs)
        layout.addWidget(self._buttons())
        mnemonic_buttons(self)
        keyboard_buttons(self)
        self.setMinimumWidth(520)
        fit_to_width(self, 520)

    def _skills_box(self, settings: Settings) -> QGroupBox:
        box = QGroupBox("Skills folders")
        column = QVBoxLayout(box)
        column.addWidget(
            help_label(
                f"Your own skills live in {home_short(paths.user_skills_dir())}. "
                "Add other folders of skills here (each skill is a folder with a SKILL.md)."
            )
        )
        row = QHBoxLayout()
        self.folders = QListWidget()
        self.folders.setObjectName("settings-folders")
        self.folders.addItems(list(settings.extra_skills_dirs))
        self.folders.setMaximumHeight(110)
        row.addWidget(self.folders, 1)
        buttons = QVBoxLayout()
        add = QPushButton("&Add…")
        add.setObjectName("settings-add-folder")
        add.clicked.connect(self._add_clicked)
        remove = QPushButton("Re&move")
        remove.setObjectName("settings-remove-folder")
        remove.clicked.connect(self.remove_selected)
        buttons.addWidget(add)
        buttons.addWidget(remove)
        buttons.addStretch(1)
        row.addLayout(buttons)
        column.addLayout(row)
        return box

    def _behaviour_box(self, settings: Settings) -> QGroupBox:
        box = QGroupBox("Behaviour")
        form = QFormLayout(box)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.auto_mode = QCheckBox("Choose the mode from the focused app")
        self.auto_mode.setObjectName("settings-auto-mode")
        self.auto_mode.setChecked(settings.auto_mode)
        form.addRow("Mode", self.auto_mode)
        form.addRow(
            "",
            help_label(
                "The tools offered follow what you work in: a terminal or an editor shows "
                "the development tools, a notes app the notes tools."
            ),
        )
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
        form.addRow("Time to stop", self.grace)
        form.addRow(
            "",
            help_label(
                "When you stop a tool (or it runs too long), gibberish asks it to finish, "
                "and ends it if it is still running after this many seconds."
            ),
        )
        self.start_at_login = QCheckBox("Start gibberish when I log in")
        self.start_at_login.setObjectName("settings-start-at-login")
        self.start_at_login.setChecked(settings.start_at_login)
        form.addRow("Login", self.start_at_login)
        form.addRow("", help_label("It waits in the tray, ready for its key."))
        return box

    def _buttons(self) -> QDialogButtonBox:
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.button(QDialogButtonBox.StandardButton.Save).setObjectName("settings-save")
        buttons.button(QDialogButtonBox.StandardButton.Cancel).setObjectName("settings-cancel")
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        return buttons

    def _model_box(self, current: ModelSettings) -> QGroupBox:
        box = QGroupBox("Local model (for asking in your own words)")
        box.setObjectName("settings-model")
        column = QVBoxLayout(box)
        self.model_enabled = QCheckBox("Route typed requests through a local model")
        self.model_enabled.setObjectName("settings-model-enabled")
        self.model_enabled.setChecked(current.enabled)
        self.model_enabled.toggled.connect(self._model_toggled)
        column.addWidget(self.model_enabled)
        column.addWidget(
            help_label(
                "With Ollama: run “ollama pull functiongemma” once, then tick the box. "
                "What the model proposes still opens the form, and asks before it runs."
            )
        )
        form = QFormLayout()
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        column.addLayout(form)
        self._model_server_rows(form, current)
        self._model_limit_rows(form, current)
        self._model_fields = (
            self.endpoint,
            self.model_name,
            self.api,
            self.model_timeout,
            self.model_budget,
        )
        self._model_toggled(current.enabled)
        return box

    def _model_server_rows(self, form: QFormLayout, current: ModelSettings) -> None:
        """Where the model is: endpoint, model name, API."""
        self.endpoint = QLineEdit(current.endpoint)
        self.endpoint.setObjectName("settings-model-endpoint")
        self.endpoint.setPlaceholderText(DEFAULT_MODEL_ENDPOINT)
        self.endpoint.setToolTip(
            "The address of the model server on this computer or your network."
        )
        form.addRow("Server address", self.endpoint)
        self.model_name = QLineEdit(current.model)
        self.model_name.setObjectName("settings-model-name")
        self.model_name.setPlaceholderText(DEFAULT_MODEL_NAME)
        self.model_name.setToolTip("The name the server knows the model by.")
        form.addRow("Model name", self.model_name)
        labels = {api: API_LABELS.get(api, api) for api in MODEL_APIS}
        self.api = _choice("settings-model-api", labels, current.api, API_DETAILS)
        form.addRow("Server type", self.api)

    def _model_limit_rows(self, form: QFormLayout, current: ModelSettings) -> None:
        """How long to wait for it, and how much of the prompt tools may take."""
        self.model_timeout = QDoubleSpinBox()
        self.model_timeout.setObjectName("settings-model-timeout")
        self.model_timeout.setRange(*TIMEOUT_RANGE)
        self.model_timeout.setDecimals(1)
        self.model_timeout.setSuffix(" s")
        self.model_timeout.setValue(current.timeout)
        self.model_timeout.setToolTip(
            "How long to wait for the model server (connecting, and the whole answer). "
            "A model that is still loading can take a while the first time."
        )
        form.addRow("Wait up to", self.model_timeout)
        self.model_budget = QSpinBox()
        self.model_budget.setObjectName("settings-model-budget")
        self.model_budget.setRange(*BUDGET_RANGE)
        self.model_budget.setSingleStep(256)
        self.model_budget.setSuffix(" tokens")
        self.model_budget.setValue(current.budget)
        self.model_budget.setToolTip(
            "Roughly how much of the prompt (in tokens, pieces of words) the tools' "
            "descriptions may take. With many skills, the tools that fit the request best "
            "are sent first."
        )
        form.addRow("Room for tools", self.model_budget)

    def _voice_box(self, current: VoiceSettings) -> QGroupBox:
        box = QGroupBox("Voice")
        box.setObjectName("settings-voice")
        form = QFormLayout(box)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight)
        self.voice_backend = _choice(
            "settings-voice-backend", BACKEND_LABELS, current.backend, BACKEND_DETAILS
        )
        self.voice_backend.setAccessibleName("Recognizer")
        form.addRow("Recognizer", self.voice_backend)
        form.addRow("Whisper model", self._model_folder_row(current.model_folder))
        form.addRow("", self._whisper_setup_box(current.model_folder))
        form.addRow("Microphone", self._microphone_box(current.microphone))
        self.activation = _choice(
            "settings-voice-activation", ACTIVATION_LABELS, current.activation
        )
        self.activation.setAccessibleName("Listening")
        form.addRow("Listening", self.activation)
        self.spoken_feedback = QCheckBox("Say a short result aloud")
        self.spoken_feedback.setObjectName("settings-voice-feedback")
        self.spoken_feedback.setChecked(current.spoken_feedback)
        self.listen_in_meeting = QCheckBox("Listen in Meeting mode too")
        self.listen_in_meeting.setObjectName("settings-voice-meeting")
        self.listen_in_meeting.setChecked(current.listen_in_meeting)
        self.second_opinion = QCheckBox("Ask Whisper when unsure or a number is heard")
        self.second_opinion.setObjectName("settings-voice-second-opinion")
        self.second_opinion.setChecked(current.second_opinion)
        self.second_opinion.setToolTip(
            "With PocketSphinx as the recognizer and a Whisper model folder set: when the "
            "tools' phrases do not fit what was said, fit it poorly, or hold a number, "
            "Whisper listens to the same recording and weighs which phrase it was."
        )
        form.addRow("", self.second_opinion)
        form.addRow("", self.spoken_feedback)
        form.addRow("", self.listen_in_meeting)
        form.addRow(
            "",
            help_label(
                "Recognition runs on this computer. To talk from anywhere, hold the listen "
                "shortcut (see Shortcuts) or bind a desktop shortcut to “gibberish listen”."
            ),
        )
        return box

    def _whisper_setup_box(self, in_use: str) -> WhisperSetupBox:
        """Whether Whisper is set up, and a button that sets it up (size said first); a
        checked set-up switches the fields to it (``whisper_box``)."""
        self.whisper_box = WhisperSetupBox(
            self, environment=self.whisper_environment, in_use=in_use
        )
        self.whisper_setup = self.whisper_box.status
        self.whisper_box.ready.connect(self._whisper_ready)
        return self.whisper_box

    @staticmethod
    def whisper_environment() -> Environment:
        """The environment Whisper is set up in: gibberish's own (tests replace this)."""
        return Environment.current()

    def done(self, result: int) -> None:
        """Closing stops a Whisper download under way (an install step in progress
        finishes and checks on its own; the settings are not switched to it)."""
        if self.whisper_box.busy:
            self.whisper_box.stop()
        super().done(result)

    def _whisper_ready(self, folder: str) -> None:
        self.model_folder.setText(folder)
        self.second_opinion.setChecked(True)

    def _model_folder_row(self, folder: str) -> QWidget:
        row = QWidget()
        line = QHBoxLayout(row)
        line.setContentsMargins(0, 0, 0, 0)
        self.model_folder = QLineEdit(folder)
        self.model_folder.setObjectName("settings-voice-model-folder")
        self.model_folder.setAccessibleName("Whisper model folder")
        self.model_folder.setPlaceholderText("Filled in when Whisper is set up")
        self.model_folder.setToolTip(
            "A Whisper model folder for faster-whisper (CTranslate2): the one holding model.bin."
        )
        browse = QPushButton("&Browse…")
        browse.setObjectName("settings-voice-browse")
        browse.clicked.connect(self._browse_model_folder)
        line.addWidget(self.model_folder, 1)
        line.addWidget(browse)
        return row

    def _microphone_box(self, current: str) -> QComboBox:
        """The microphones PortAudio lists, the default first; editable, since a name or
        an index may be typed for a device that is unplugged now."""
        self.microphone = QComboBox()
        self.microphone.setObjectName("settings-voice-microphone")
        self.microphone.setAccessibleName("Microphone")
        self.microphone.setEditable(True)
        self.microphone.addItem("Default microphone", "")
        for name in self.list_microphones():
            self.microphone.addItem(name, name)
        if current and self.microphone.findData(current) < 0:
            self.microphone.addItem(current, current)
        self.microphone.setCurrentIndex(max(self.microphone.findData(current), 0))
        return self.microphone

    def list_microphones(self) -> list[str]:
        """Microphone names, or none when PortAudio cannot list them (tests replace this)."""
        from gibberish.voice import VoiceError
        from gibberish.voice.audio import input_devices

        try:
            return [device.name for device in input_devices()]
        except VoiceError:
            return []

    def microphone_setting(self) -> str:
        text = self.microphone.currentText().strip()
        index = self.microphone.findText(text)
        if index >= 0:
            return str(self.microphone.itemData(index))
        return text

    def choose_model_folder(self) -> str:
        """Ask for a Whisper model folder (tests replace this method)."""
        start = self.model_folder.text().strip() or str(Path.home())
        return QFileDialog.getExistingDirectory(self, "Choose a Whisper model folder", start)

    def _browse_model_folder(self) -> None:
        folder = self.choose_model_folder()
        if folder:
            self.model_folder.setText(folder)

    def _model_toggled(self, enabled: bool) -> None:
        for widget in self._model_fields:
            widget.setEnabled(enabled)

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
            api=Api(str(self.api.currentData())),
            timeout=float(self.model_timeout.value()),
            budget=int(self.model_budget.value()),
        )
        voice = replace(
            self.original.voice,
            backend=VoiceBackend(str(self.voice_backend.currentData())),
            model_folder=self.model_folder.text().strip(),
            microphone=self.microphone_setting(),
            activation=Activation(str(self.activation.currentData())),
            spoken_feedback=self.spoken_feedback.isChecked(),
            listen_in_meeting=self.listen_in_meeting.isChecked(),
            second_opinion=self.second_opinion.isChecked(),
        )
        return replace(
            self.original,
            extra_skills_dirs=folders,
            voice=voice,
            auto_mode=self.auto_mode.isChecked(),
            grace_period=float(self.grace.value()),
            start_at_login=self.start_at_login.isChecked(),
            model=model,
            pinned_tools=self.shortcuts.pinned_tools(),
        )
