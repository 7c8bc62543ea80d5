"""The tray's *Install skill…*: checklist, commands, replace confirmation, drop on the
launcher, and the source in the menu tooltip. Rendered offscreen."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import QMimeData, QPoint, QPointF, Qt, QUrl
from PySide6.QtGui import QDragEnterEvent, QDropEvent

from gibberish import paths
from gibberish.engine.core import Engine, EngineOptions
from gibberish.install.installer import installer_for
from gibberish.ui.install.dialog import InstallDialog
from gibberish.ui.menu.launcher import LauncherWindow, dropped_source
from tests.helpers.builders import skill_text, write_skill, zip_with

SHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"


@pytest.fixture
def engine() -> Engine:
    return Engine(EngineOptions(include_bundled=False))


def _open(qtbot, engine: Engine, source: str) -> InstallDialog:
    dialog = InstallDialog(lambda project=None: installer_for(engine, project), source)
    qtbot.addWidget(dialog)
    dialog.show()
    qtbot.waitUntil(
        lambda: dialog.list.count() > 0 or "no SKILL.md" in dialog.status.text(), timeout=10_000
    )
    return dialog


def test_checklist_shows_commands_and_installs_what_is_checked(qtbot, tmp_path, engine) -> None:
    write_skill(tmp_path / "src", "alpha", command="echo from-alpha")
    write_skill(tmp_path / "src", "beta", command="echo from-beta")
    dialog = _open(qtbot, engine, str(tmp_path / "src"))
    assert dialog.list.count() == 2
    assert "tools: hello" in dialog.list.item(0).text() and "tokens" in dialog.list.item(0).text()
    details = dialog.details.toPlainText()
    assert "hello: echo from-alpha" in details and "hello: echo from-beta" in details
    dialog.list.item(1).setCheckState(Qt.CheckState.Unchecked)
    assert "from-beta" not in dialog.details.toPlainText()
    if SHOTS.is_dir():
        dialog.grab().save(str(tmp_path / "install-dialog.png"))
    installed: list = []
    dialog.installed.connect(installed.append)
    dialog.install_button.click()
    assert installed == [["alpha"]]
    skills = paths.user_skills_dir()
    assert sorted(p.name for p in skills.iterdir()) == ["alpha"]
    assert json.loads((skills / "alpha" / ".gibberish-source.json").read_text())["source"] == str(
        tmp_path / "src"
    )


def test_replacing_needs_the_checkbox(qtbot, tmp_path, engine) -> None:
    mine = write_skill(paths.user_skills_dir(), "alpha", command="echo mine")
    zipped = zip_with(
        tmp_path / "a.zip",
        [("alpha/SKILL.md", skill_text("alpha", command="echo theirs").encode(), 0)],
    )
    engine = Engine(EngineOptions(include_bundled=False))
    dialog = _open(qtbot, engine, str(zipped))
    assert dialog.replace.isVisible() and "a skill of your own" in dialog.replace.text()
    assert not dialog.install_button.isEnabled()
    dialog.replace.setChecked(True)
    assert dialog.install_button.isEnabled()
    dialog.install_button.click()
    assert "echo theirs" in (mine / "SKILL.md").read_text()


def test_a_bad_source_is_shown_and_nothing_is_left(qtbot, tmp_path, engine) -> None:
    zipped = zip_with(tmp_path / "empty.zip", [("README", b"x", 0)])
    dialog = _open(qtbot, engine, str(zipped))
    assert "no SKILL.md found" in dialog.status.text()
    assert not dialog.install_button.isEnabled()
    dialog.reject()
    skills = paths.user_skills_dir()
    assert not skills.exists() or list(skills.iterdir()) == []


def test_closing_the_dialog_removes_what_was_fetched(qtbot, tmp_path, engine) -> None:
    write_skill(tmp_path / "src", "alpha")
    dialog = _open(qtbot, engine, str(tmp_path / "src"))
    staging = paths.user_skills_dir() / ".gibberish-staging"
    assert any(staging.iterdir())
    dialog.reject()
    assert not staging.exists()


def test_dropping_a_source_on_the_launcher_asks_to_install_it(qtbot, tmp_path) -> None:
    launcher = LauncherWindow()
    qtbot.addWidget(launcher)
    launcher.show()
    qtbot.waitExposed(launcher)
    got: list[str] = []
    launcher.dropped.connect(got.append)
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(tmp_path / "skills.zip"))])
    event = QDropEvent(
        QPointF(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    assert launcher.acceptDrops()
    enter = QDragEnterEvent(
        QPoint(10, 10),
        Qt.DropAction.CopyAction,
        mime,
        Qt.MouseButton.LeftButton,
        Qt.KeyboardModifier.NoModifier,
    )
    enter.ignore()
    launcher.dragEnterEvent(enter)
    assert enter.isAccepted()
    launcher.dropEvent(event)  # offscreen Qt has no drag manager to deliver it
    assert got == [str(tmp_path / "skills.zip")]
    text = QMimeData()
    text.setText("http://127.0.0.1:9/x.tar.gz")
    assert dropped_source(text) == "http://127.0.0.1:9/x.tar.gz"
    text.setText("rm -rf /")
    assert dropped_source(text) == ""


def test_menu_has_install_and_imported_skills_show_their_source(qtbot, tmp_path, gib) -> None:
    from tests.ui.conftest import make_controller

    write_skill(tmp_path / "src", "alpha")
    assert gib("install", str(tmp_path / "src" / "alpha"), "--yes").exit_code == 0
    controller = make_controller(Engine(EngineOptions(include_bundled=False)))
    controller.start()
    try:
        controller.menu.aboutToShow.emit()
        names = [a.objectName() for a in controller.menu.actions()]
        assert "install-skill" in names
        skill_menu = next(a for a in controller.menu.actions() if a.objectName() == "skill:alpha")
        tooltip = skill_menu.toolTip() or skill_menu.menu().toolTip()
        assert f"Source: {tmp_path / 'src' / 'alpha'}" in tooltip
    finally:
        controller.shutdown()
        controller.deleteLater()
