"""The tray menu shows each skill's icon (its own, else its letter) with its trust badge,
from the loaded library and from the menu cache alike, in real ``QMenu`` widgets."""

from __future__ import annotations

import gc
from pathlib import Path

from PySide6.QtGui import QColor, QIcon, QImage
from PySide6.QtWidgets import QMenu

from gibberish.engine.core import Engine, EngineOptions
from gibberish.trust.provenance import write_provenance
from gibberish.ui.menu import cache as menu_cache
from gibberish.ui.menu.cache import CachedContext
from gibberish.ui.menu.model import skill_entry
from gibberish.ui.skill_icons import letter_icon
from tests.helpers.builders import write_skill
from tests.ui.conftest import make_controller

SIDE = 32
TRUST_COLOURS = {"user": QColor("#3d6fd1"), "untrusted": QColor("#d97706")}


def near(a: QColor, b: QColor) -> bool:
    pairs = zip(a.getRgb()[:3], b.getRgb()[:3], strict=True)
    return a.alpha() > 200 and all(abs(x - y) < 40 for x, y in pairs)


def share(image: QImage, colour: QColor, *, corner: str) -> float:
    """The share of the pixels of one quarter of ``image`` that are close to ``colour``."""
    half = image.width() // 2
    x0, y0 = (0, 0) if corner == "top-left" else (half, half)
    hits = sum(
        near(image.pixelColor(x, y), colour)
        for x in range(x0, x0 + half)
        for y in range(y0, y0 + half)
    )
    return hits / (half * half)


def skills(root: Path) -> Path:
    red = write_skill(root, "red-tools")
    picture = QImage(64, 64, QImage.Format.Format_ARGB32)
    picture.fill(QColor("red"))
    picture.save(str(red / "icon.png"))
    write_skill(root, "plain")
    outside = write_skill(root, "fetched")
    write_provenance(outside, "https://example.org/fetched.zip", "url", "0" * 64)
    return root


def test_each_skill_submenu_shows_its_icon_and_its_trust_badge(qtbot, tmp_path: Path) -> None:
    root = skills(tmp_path / "skills")
    engine = Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )
    ctl = make_controller(engine)
    ctl.start()
    try:
        qtbot.waitUntil(lambda: ctl.host.is_ready, timeout=20_000)
        ctl.rebuild_menu()
        gc.collect()  # the icons are drawn lazily: nothing they need may have gone
        letter = letter_icon("plain").pixmap(SIDE, SIDE).toImage().pixelColor(6, SIDE // 2)
        own = {"red-tools": QColor("red"), "plain": letter, "fetched": None}
        for name, colour in own.items():
            sub = ctl.menu.findChild(QMenu, f"skill:{name}")
            assert sub is not None, name
            icon = sub.menuAction().icon()
            assert not icon.isNull(), name
            image = icon.pixmap(SIDE, SIDE).toImage().convertToFormat(QImage.Format.Format_ARGB32)
            trust = str(engine.library.get(name).trust)
            if colour is not None:
                assert share(image, colour, corner="top-left") > 0.5, name  # the skill's icon
            assert share(image, TRUST_COLOURS[trust], corner="bottom-right") > 0.2, name  # badge
        assert str(engine.library.get("fetched").trust) == "untrusted"
    finally:
        ctl.shutdown()


def test_the_cached_menu_shows_the_same_icon_object(qtbot, tmp_path: Path) -> None:
    """Built from the menu cache, then from the loaded library: the same ``QIcon`` (its
    ``cacheKey``), so the menu's diff keeps each skill's entry."""
    root = skills(tmp_path / "skills")
    engine = Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )
    path = tmp_path / "menu-cache"
    assert menu_cache.save(engine, CachedContext(), path)
    loaded = menu_cache.load(path)
    assert loaded is not None
    cached = {s.name: s for s in loaded[0].skills()}
    for skill in engine.library.skills():
        live = skill_entry(skill, actions=None).icon  # type: ignore[arg-type]
        stand_in = skill_entry(cached[skill.name], actions=None).icon  # type: ignore[arg-type]
        assert isinstance(live, QIcon) and isinstance(stand_in, QIcon)
        assert live.cacheKey() == stand_in.cacheKey()
