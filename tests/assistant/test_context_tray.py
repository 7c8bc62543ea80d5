"""The tray's Context submenu: load/unload with checkmarks and token counts, pin, and the
pinned block showing up in what ``gibberish prompt`` prints."""

from __future__ import annotations

import os
from pathlib import Path

from click.testing import CliRunner
from PySide6.QtWidgets import QMenu

from gibberish.cli import cli
from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.menu.model import populate_qmenu
from tests.helpers.skill_folders import ECHOER, GUIDE
from tests.ui.conftest import make_controller


def engine_with(tmp_path: Path) -> tuple[Engine, Path]:
    root = tmp_path / "skills"
    for name, text in (("echoer", ECHOER), ("guide", GUIDE)):
        (root / name).mkdir(parents=True)
        (root / name / "SKILL.md").write_text(text, encoding="utf-8")
    options = EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    return Engine(options), root


def context_entries(controller) -> dict[str, object]:
    items = {item.name: item for item in controller.menus.items()}
    return {child.name: child for child in items["context"].items()}


def test_context_menu_loads_unloads_and_pins(qtbot, tmp_path: Path) -> None:
    engine, root = engine_with(tmp_path)
    controller = make_controller(engine)
    controller.start()
    try:
        qtbot.waitUntil(lambda: controller.host.is_ready, timeout=10_000)
        entries = context_entries(controller)
        guide = entries["context:guide"]
        assert guide.checkable and not guide.checked
        assert f"~{engine.feed.context_blocks()[0].tokens} tokens" in guide.text
        assert "context:echoer" not in entries  # a skill with tools is not a context block

        guide.trigger()
        assert engine.feed.session_context == {"guide"}
        assert context_entries(controller)["context:guide"].checked
        assert '<context name="guide">' in engine.feed.context_feed("release notes").text

        menu = QMenu()
        populate_qmenu(menu, controller.menus.items(), lazy=False)
        context = next(a for a in menu.actions() if a.text() == "Context").menu()
        action = next(a for a in context.actions() if a.text().startswith("guide"))
        assert action.isCheckable() and action.isChecked()
        if os.environ.get("GIBBERISH_SHOT"):
            context.grab().save(os.environ["GIBBERISH_SHOT"])

        context_entries(controller)["context:guide"].trigger()  # unload
        assert engine.feed.session_context == set()
        assert engine.feed.context_feed("release notes").text == ""

        context_entries(controller)["context:guide"].trigger()
        context_entries(controller)["context:pin-loaded"].trigger()
        assert engine.feed.session_context == set()
        assert "pinned" in context_entries(controller)["context:guide"].text
    finally:
        controller.shutdown()
        controller.deleteLater()

    base = ["--no-user-skills", "--no-bundled", "--skills-dir", str(root)]
    shown = CliRunner().invoke(cli, [*base, "prompt", "--request", "release notes"])
    assert '<context name="guide">\n# Release notes' in shown.output
