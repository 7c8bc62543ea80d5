"""Every colour the tray draws, taken from the palette of the widget it is drawn on.

No widget names a colour of its own: a fixed light pink banner glares in a dark theme and a
fixed dark red is unreadable on one. What a colour *means* (a warning, an error, a
success) is a hue; how light or dark it is comes from the palette: a tone is the hue mixed
into the palette's ``Base`` (a faint tint for backgrounds) or into its ``Text`` (for
text and borders), so it follows a light, a dark or a high-contrast theme alike.

The one place the hues live is ``HUES``; ``tests/ui/test_theme.py`` fails on a colour
literal anywhere else under ``gibberish/ui``.
"""

from __future__ import annotations

from PySide6.QtGui import QColor, QPalette

HUES: dict[str, QColor] = {
    "warning": QColor(0xD9, 0x8E, 0x04),
    "error": QColor(0xDC, 0x26, 0x26),
    "success": QColor(0x16, 0xA3, 0x4A),
    "info": QColor(0x25, 0x63, 0xEB),
}
"""The meaning of a colour. Only ever used mixed with palette colours (``tone``)."""

ICON_INK = QColor(0xFF, 0xFF, 0xFF)
"""What is drawn on an icon's own fixed colours (the listening bubble's lit level bars):
the icons' colours are the icons', not the palette's, so their ink is fixed too."""
ICON_INK_DIM = QColor(0xFF, 0xFF, 0xFF, 80)
"""The same ink, unlit (a level bar with no sound behind it)."""


def mix(a: QColor, b: QColor, amount: float) -> QColor:
    """``a`` moved ``amount`` (0…1) of the way towards ``b``."""
    return QColor(
        round(a.red() + (b.red() - a.red()) * amount),
        round(a.green() + (b.green() - a.green()) * amount),
        round(a.blue() + (b.blue() - a.blue()) * amount),
    )


def is_dark(palette: QPalette) -> bool:
    return palette.color(QPalette.ColorRole.Window).lightnessF() < 0.5


def hue(kind: str) -> QColor:
    return QColor(HUES.get(kind, HUES["info"]))


def background(palette: QPalette, kind: str) -> QColor:
    """A faint tint of ``kind`` over the palette's base: a banner's background."""
    return mix(
        palette.color(QPalette.ColorRole.Base), hue(kind), 0.22 if is_dark(palette) else 0.12
    )


def border(palette: QPalette, kind: str) -> QColor:
    return mix(palette.color(QPalette.ColorRole.Mid), hue(kind), 0.6)


def foreground(palette: QPalette, kind: str) -> QColor:
    """Text in ``kind``'s colour that stays readable on the palette's window and base."""
    text = palette.color(QPalette.ColorRole.Text)
    return mix(hue(kind), text, 0.25 if is_dark(palette) else 0.35)


def pill(palette: QPalette, kind: str) -> tuple[QColor, QColor]:
    """(background, text) of a status pill: the hue itself, text in the palette's
    contrasting colour (``HighlightedText`` on a light theme, ``Text`` on a dark one)."""
    fill = hue(kind) if kind != "neutral" else palette.color(QPalette.ColorRole.Mid)
    if is_dark(palette):
        fill = mix(fill, palette.color(QPalette.ColorRole.Base), 0.25)
    ink = QColor(palette.color(QPalette.ColorRole.Base))
    if ink.lightnessF() < 0.5:
        ink = palette.color(QPalette.ColorRole.Text)
    return fill, ink


def css(colour: QColor) -> str:
    return colour.name()


def luminance(colour: QColor) -> float:
    """Relative luminance (WCAG 2), for contrast checks."""

    def channel(value: float) -> float:
        return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

    return (
        0.2126 * channel(colour.redF())
        + 0.7152 * channel(colour.greenF())
        + 0.0722 * channel(colour.blueF())
    )


def contrast(a: QColor, b: QColor) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)
