"""Settings dialog, start at login (XDG autostart), notices and a corrupted config file."""

from __future__ import annotations

import configparser
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QComboBox,
    QLabel,
    QLineEdit,
    QWidget,
)

from gibberish import desktop, paths
from gibberish.engine.core import Engine, EngineOptions
from gibberish.settings import ModelSettings, VoiceSettings, load_settings
from gibberish.ui.controller import Controller
from gibberish.ui.settings.dialog import SettingsDialog
from tests.conftest import REPO_ROOT
from tests.ui.conftest import tool_block, write_skill


def test_dialog_edits_a_copy_of_the_settings(qtbot, engine: Engine, tmp_path: Path) -> None:
    dialog = SettingsDialog(engine.settings)
    qtbot.addWidget(dialog)
    dialog.add_folder(tmp_path / "more")
    dialog.add_folder(tmp_path / "more")  # no duplicates
    dialog.auto_mode.setChecked(False)
    dialog.grace.setValue(2.5)
    dialog.start_at_login.setChecked(True)
    dialog.model_enabled.setChecked(True)
    dialog.endpoint.setText("http://localhost:8080")
    dialog.model_name.setText("gemma-tools")
    dialog.api.setCurrentIndex(dialog.api.findData("openai"))
    dialog.model_timeout.setValue(12.5)
    dialog.model_budget.setValue(1024)
    new = dialog.result_settings()
    assert new.extra_skills_dirs == (str(tmp_path / "more"),)
    assert (new.auto_mode, new.grace_period, new.start_at_login) == (False, 2.5, True)
    assert (new.model.enabled, new.model.endpoint, new.model.model, new.model.api) == (
        True,
        "http://localhost:8080",
        "gemma-tools",
        "openai",
    )
    assert (new.model.timeout, new.model.budget) == (12.5, 1024)
    assert engine.settings.grace_period == 5.0  # untouched until saved
    dialog.folders.setCurrentRow(0)
    dialog.remove_selected()
    assert dialog.result_settings().extra_skills_dirs == ()


def test_saving_persists_and_applies_start_at_login(qtbot, controller: Controller) -> None:
    controller.open_settings()
    dialog = controller.dialogs.open["settings"]
    dialog.start_at_login.setChecked(True)
    dialog.grace.setValue(1.0)
    dialog.findChild(object, "settings-save").click()
    saved = load_settings().settings
    assert saved.start_at_login and saved.grace_period == 1.0
    entry = desktop.autostart_path()
    assert entry.is_file()
    assert entry.parent == Path(paths.config_dir()).parent / "autostart"
    parsed = configparser.RawConfigParser(strict=True)
    parsed.optionxform = str
    parsed.read_string(entry.read_text())
    assert parsed["Desktop Entry"]["X-GNOME-Autostart-enabled"] == "true"
    assert parsed["Desktop Entry"]["Exec"]

    controller.open_settings()
    dialog = controller.dialogs.open["settings"]
    dialog.start_at_login.setChecked(False)
    dialog.accept()
    assert not entry.exists()
    assert load_settings().settings.start_at_login is False


def test_model_settings_are_saved_to_the_model_table(qtbot, controller: Controller) -> None:
    controller.open_settings()
    dialog = controller.dialogs.open["settings"]
    assert [dialog.api.itemData(i) for i in range(dialog.api.count())] == [
        "ollama-generate",
        "ollama-chat",
        "openai",
    ]
    dialog.model_enabled.setChecked(True)
    dialog.endpoint.setText("http://127.0.0.1:8080/v1")
    dialog.model_name.setText("qwen-tools")
    dialog.api.setCurrentIndex(dialog.api.findData("openai"))
    dialog.model_timeout.setValue(45)
    dialog.model_budget.setValue(4096)
    dialog.findChild(object, "settings-save").click()
    model = load_settings().settings.model
    assert model == ModelSettings(
        enabled=True,
        endpoint="http://127.0.0.1:8080/v1",
        model="qwen-tools",
        api="openai",
        timeout=45.0,
        budget=4096,
    )
    assert "[model]" in paths.config_file().read_text()
    routed = controller.engine.feed.model_settings()
    assert (routed.endpoint, routed.model, routed.api.value) == (
        "http://127.0.0.1:8080/v1",
        "qwen-tools",
        "openai",
    )
    assert (routed.timeout, routed.budget) == (45.0, 4096)


def test_voice_settings_are_saved_to_the_voice_table(
    qtbot, controller: Controller, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(
        SettingsDialog, "list_microphones", lambda _self: ["USB Headset", "Built-in"]
    )
    monkeypatch.setattr(SettingsDialog, "choose_model_folder", lambda _self: str(tmp_path))
    controller.open_settings()
    dialog = controller.dialogs.open["settings"]
    microphones = [dialog.microphone.itemText(i) for i in range(dialog.microphone.count())]
    assert microphones == ["Default microphone", "USB Headset", "Built-in"]
    assert dialog.microphone_setting() == ""
    dialog.voice_backend.setCurrentIndex(dialog.voice_backend.findData("whisper"))
    dialog.findChild(object, "settings-voice-browse").click()
    dialog.microphone.setCurrentIndex(dialog.microphone.findData("USB Headset"))
    dialog.activation.setCurrentIndex(dialog.activation.findData("toggle"))
    dialog.spoken_feedback.setChecked(True)
    dialog.listen_in_meeting.setChecked(True)
    assert dialog.second_opinion.isChecked()
    dialog.second_opinion.setChecked(False)
    dialog.findChild(object, "settings-save").click()
    assert load_settings().settings.voice == VoiceSettings(
        backend="whisper",
        microphone="USB Headset",
        model_folder=str(tmp_path),
        activation="toggle",
        spoken_feedback=True,
        listen_in_meeting=True,
        second_opinion=False,
    )
    assert "[voice]" in paths.config_file().read_text()
    assert controller.engine.settings.voice.backend == "whisper"


def test_a_microphone_can_be_typed_and_an_unplugged_one_is_kept(
    qtbot, engine: Engine, monkeypatch
) -> None:
    """PortAudio missing or the device unplugged: the saved name stays selectable, and
    an index can be typed."""
    monkeypatch.setattr(SettingsDialog, "list_microphones", lambda _self: [])
    saved = engine.settings.__class__(voice=VoiceSettings(microphone="Old Headset"))
    dialog = SettingsDialog(saved)
    qtbot.addWidget(dialog)
    assert dialog.microphone.currentText() == "Old Headset"
    assert dialog.result_settings().voice.microphone == "Old Headset"
    dialog.microphone.setEditText("2")
    assert dialog.result_settings().voice.microphone == "2"
    dialog.microphone.setCurrentIndex(0)
    assert dialog.result_settings().voice.microphone == ""


def test_adding_a_skills_folder_reloads_the_menu(
    qtbot, controller: Controller, tmp_path: Path
) -> None:
    more = tmp_path / "more"
    write_skill(more, "extra", [tool_block("ping", "Say pong.", "echo pong")])
    controller.open_settings()
    dialog = controller.dialogs.open["settings"]
    dialog.add_folder(more)
    dialog.accept()
    controller.menu.aboutToShow.emit()
    assert "skill:extra" in [a.objectName() for a in controller.menu.actions()]
    assert str(more) in controller.watcher.watched()


def test_corrupted_config_uses_defaults_with_a_notice(qtbot, skills_dir: Path) -> None:
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text("auto_mode = [broken\n")
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills_dir,), include_user=False, include_bundled=False)
    )
    ctl = Controller(engine, tray_available=False)
    ctl.start()
    try:
        assert "notices" not in ctl.dialogs.open  # the status line, never a modal box
        status = ctl.surface.launcher.status
        assert "not valid TOML" in status.text()
        kept = list(config.parent.glob("config.toml.broken-*"))
        assert len(kept) == 1 and kept[0].read_text() == "auto_mode = [broken\n"
        assert engine.settings.auto_mode is True  # defaults
        status.setText("")
        ctl.show_notices()
        assert status.text() == ""  # shown once
    finally:
        ctl.shutdown()


def test_notices_go_to_the_tray_in_tray_mode(qtbot, controller: Controller, monkeypatch) -> None:
    messages = []
    monkeypatch.setattr(
        controller.surface.tray, "notify", lambda t, b, failed=False: messages.append(b)
    )
    monkeypatch.setattr(controller.engine, "notices", lambda: ["Your approvals file was damaged."])
    controller.show_notices()
    assert messages == ["Your approvals file was damaged."]


# ---------------------------------------------------------------- desktop.py (no Qt)


def test_exec_quoting_follows_the_desktop_entry_spec() -> None:
    q = desktop.quote_exec_argument
    assert q("/usr/bin/gibberish") == "/usr/bin/gibberish"
    assert q("/home/me/my venv/bin/gibberish") == '"/home/me/my venv/bin/gibberish"'
    assert q('say "hi"') == '"say \\\\"hi\\\\""'
    assert q("cost$5") == '"cost\\\\$5"'
    assert q("100%") == "100%%"
    assert q("") == '""'
    assert desktop.exec_line(["/a b/python", "-m", "gibberish"]) == '"/a b/python" -m gibberish'


def test_autostart_entry_round_trip(monkeypatch, tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert not desktop.is_autostart_enabled()
    path = desktop.enable_autostart(["/opt/gibberish/bin/gibberish"])
    assert path == tmp_path / "cfg" / "autostart" / "gibberish.desktop"
    text = path.read_text()
    assert "Exec=/opt/gibberish/bin/gibberish\n" in text
    assert "NoDisplay=true" in text
    assert desktop.is_autostart_enabled()
    assert desktop.disable_autostart() is True
    assert desktop.disable_autostart() is False


def test_launch_command_prefers_the_venv_script() -> None:
    command = desktop.launch_command()
    assert command[0].endswith("gibberish") or command[1:] == ["-m", "gibberish"]


def test_packaged_entries_match_what_the_app_writes() -> None:
    def keys(text: str) -> dict[str, str]:
        parser = configparser.RawConfigParser(strict=True)
        parser.optionxform = str
        parser.read_string(text)
        return dict(parser["Desktop Entry"])

    template = keys((REPO_ROOT / "packaging" / "gibberish-autostart.desktop").read_text())
    written = keys(desktop.desktop_entry(["gibberish"], autostart=True, icon="gibberish"))
    assert set(template) == set(written)
    for key in set(template) - {"Exec", "Icon"}:
        assert template[key] == written[key], key
    app = keys((REPO_ROOT / "packaging" / "gibberish.desktop").read_text())
    assert app["Exec"] == "gibberish" and app["Icon"] == "gibberish"
    assert (REPO_ROOT / "resources" / "gibberish.svg").is_file()


def test_the_voice_settings_offer_to_set_whisper_up(
    qtbot, controller: Controller, monkeypatch
) -> None:
    from gibberish.voice import whisper_setup

    missing = whisper_setup.WhisperSetup(False, "", "pipx inject gibberish faster-whisper>=1.0")
    monkeypatch.setattr(whisper_setup, "whisper_setup", lambda: missing)
    controller.open_settings()
    dialog = controller.dialogs.open["settings"]
    label = dialog.findChild(object, "settings-voice-whisper-setup")
    assert "not set up" in label.text() and "100 MB" in label.text()
    start = dialog.findChild(object, "settings-voice-whisper-start")
    assert start.text() == "Set up &Whisper…" and not start.isHidden()


def test_whisper_installed_by_hand_is_offered_to_be_checked_and_used(
    qtbot, controller: Controller, monkeypatch
) -> None:
    from gibberish.voice import whisper_setup

    installed = whisper_setup.WhisperSetup(True, "/models/tiny.en", "")
    monkeypatch.setattr(whisper_setup, "whisper_setup", lambda: installed)
    controller.open_settings()
    dialog = controller.dialogs.open["settings"]
    start = dialog.findChild(object, "settings-voice-whisper-start")
    assert start.text() == "Check it and &use it…" and not start.isHidden()
    label = dialog.findChild(object, "settings-voice-whisper-setup")
    assert label.text() == installed.sentence()


JARGON = ("/api", "/v1", "CTranslate2", "model.bin", "budget", "Endpoint", "API", "raw prompt")
"""How the model and voice are wired, not what they are for: tooltips only."""


def shown_text(page: QWidget) -> list[str]:
    """What a person reads on a tab page without hovering: row labels, buttons, check
    boxes, each choice of a list, placeholders, suffixes."""
    found: list[str] = []
    for widget in page.findChildren(QWidget):
        if isinstance(widget, QLabel | QAbstractButton):
            found.append(widget.text())
        elif isinstance(widget, QComboBox):
            found += [widget.itemText(i) for i in range(widget.count())]
        elif isinstance(widget, QLineEdit):
            found += [widget.text(), widget.placeholderText()]
        elif isinstance(widget, QAbstractSpinBox):
            found += [widget.property("suffix") or "", widget.property("prefix") or ""]
    return [t for t in found if t]


def test_the_model_and_voice_tabs_say_what_each_setting_is_for(qtbot, engine: Engine) -> None:
    """Plain words in the Local model and Voice tabs; the wiring (an endpoint path, the
    model format) stays one hover away."""
    dialog = SettingsDialog(engine.settings)
    qtbot.addWidget(dialog)
    pages = {dialog.tabs.tabText(i): dialog.tabs.widget(i) for i in range(dialog.tabs.count())}
    model, voice = shown_text(pages["Local &model"]), shown_text(pages["&Voice"])
    assert "Server address" in model and "Room for tools" in model
    assert "Whisper: hears anything said (set it up below)" in voice
    bad = [f"{text!r} says {word!r}" for text in model + voice for word in JARGON if word in text]
    assert bad == []
    generate = dialog.api.findData("ollama-generate")
    assert "/api/generate" in dialog.api.itemData(generate, Qt.ItemDataRole.ToolTipRole)
    assert "model.bin" in dialog.model_folder.toolTip()
    assert "tokens" in dialog.model_budget.toolTip()
