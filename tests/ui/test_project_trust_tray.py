"""The tray asks about an untrusted project folder (issue 26, finding 6).

A project's skills load as untrusted; the menu offers *Trust project “X”…*; the question
names the folder and its skills; *Keep untrusted* changes nothing, *Trust this folder*
makes its skills the person's own at once.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QMessageBox

from gibberish.engine.core import Engine, EngineOptions
from gibberish.skills.model import Trust
from gibberish.trust import projects
from tests.helpers.builders import skill_text
from tests.ui.conftest import make_controller
from tests.ui.test_menu import action, open_menu


def _project(root: Path) -> Path:
    folder = root / ".gibberish" / "skills" / "helper"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_text("helper"), encoding="utf-8")
    (root / "gibberish.toml").write_text("", encoding="utf-8")
    return root


@pytest.fixture
def started() -> Iterator[list]:
    controllers: list = []
    yield controllers
    for controller in controllers:
        controller.shutdown()
        controller.deleteLater()


def _controller(started: list, project: Path):  # type: ignore[no-untyped-def]
    engine = Engine(EngineOptions(include_bundled=False, include_user=False))
    engine.library.follow_project(project)
    controller = make_controller(engine)
    controller.start()
    started.append(controller)
    return controller, engine


def _ask(qtbot, controller) -> QMessageBox:  # type: ignore[no-untyped-def]
    menu = open_menu(controller)
    entry = action(menu, "trust-project")
    assert "clone" in entry.text() and "helper" in entry.toolTip()
    entry.trigger()
    box = controller.dialogs.open["trust-project"]
    qtbot.waitUntil(box.isVisible)
    return box


def test_the_tray_asks_and_no_keeps_the_project_untrusted(qtbot, started, tmp_path: Path) -> None:
    project = _project(tmp_path / "clone")
    controller, engine = _controller(started, project)
    assert engine.library.require("helper").trust is Trust.UNTRUSTED
    box = _ask(qtbot, controller)
    assert str(project) in box.text() and "helper" in box.informativeText()
    shots = Path(os.environ.get("GIBBERISH_SCREENSHOTS_DIR") or tmp_path)
    box.grab().save(str(shots / "trust-project.png"))
    box.button(QMessageBox.StandardButton.No).click()
    assert not projects.is_trusted(project)
    assert engine.library.require("helper").trust is Trust.UNTRUSTED


def test_trusting_in_the_tray_makes_its_skills_the_persons_own(
    qtbot, started, tmp_path: Path
) -> None:
    project = _project(tmp_path / "clone")
    controller, engine = _controller(started, project)
    box = _ask(qtbot, controller)
    box.button(QMessageBox.StandardButton.Yes).click()
    assert projects.is_trusted(project)
    assert engine.library.require("helper").trust is Trust.USER
    names = [a.objectName() for a in open_menu(controller).actions()]
    assert "trust-project" not in names
