"""The listening panel: shown at the top of the screen while the tray listens, with the
level, then the words heard and the tool they propose; gone when the form opens. Esc, or
the listen key pressed again, cancels: nothing is proposed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from msgspec.structs import replace
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.listen.level_meter import describe
from gibberish.ui.listen.panel import ListeningPanel
from tests.conftest import REPO_ROOT
from tests.ui.conftest import FakeForms, make_controller
from tests.ui.test_level_meter import FIVE_COMMITS, HeldAtSpeech


class StoppableAtSpeech(HeldAtSpeech):
    """Held at its first loud frame, as a microphone waits for more; ``stop`` lets it end,
    as stopping a microphone does."""

    def stop(self) -> None:
        self.release.set()


class FormsSeeingThePanel(FakeForms):
    """Records, as each form opens, whether the listening panel was still on screen and
    the last words it showed (the heard words and the proposal stay in its labels): read
    there, they do not depend on which queued call a busy machine runs first."""

    def __init__(self, panel: Any) -> None:
        super().__init__(cancel=True)
        self.panel = panel
        self.panel_shown: list[bool] = []
        self.panel_said: list[tuple[str, str]] = []

    def ask(self, *args: Any, **kwargs: Any) -> Any:
        panel = self.panel()
        self.panel_shown.append(panel is not None and panel.isVisible())
        if panel is not None:
            self.panel_said.append((panel.text.text(), panel.detail.text()))
        return super().ask(*args, **kwargs)


def _controller(source: Any, forms: FakeForms, *, tray: bool = True) -> Any:
    engine = Engine(EngineOptions(include_user=False))
    return make_controller(engine, tray=tray, forms=forms, audio=lambda: source)


def test_the_panel_shows_the_level_then_the_words_then_closes_for_the_form(qtbot) -> None:
    source = StoppableAtSpeech(FIVE_COMMITS)
    holder: list[Any] = []
    forms = FormsSeeingThePanel(lambda: holder[0].voice.panel if holder else None)
    ctl = _controller(source, forms)
    holder.append(ctl)
    ctl.start()
    try:
        ctl.listen()
        panel = ctl.voice.panel
        assert panel is not None and panel.isVisible()
        assert panel.text.text() == "Listening… (quiet)"
        qtbot.waitUntil(lambda: panel.bars > 0, timeout=60_000)  # the speech lit the level
        assert panel.level.value() == panel.bars and panel.level.isVisible()
        assert panel.text.text() == f"Listening… ({describe(panel.bars)})"
        source.release.set()
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("git.git_log", {"count": 5})]
        assert forms.panel_said == [("Heard “show the last five commits”", "Opening Git log…")]
        assert forms.panel_shown == [False]  # the form took its place
        assert not panel.isVisible()
    finally:
        source.release.set()
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_the_panel_stands_at_the_top_centre_on_top_of_other_windows(qtbot) -> None:
    panel = ListeningPanel(lambda: None)
    qtbot.addWidget(panel)
    panel.show_state("listening")
    flags = panel.windowFlags()
    assert flags & Qt.WindowType.WindowStaysOnTopHint
    assert flags & Qt.WindowType.FramelessWindowHint
    assert flags & Qt.WindowType.Tool
    area = panel.screen().availableGeometry()
    geometry = panel.frameGeometry()
    assert area.contains(geometry)
    assert abs(geometry.center().x() - area.center().x()) <= 1
    assert geometry.top() - area.top() < area.height() // 8


def test_esc_cancels_and_nothing_is_proposed(qtbot) -> None:
    source = StoppableAtSpeech(FIVE_COMMITS)
    forms = FakeForms(cancel=True)
    ctl = _controller(source, forms)
    ctl.start()
    try:
        ctl.listen()
        panel = ctl.voice.panel
        qtbot.waitUntil(lambda: panel.bars > 0, timeout=60_000)
        QTest.keyClick(panel, Qt.Key.Key_Escape)
        assert not panel.isVisible()
        qtbot.waitUntil(lambda: not ctl.voice.listening.busy, timeout=60_000)
        qtbot.wait(200)  # what the recognizer heard would arrive now: it is dropped
        assert forms.calls == []
        assert ctl.text.command_bar is None or not ctl.text.command_bar.isVisible()
        assert not panel.isVisible()
    finally:
        source.release.set()
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_the_listen_key_again_cancels(qtbot) -> None:
    source = StoppableAtSpeech(FIVE_COMMITS)
    forms = FakeForms(cancel=True)
    ctl = _controller(source, forms)
    ctl.start()
    try:
        ctl.listen(asked=False)
        panel = ctl.voice.panel
        qtbot.waitUntil(lambda: panel.bars > 0, timeout=60_000)
        ctl.listen(asked=False)  # the key pressed a second time
        assert not panel.isVisible()
        qtbot.waitUntil(lambda: not ctl.voice.listening.busy, timeout=60_000)
        qtbot.wait(200)
        assert forms.calls == []
    finally:
        source.release.set()
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_in_toggle_mode_the_key_again_ends_the_recording_instead(qtbot) -> None:
    """Toggle mode's second press means "I have finished speaking": it proposes."""
    source = StoppableAtSpeech(FIVE_COMMITS)
    forms = FakeForms(cancel=True)
    ctl = _controller(source, forms)
    settings = ctl.engine.settings
    voice = replace(settings.voice, activation="toggle")
    ctl.engine.update_settings(replace(settings, voice=voice))
    ctl.start()
    try:
        ctl.listen(asked=False)
        qtbot.waitUntil(lambda: ctl.voice.panel.bars > 0, timeout=60_000)
        ctl.listen(asked=False)
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("git.git_log", {"count": 5})]
    finally:
        source.release.set()
        ctl.voice.listening.wait()
        ctl.shutdown()


def test_nothing_recognized_stays_a_moment_then_goes(qtbot, monkeypatch) -> None:
    from gibberish.ui.listen import panel as panel_module

    monkeypatch.setattr(panel_module, "CLOSE_AFTER_MS", 50)
    panel = ListeningPanel(lambda: None)
    qtbot.addWidget(panel)
    panel.show_state("listening")
    panel.show_heard("call my mother", "No tool matches that.", close_soon=True)
    assert panel.isVisible() and panel.text.text() == "Heard “call my mother”"
    assert panel.detail.text() == "No tool matches that."
    qtbot.waitUntil(lambda: not panel.isVisible(), timeout=5_000)


def test_without_a_tray_the_launcher_row_is_used_not_the_panel(qtbot) -> None:
    source = StoppableAtSpeech(FIVE_COMMITS)
    forms = FakeForms(cancel=True)
    ctl = _controller(source, forms, tray=False)
    ctl.start()
    try:
        ctl.listen()
        assert not ctl.surface.launcher.listening.isHidden()
        assert ctl.voice.panel is None
        source.release.set()
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert ctl.voice.panel is None
    finally:
        source.release.set()
        ctl.voice.listening.wait()
        ctl.shutdown()


FITS = r"""
from PySide6.QtWidgets import QApplication
app = QApplication([])
from gibberish.ui.listen.panel import ListeningPanel
area = app.primaryScreen().availableGeometry()
panel = ListeningPanel(lambda: None)
bad = []
panel.show_state("listening")
panel.show_level(3)
app.processEvents()
if not area.contains(panel.frameGeometry()):
    bad.append(f"listening: {panel.frameGeometry()} outside {area}")
panel.show_state("thinking")
panel.show_heard("show the last five commits in the repository I am working in today", "Git log",
                 close_soon=False)
app.processEvents()
if not area.contains(panel.frameGeometry()):
    bad.append(f"heard: {panel.frameGeometry()} outside {area}")
for label in (panel.text, panel.detail):
    if label.isVisible() and label.sizeHint().height() > label.height() + 1:
        bad.append(f"{label.text()!r} cut: {label.sizeHint()} in {label.size()}")
print("\n".join(bad) or "fits")
"""


def test_the_panel_fits_the_screen_at_2x(tmp_path: Path) -> None:
    config = tmp_path / "screen.json"
    screen = {"name": "s", "x": 0, "y": 0, "width": 1366, "height": 768}
    config.write_text(json.dumps({"screens": [screen]}))
    env = dict(
        os.environ,
        QT_QPA_PLATFORM=f"offscreen:configfile={config}",
        QT_SCALE_FACTOR="2",
        PYTHONPATH=str(REPO_ROOT),
    )
    result = subprocess.run(
        [sys.executable, "-c", FITS], env=env, capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]
    assert result.stdout.strip().splitlines()[-1] == "fits", result.stdout
