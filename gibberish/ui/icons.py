"""Icons from ``resources/``: the app icon, the tray's three states, the trust badges.

They are SVG so they stay sharp at any tray size and HiDPI scale. Loading goes through
Qt's SVG icon engine; ``QIcon`` objects are cached because the tray menu is rebuilt on
every open and each skill submenu carries a badge.
"""

from __future__ import annotations

from enum import StrEnum
from functools import cache

from PySide6.QtGui import QIcon

from gibberish import paths
from gibberish.skills.model import Trust


class TrayState(StrEnum):
    """What the tray icon says: idle, a tool is running, the last run failed."""

    NORMAL = "normal"
    RUNNING = "running"
    FAILED = "failed"


@cache
def icon(name: str) -> QIcon:
    """``resources/<name>.svg`` as an icon (an empty icon when the file is missing)."""
    path = paths.resources_dir() / f"{name}.svg"
    return QIcon(str(path)) if path.is_file() else QIcon()


def app_icon() -> QIcon:
    return icon("gibberish")


def tray_icon(state: TrayState) -> QIcon:
    return icon(f"tray-{state.value}")


def trust_icon(trust: Trust) -> QIcon:
    return icon(f"trust-{trust.value}")


TRUST_LABELS = {
    Trust.BUNDLED: "bundled",
    Trust.USER: "your skill",
    Trust.UNTRUSTED: "untrusted",
}
