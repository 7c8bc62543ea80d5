"""The microphone's level, drawn where the person sees that the tray listens.

While the tray listens, its icon's speech bubble holds four bars that light with the
loudness of what arrives (and the tooltip says it in words). A person sees at once
whether their voice gets through: bars that stay dark while they talk mean a muted or
wrong microphone, which otherwise shows only as "nothing recognized" afterwards.

The level is the source's own (``MicrophoneSource.level``, RMS of the block PortAudio
delivered last), read on the GUI thread by a timer: the audio thread only writes a float.
Bars rise at once and fall slowly, as a level meter's do, so a syllable stays visible
for a moment; silence brings them back to none.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import cache

from PySide6.QtCore import QObject, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QIcon, QPainter, QPixmap

from gibberish.ui import icons, theme

BARS = 4
QUIET_DB = -50.0
"""Loudness (dB of full scale) at and below which nothing is lit: a quiet room through a
laptop microphone sits near −60 dBFS, speech at arm's length −35 to −15 dBFS."""
LOUD_DB = -12.0
"""Loudness at which every bar is lit."""
POLL_MS = 50
FALL_PER_POLL = 0.06
"""How much of the scale the shown level drops per poll (a full scale in ~0.8 s)."""
ICON_SIZE = 64


def meter_fraction(rms: float) -> float:
    """``rms`` (0..1 of full scale) on the meter's dB scale, 0..1: 0 at ``QUIET_DB``."""
    if rms <= 0:
        return 0.0
    db = 20 * math.log10(rms)
    return min(1.0, max(0.0, (db - QUIET_DB) / (LOUD_DB - QUIET_DB)))


def bars_lit(fraction: float) -> int:
    """How many of the ``BARS`` a shown level lights: any sound above quiet lights one."""
    return min(BARS, math.ceil(fraction * BARS - 1e-9)) if fraction > 0 else 0


def describe(bars: int) -> str:
    """The level in words, for the tooltip and for people who cannot see the bars."""
    if bars == 0:
        return "quiet"
    return f"level {bars} of {BARS}"


class LevelMeter(QObject):
    """Polls a level while following one; ``changed`` carries the number of bars lit."""

    changed = Signal(int)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.shown = 0.0
        """The level shown, 0..1 on the meter's scale (falls slowly after a peak)."""
        self.bars = 0
        self.peak_bars = 0
        """The most bars lit since ``follow`` (what a test checks the speech reached)."""
        self._read: Callable[[], float] | None = None
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.poll)

    @property
    def following(self) -> bool:
        return self._read is not None

    def follow(self, read: Callable[[], float]) -> None:
        """Start showing ``read()`` (an RMS, 0..1), from quiet."""
        self._read = read
        self.shown = 0.0
        self.peak_bars = 0
        self._show(0)
        self._timer.start()

    def stop(self) -> None:
        self._timer.stop()
        self._read = None
        self.shown = 0.0
        self._show(0)

    def poll(self) -> None:
        if self._read is None:
            return
        try:
            heard = meter_fraction(float(self._read()))
        except (TypeError, ValueError):  # a source without a usable level: show quiet
            heard = 0.0
        self.shown = max(heard, self.shown - FALL_PER_POLL)
        self._show(bars_lit(self.shown))

    def _show(self, bars: int) -> None:
        self.peak_bars = max(self.peak_bars, bars)
        if bars != self.bars:
            self.bars = bars
            self.changed.emit(bars)


@cache
def listening_icon(bars: int) -> QIcon:
    """The tray's listening icon with ``bars`` of ``BARS`` lit in its speech bubble."""
    pixmap = icons.icon("tray-listening-meter").pixmap(ICON_SIZE, ICON_SIZE)
    if pixmap.isNull():  # the resource is missing: the plain listening icon
        return icons.tray_icon(icons.TrayState.LISTENING)
    pixmap = QPixmap(pixmap)
    scale = ICON_SIZE / 32
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    painter.setPen(Qt.PenStyle.NoPen)
    for i in range(BARS):
        # In the 32-unit space of the SVG: bars 2.6 wide, 3.5 apart, rising left to right,
        # their feet on one line inside the bubble, clear of the microphone badge.
        height = 3.0 * (i + 1)
        rect = QRectF(6 + 3.5 * i, 19.5 - height, 2.6, height)
        painter.setBrush(theme.ICON_INK if i < bars else theme.ICON_INK_DIM)
        painter.drawRoundedRect(
            QRectF(rect.x() * scale, rect.y() * scale, rect.width() * scale, rect.height() * scale),
            0.6 * scale,
            0.6 * scale,
        )
    painter.end()
    return QIcon(pixmap)
