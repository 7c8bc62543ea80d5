"""Every test draws with the fonts in tests/fonts/, whatever the machine has installed."""

from __future__ import annotations

from PySide6.QtGui import QFont, QFontDatabase, QFontInfo
from PySide6.QtWidgets import QApplication

from tests.fonts import FAMILY, MONO_FAMILY


def test_qt_sees_only_the_shipped_fonts(qapp: QApplication) -> None:
    shipped = {FAMILY, MONO_FAMILY}
    assert shipped <= set(QFontDatabase.families())
    # Qt lists fontconfig's aliases too (Sans Serif, Monospace...): each must be ours.
    drawn_with = {f: QFontInfo(QFont(f)).family() for f in QFontDatabase.families()}
    assert set(drawn_with.values()) == shipped, drawn_with
    assert QFontInfo(qapp.font()).family() == FAMILY
    fixed = QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)
    assert QFontInfo(fixed).family() == MONO_FAMILY
