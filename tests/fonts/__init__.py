"""The fonts every test and every screenshot renders with, whatever the machine has.

A desktop's fonts differ from machine to machine (another ``Sans Serif``, extra Noto or
Liberation families, other hinting rules), and a dialog's size follows its font. So the
suite never asks the machine: :func:`fontconfig_file` writes a fontconfig file that
knows only the DejaVu fonts in this folder (see LICENSE), maps ``sans-serif``,
``serif`` and ``monospace`` to them and fixes anti-aliasing and hinting; pointing
``FONTCONFIG_FILE`` at it before Qt starts hides every system font. :func:`use_in` then
loads the same files into a ``QApplication`` with ``QFontDatabase.addApplicationFont``
and makes DejaVu Sans its font. docs/adr/0026-tests-on-any-machine.md says why.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

FONTS_DIR = Path(__file__).resolve().parent
FAMILY = "DejaVu Sans"
MONO_FAMILY = "DejaVu Sans Mono"
POINT_SIZE = 9
"""What Qt gives a desktop without a theme of its own (offscreen, a bare X11 session)."""

_ALIASES = {"sans-serif": FAMILY, "Sans Serif": FAMILY, "serif": FAMILY}
_ALIASES |= {"monospace": MONO_FAMILY, "Monospace": MONO_FAMILY}


def font_files() -> list[Path]:
    """The shipped font files, in a stable order."""
    return sorted(FONTS_DIR.glob("*.ttf"))


def fontconfig_file(folder: Path) -> Path:
    """Write ``folder/fonts.conf`` (its cache next to it) and return its path."""
    folder.mkdir(parents=True, exist_ok=True)
    aliases = "".join(
        f"  <alias binding='same'><family>{escape(name)}</family>"
        f"<prefer><family>{escape(target)}</family></prefer></alias>\n"
        for name, target in _ALIASES.items()
    )
    text = (
        "<?xml version='1.0'?>\n<!DOCTYPE fontconfig SYSTEM 'urn:fontconfig:fonts.dtd'>\n"
        "<fontconfig>\n"
        f"  <dir>{escape(str(FONTS_DIR))}</dir>\n"
        f"  <cachedir>{escape(str(folder / 'fontconfig-cache'))}</cachedir>\n"
        f"{aliases}"
        "  <match target='font'>\n"
        "    <edit name='antialias' mode='assign'><bool>true</bool></edit>\n"
        "    <edit name='hinting' mode='assign'><bool>true</bool></edit>\n"
        "    <edit name='hintstyle' mode='assign'><const>hintslight</const></edit>\n"
        "    <edit name='rgba' mode='assign'><const>none</const></edit>\n"
        "  </match>\n"
        "</fontconfig>\n"
    )
    path = folder / "fonts.conf"
    path.write_text(text, encoding="utf-8")
    return path


def use_in(app: Any) -> None:
    """Load the shipped fonts into ``app`` (a QApplication) and make DejaVu Sans its font.

    Raises RuntimeError when Qt cannot load one of them, so a picture is never made with
    a font it did not ask for.
    """
    from PySide6.QtGui import QFont, QFontDatabase

    for path in font_files():
        if QFontDatabase.addApplicationFont(str(path)) < 0:
            raise RuntimeError(f"Qt could not load the font {path}")
    app.setFont(QFont(FAMILY, POINT_SIZE))
