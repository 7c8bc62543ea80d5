"""Icons from ``resources/``: the app icon, the tray's three states, the trust badges.

They are SVG so they stay sharp at any tray size and HiDPI scale. Loading goes through
Qt's SVG icon engine; ``QIcon`` objects are cached because the tray menu is rebuilt on
every open and each skill submenu carries a badge. Trust levels are taken as their
string values, so showing the tray does not need the skills model loaded.
"""

from __future__ import annotations

from functools import cache

from PySide6.QtGui import QIcon

from gibberish import paths


class TrayState:
    """What the tray icon says: idle, a tool is running, the last run failed, listening to
    the person, recognizing what they said."""

    NORMAL = "normal"
    RUNNING = "running"
    FAILED = "failed"
    LISTENING = "listening"
    THINKING = "thinking"


@cache
def icon(name: str) -> QIcon:
    """``resources/<name>.svg`` as an icon (an empty icon when the file is missing)."""
    path = paths.resources_dir() / f"{name}.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()


def app_icon() -> QIcon:
    return icon("gibberish")


def tray_icon(state: str) -> QIcon:
    """``state`` is one of the ``TrayState`` values."""
    return icon(f"tray-{state}")


def trust_icon(trust: str) -> QIcon:
    """The badge for a trust level (``Trust`` is a ``StrEnum``, so its members work too)."""
    return icon(f"trust-{trust}")


TRUST_LABELS: dict[str, str] = {
    # Keyed by ``Trust`` values; a ``Trust`` member finds its entry (``StrEnum``).
    "bundled": "bundled",
    "user": "your skill",
    "untrusted": "untrusted",
}
