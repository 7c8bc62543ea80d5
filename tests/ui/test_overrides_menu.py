"""Problems in the tray lists a skill that hides another of the same name."""

from __future__ import annotations

from pathlib import Path

from gibberish import paths
from gibberish.engine.core import Engine, EngineOptions
from tests.skills.fixtures.skillkit import write_skill
from tests.ui.conftest import make_controller
from tests.ui.test_menu import action, open_menu, open_submenu


def test_problems_lists_a_skill_that_overrides_another(qtbot, skills_dir: Path) -> None:
    write_skill(paths.user_skills_dir(), "hello")  # hides the test folder's "hello"
    engine = Engine(EngineOptions(extra_skills_dirs=(skills_dir,), include_bundled=False))
    controller = make_controller(engine)
    menu = open_menu(controller)
    problems = action(menu, "problems")
    assert problems.text() == "⚠ 1 skill has a problem" and problems.isEnabled()
    open_submenu(menu, "problems")
    entry = action(menu, "override:hello")
    assert "overrides another skill" in entry.text()
    assert "overrides the user skill of the same name" in entry.toolTip()
    entry.trigger()
    box = controller.dialogs.open["problem"]
    assert "hides another skill" in box.text()
