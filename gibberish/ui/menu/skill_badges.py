"""A skill submenu's icon in the tray menu: the skill's own icon with its trust badge.

The skill's icon (``skill_icons``: the one its folder ships, else its letter) says which
skill it is; the badge in its lower right corner keeps what the trust icon alone said
before (bundled, yours, installed from outside and not trusted — docs/ui.md).

Cheap at 1,000 skills: making one costs a small Python object and no file access.
Nothing is read or drawn until Qt paints the entry (only the entries on screen are
painted), and each size is drawn once. Icons are kept per skill name, folder and trust,
so a rebuild of the menu — from the menu cache, then from the loaded library — hands out
the same ``QIcon`` and the menu's diff (``model.signature``, which compares icons by
``cacheKey``) keeps the entry.

The first ``WARM`` icons made — the top of the menu, what its first open shows — are
drawn ahead on idle turns of the event loop, a few milliseconds' worth per turn, so the
first open does not draw them all at once (``benchmarks/menu.py``).
"""

from __future__ import annotations

import time
from collections import deque
from pathlib import Path

from PySide6.QtCore import QPoint, QRect, QSize, Qt, QTimer
from PySide6.QtGui import QGuiApplication, QIcon, QIconEngine, QPainter, QPixmap
from PySide6.QtWidgets import QApplication, QStyle

from gibberish.ui import icons
from gibberish.ui.skill_icons import skill_icon

BADGE = 0.6
"""The badge's side, as a share of the icon's."""
KEPT = 5000
"""Icons kept at most (a menu of more skills makes the extra ones again)."""

WARM = 512
"""Icons drawn ahead of the first open. A menu taller than the screen is laid out in
columns across it (Qt's styles do not scroll menus), so its first open shows a few
hundred entries at 1,000 skills: about 0.3 ms each to draw, spread over idle turns."""
WARM_BUDGET_S = 0.004
"""GUI time one idle turn may spend drawing icons ahead."""

_kept: dict[tuple[str, str, str], QIcon] = {}
_ahead: deque[QIcon] = deque()
_queued = 0


class BadgedSkillEngine(QIconEngine):
    """Paints the skill's icon, a little smaller, with the trust badge over its corner;
    loads both on the first paint."""

    def __init__(self, name: str, folder: Path, trust: str) -> None:
        super().__init__()
        self.name, self.folder, self.trust = name, folder, trust
        self._drawn: dict[tuple[int, int, int, int], QPixmap] = {}

    def paint(self, painter: QPainter, rect: QRect, mode: QIcon.Mode, state: QIcon.State) -> None:
        side = min(rect.width(), rect.height())
        skill_side = round(side * 0.86)
        skill_icon(self.name, self.folder).paint(
            painter, QRect(rect.topLeft(), QSize(skill_side, skill_side)), mode=mode, state=state
        )
        badge = round(side * BADGE)
        corner = rect.bottomRight() - QPoint(badge - 1, badge - 1)
        icons.trust_icon(self.trust).paint(
            painter, QRect(corner, QSize(badge, badge)), mode=mode, state=state
        )

    def pixmap(self, size: QSize, mode: QIcon.Mode, state: QIcon.State) -> QPixmap:
        key = (size.width(), size.height(), mode.value, state.value)
        found = self._drawn.get(key)
        if found is None:
            found = QPixmap(size)
            found.fill(Qt.GlobalColor.transparent)
            painter = QPainter(found)
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
            self.paint(painter, QRect(QPoint(0, 0), size), mode, state)
            painter.end()
            self._drawn[key] = found
        return found

    def clone(self) -> QIconEngine:
        return BadgedSkillEngine(self.name, self.folder, self.trust)


def badged_skill_icon(name: str, folder: Path, trust: str) -> QIcon:
    """The skill's icon with its trust badge (drawn when first painted; kept per skill)."""
    key = (name, str(folder), str(trust))
    found = _kept.get(key)
    if found is None:
        if len(_kept) >= KEPT:
            _kept.clear()
        found = _kept[key] = QIcon(BadgedSkillEngine(name, folder, str(trust)))
        _draw_ahead(found)
    return found


def _draw_ahead(icon: QIcon) -> None:
    """Queue ``icon`` to be drawn on an idle turn, while fewer than ``WARM`` were."""
    global _queued
    if _queued >= WARM:
        return
    _queued += 1
    _ahead.append(icon)
    if len(_ahead) == 1:
        QTimer.singleShot(0, _draw_some)


def _draw_some() -> None:
    """Draw queued icons at the menu's icon size for ``WARM_BUDGET_S``, then yield."""
    deadline = time.perf_counter() + WARM_BUDGET_S
    app = QGuiApplication.instance()
    if not isinstance(app, QApplication):
        _ahead.clear()
        return
    side = app.style().pixelMetric(QStyle.PixelMetric.PM_SmallIconSize)
    while _ahead and time.perf_counter() < deadline:
        _ahead.popleft().pixmap(QSize(side, side), app.devicePixelRatio())
    if _ahead:
        QTimer.singleShot(0, _draw_some)
