"""The level meter in the tray's listening icon: driven by real audio, quiet on silence.

The live device test (``test_listen_live.py``) drives it from a microphone; here the
same meter follows a recording read through the tray's *Listen*, and the scale, the
fall-back to quiet and the drawn icon are checked on their own.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
from PySide6.QtGui import QImage

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.icons import TrayState
from gibberish.ui.listen.level_meter import (
    BARS,
    ICON_SIZE,
    LOUD_DB,
    QUIET_DB,
    LevelMeter,
    bars_lit,
    describe,
    listening_icon,
    meter_fraction,
)
from gibberish.ui.tray import TOOLTIP
from gibberish.voice import WavSource
from gibberish.voice.audio import loudness
from tests.ui.conftest import FakeForms, make_controller
from tests.voice.corpus import IN_GRAMMAR, fixture

FIVE_COMMITS = fixture(IN_GRAMMAR[2], "slt")


def _rms(db: float) -> float:
    return 10 ** (db / 20)


def test_the_scale_runs_from_quiet_to_loud() -> None:
    assert meter_fraction(0.0) == 0.0
    assert meter_fraction(_rms(QUIET_DB - 10)) == 0.0
    assert meter_fraction(_rms(LOUD_DB + 3)) == 1.0
    middle = meter_fraction(_rms((QUIET_DB + LOUD_DB) / 2))
    assert 0.4 < middle < 0.6
    assert [bars_lit(f) for f in (0.0, 0.01, 0.26, 0.5, 0.99, 1.0)] == [0, 1, 2, 2, 4, 4]
    assert describe(0) == "quiet"
    assert describe(3) == f"level 3 of {BARS}"


def test_speech_in_a_real_recording_lights_bars_and_its_silence_none() -> None:
    pcm = WavSource(FIVE_COMMITS)._data
    frame = 960
    levels = [loudness(pcm[i : i + frame]) for i in range(0, len(pcm) - frame, frame)]
    lit = [bars_lit(meter_fraction(level)) for level in levels]
    assert lit[0] == 0  # the recording's leading silence
    assert max(lit) >= 3  # a clear voice at a normal level
    assert lit[-1] == 0


def test_the_meter_rises_at_once_and_falls_back_to_quiet(qtbot) -> None:
    level = [_rms(LOUD_DB)]
    meter = LevelMeter()
    seen: list[int] = []
    meter.changed.connect(seen.append)
    meter.follow(lambda: level[0])
    meter.poll()
    assert meter.bars == BARS
    level[0] = 0.0  # silence
    meter.poll()
    assert 0 < meter.bars <= BARS  # falls slowly: a syllable stays visible a moment
    polls = 0
    while meter.bars:
        meter.poll()
        polls += 1
        assert polls < 40, "the meter never fell back to quiet"
    assert seen[0] == BARS and seen[-1] == 0
    assert meter.peak_bars == BARS
    meter.stop()
    assert not meter.following


def test_the_timer_drives_the_meter(qtbot) -> None:
    level = [_rms(-20)]
    meter = LevelMeter()
    meter.follow(lambda: level[0])
    qtbot.waitUntil(lambda: meter.bars >= 3, timeout=2000)
    level[0] = 0.0
    qtbot.waitUntil(lambda: meter.bars == 0, timeout=5000)
    meter.stop()


def test_a_source_without_a_usable_level_shows_quiet(qtbot) -> None:
    meter = LevelMeter()
    meter.follow(lambda: "loud")  # type: ignore[arg-type,return-value]
    meter.poll()
    assert meter.bars == 0
    meter.stop()


def _lit_pixels(bars: int) -> int:
    """White pixels where the bars are drawn (the bubble's left half, above the badge)."""
    image = listening_icon(bars).pixmap(ICON_SIZE, ICON_SIZE).toImage()
    image = image.convertToFormat(QImage.Format.Format_ARGB32)
    count = 0
    for x in range(int(ICON_SIZE * 5 / 32), int(ICON_SIZE * 20 / 32)):
        for y in range(int(ICON_SIZE * 7 / 32), int(ICON_SIZE * 20 / 32)):
            color = image.pixelColor(x, y)
            count += color.red() > 230 and color.green() > 230 and color.blue() > 230
    return count


def test_the_icon_draws_more_white_for_more_bars(qtbot) -> None:
    lit = [_lit_pixels(b) for b in range(BARS + 1)]
    assert lit == sorted(lit) and lit[0] < lit[1] < lit[-1]


@pytest.mark.parametrize("bars", [0, 2, BARS])
def test_the_tray_shows_the_level_while_listening_only(qtbot, bars: int) -> None:
    engine = Engine(EngineOptions(include_user=False))
    ctl = make_controller(engine, forms=FakeForms(cancel=True))
    ctl.start()
    tray = ctl.surface.tray
    tray.set_level(bars)  # not listening: nothing changes
    assert tray.icon.toolTip() == TOOLTIP
    tray.set_state(TrayState.LISTENING, "gibberish — listening…")
    tray.set_level(bars)
    assert tray.icon.toolTip() == f"gibberish — listening… ({describe(bars)})"
    assert tray.icon.icon().cacheKey() == listening_icon(bars).cacheKey()
    ctl.shutdown()


def test_listen_from_a_recording_moves_the_meter_and_ends_quiet(qtbot) -> None:
    """The tray's *Listen* reading a WAV file (``Seams.audio``): the meter follows the
    frames read, and once the recording ends it is quiet again."""
    forms = FakeForms(cancel=True)
    engine = Engine(EngineOptions(include_user=False))
    ctl = make_controller(engine, forms=forms, audio=lambda: WavSource(FIVE_COMMITS))
    ctl.start()
    meter = ctl.voice.meter
    try:
        ctl.listen()
        assert ctl.surface.tray.state == TrayState.LISTENING
        assert meter.following
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("git.git_log", {"count": 5})]
        assert not meter.following and meter.bars == 0
    finally:
        ctl.voice.listening.wait()
        ctl.shutdown()


class HeldAtSpeech(WavSource):
    """A recording that stops being read at its first frame loud enough to light a bar,
    until ``release`` is set — as a microphone waits for the next sound. A test then sees
    the meter show speech however busy the machine is: a file read at full speed could
    otherwise end before the meter's timer first looks at it."""

    def __init__(self, path) -> None:
        super().__init__(path)
        self.release = threading.Event()

    def frames(self, size: int) -> Iterator[bytes]:
        held = False
        for frame in super().frames(size):
            yield frame
            if not held and bars_lit(meter_fraction(loudness(frame))) > 0:
                held = True
                self.release.wait(timeout=120)


def test_without_a_tray_the_launcher_shows_listening_and_the_level(qtbot) -> None:
    """No tray icon to turn into a microphone: the launcher window's listening row shows
    the same icon and the level in words while it listens, "Recognizing…" after, and
    goes away when the answer is in."""
    forms = FakeForms(cancel=True)
    engine = Engine(EngineOptions(include_user=False))
    source = HeldAtSpeech(FIVE_COMMITS)
    ctl = make_controller(engine, tray=False, forms=forms, audio=lambda: source)
    ctl.start()
    row = ctl.surface.launcher.listening
    try:
        assert row.isHidden()
        ctl.listen()
        assert not row.isHidden() and row.text.text() == "Listening… (quiet)"
        assert row.icon.pixmap().cacheKey() != 0
        qtbot.waitUntil(lambda: row.bars > 0, timeout=60_000)  # the speech lit bars in the row
        assert row.text.text() == f"Listening… ({describe(row.bars)})"
        source.release.set()
        qtbot.waitUntil(lambda: bool(forms.calls), timeout=60_000)
        assert forms.calls == [("git.git_log", {"count": 5})]
        qtbot.waitUntil(row.isHidden, timeout=60_000)  # the answer is in: the row goes
    finally:
        source.release.set()
        ctl.voice.listening.wait()
        ctl.shutdown()


@pytest.mark.parametrize(
    ("state", "bars", "text"),
    [("listening", 3, "Listening… (level 3 of 4)"), ("thinking", 0, "Recognizing…")],
)
def test_the_listening_row_says_the_state_in_words(qtbot, state: str, bars: int, text: str) -> None:
    from gibberish.ui.listen.listening_row import ListeningRow

    row = ListeningRow()
    qtbot.addWidget(row)
    row.show_level(2)  # not listening: nothing shown
    assert row.isHidden()
    row.show_state(state)
    row.show_level(bars)
    assert not row.isHidden() and row.text.text() == text and row.accessibleName() == text
    row.show_state("idle")
    assert row.isHidden()
