"""Live reload: the file watcher, half-written SKILL.md files, skills appearing and going away."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from PySide6.QtGui import QAction

from gibberish.ui.watcher import SkillsWatcher, watch_paths
from tests.ui.conftest import tool_block, write_skill


def menu_names(controller) -> list[str]:
    controller.menu.aboutToShow.emit()
    return [a.objectName() for a in controller.menu.actions()]


def test_watch_paths_cover_sources_skill_folders_and_skill_files(
    skills_dir: Path, tmp_path: Path
) -> None:
    missing = tmp_path / "not-yet" / "skills"
    paths = watch_paths([skills_dir, missing])
    assert str(skills_dir) in paths
    assert str(skills_dir / "hello") in paths
    assert str(skills_dir / "hello" / "SKILL.md") in paths
    assert str(tmp_path / "not-yet") not in paths  # its parent does not exist either
    (tmp_path / "not-yet").mkdir()
    assert str(tmp_path / "not-yet") in watch_paths([missing])


def test_watcher_debounces_a_burst_into_one_signal(qtbot, skills_dir: Path) -> None:
    watcher = SkillsWatcher(debounce_ms=150)
    watcher.watch([skills_dir])
    with qtbot.waitSignal(watcher.changed, timeout=3000):
        for i in range(5):
            (skills_dir / "hello" / f"tmp{i}").write_text("x")
    with qtbot.assertNotEmitted(watcher.changed, wait=400):  # nothing more after the burst
        pass
    watcher.stop()


def test_watcher_re_adds_a_file_replaced_by_an_atomic_save(qtbot, skills_dir: Path) -> None:
    watcher = SkillsWatcher(debounce_ms=50)
    skill_file = skills_dir / "hello" / "SKILL.md"
    watcher.watch([skills_dir])
    assert str(skill_file) in watcher.watched()
    tmp = skill_file.with_name(".SKILL.md.swp")
    tmp.write_text(skill_file.read_text())
    with qtbot.waitSignal(watcher.changed, timeout=3000):
        os.replace(tmp, skill_file)
    watcher.watch([skills_dir])
    assert str(skill_file) in watcher.watched()
    with qtbot.waitSignal(watcher.changed, timeout=3000):
        skill_file.write_text(skill_file.read_text() + "\n")
    watcher.stop()


def test_half_written_skill_shows_a_problem_then_recovers(
    qtbot, controller, notifications, skills_dir: Path
) -> None:
    skill_file = skills_dir / "hello" / "SKILL.md"
    good = skill_file.read_text()
    skill_file.write_text(good[: good.index("description:")])  # saved half-way
    qtbot.waitUntil(lambda: "problem:hello" in _problem_names(controller), timeout=5000)
    assert "skill:hello" not in menu_names(controller)
    assert "skill:kinds" in menu_names(controller)  # the others keep working
    # Announced on the GUI thread once the reload worker is done.
    qtbot.waitUntil(lambda: bool(notifications) and "hello" in notifications[-1][0])
    title, body, failed = notifications[-1]
    assert "hello" in title and failed and "E-" in body

    skill_file.write_text(good)
    qtbot.waitUntil(lambda: "skill:hello" in menu_names(controller), timeout=5000)
    assert _problem_names(controller) == []
    qtbot.waitUntil(lambda: "works again" in notifications[-1][0])


def _problem_names(controller) -> list[str]:
    controller.menu.aboutToShow.emit()
    sub = controller.menu.findChild(QAction, "problems").menu()
    return [a.objectName() for a in sub.actions()]


def test_new_and_removed_skill_folders_update_the_menu(qtbot, controller, skills_dir: Path) -> None:
    write_skill(skills_dir, "fresh", [tool_block("ping", "Say pong.", "echo pong")])
    qtbot.waitUntil(lambda: "skill:fresh" in menu_names(controller), timeout=5000)
    shutil.rmtree(skills_dir / "fresh")
    qtbot.waitUntil(lambda: "skill:fresh" not in menu_names(controller), timeout=5000)


def test_skill_md_created_in_an_empty_folder_is_noticed(
    qtbot, controller, skills_dir: Path
) -> None:
    (skills_dir / "later").mkdir()
    later = str(skills_dir / "later")  # watched once the debounced reload has run
    qtbot.waitUntil(lambda: later in controller.watcher.watched(), timeout=5000)
    write_skill(skills_dir, "later", [tool_block("ping", "Say pong.", "echo pong")])
    qtbot.waitUntil(lambda: "skill:later" in menu_names(controller), timeout=5000)


def test_launcher_rebuilds_on_reload(qtbot, engine, skills_dir: Path) -> None:
    from gibberish.ui.controller import Controller

    ctl = Controller(engine, tray_available=False)
    ctl.start()
    try:
        write_skill(skills_dir, "fresh", [tool_block("ping", "Say pong.", "echo pong")])
        qtbot.waitUntil(lambda: "tool:fresh.ping" in ctl.surface.launcher.names(), timeout=5000)
    finally:
        ctl.shutdown()
