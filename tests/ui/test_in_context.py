"""Notices where the person looks (never a modal out of nowhere); problem details."""

from __future__ import annotations

import time
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QLabel, QMessageBox, QWidget

from gibberish.ui.problem_dialog import ProblemDialog, split_hint
from tests.ui.conftest import make_controller


def broken(skills_dir: Path) -> Path:
    path = skills_dir / "hello" / "SKILL.md"
    path.write_text(path.read_text().replace("version: 1.0.0", "version: v1"))
    return path


def test_a_notice_without_a_tray_goes_to_the_status_line(qtbot, engine, monkeypatch) -> None:
    controller = make_controller(engine, tray=False)
    controller.start()
    monkeypatch.setattr(engine, "notices", lambda: ["The keyring stores secrets in plain text."])
    controller.show_notices()
    status = controller.surface.launcher.status
    assert status.isVisibleTo(controller.surface.launcher)
    assert "plain text" in status.text()
    assert not [
        w for w in QApplication.topLevelWidgets() if isinstance(w, QMessageBox) and w.isVisible()
    ]
    controller.shutdown()


def test_problem_details_show_file_line_message_and_hint(qtbot, engine, skills_dir) -> None:
    path = broken(skills_dir)
    engine.library.reload()
    skill = engine.library.get("hello")
    opened: list[tuple[Path, int | None]] = []
    dialog = ProblemDialog(skill, lambda p, line: opened.append((p, line)))
    qtbot.addWidget(dialog)
    where, what, hint = dialog.rows[0]
    assert where == "SKILL.md, line 3"
    shown = dialog.findChild(QWidget, "problem-line")
    assert shown is not None and shown.toPlainText().startswith("3  version:")  # the line itself
    assert "semantic version" in what and str(skills_dir) not in what
    assert hint.startswith("Write MAJOR.MINOR.PATCH")
    texts = " ".join(label.text() for label in dialog.findChildren(QLabel))
    assert texts.count(str(path.parent)) <= 1  # the folder once, not a wall of paths
    assert dialog.open_button.text().replace("&", "") == "Open SKILL.md at line 3"
    dialog.open_button.click()
    assert opened == [(path, 3)]


def test_a_yaml_error_reads_in_the_projects_words_with_the_line_and_a_wide_button(
    qtbot, engine, skills_dir
) -> None:
    folder = skills_dir / "hello"
    text = (folder / "SKILL.md").read_text(encoding="utf-8")
    (folder / "SKILL.md").write_text(
        text.replace("description:", "modes: [Dev, Global\ndescription:", 1), encoding="utf-8"
    )
    engine.library.reload()
    dialog = ProblemDialog(engine.library.get("hello"), lambda p, line: None)
    qtbot.addWidget(dialog)
    dialog.resize(600, 400)
    dialog.show()
    where, what, detail = dialog.rows[0]
    assert what == "The settings at the top (between the two --- lines) are not valid YAML."
    assert "expected" in detail or "while" in detail  # the parser's words, as the detail only
    assert ", line " in where
    button = dialog.open_button
    assert button.text().replace("&", "").startswith("Open SKILL.md at line ")
    assert button.width() >= dialog.width() - 60  # full width: never clipped to "pen SKILL.md"


def test_the_editor_is_visual_with_the_line(tmp_path, monkeypatch) -> None:
    from gibberish.ui import problem_dialog

    record = tmp_path / "args"
    editor = tmp_path / "editor.sh"
    editor.write_text(f'#!/bin/sh\necho "$@" > {record}\n')
    editor.chmod(0o755)
    monkeypatch.setenv("VISUAL", str(editor))
    problem_dialog.open_in_editor(tmp_path / "SKILL.md", 7)
    deadline = time.monotonic() + 5
    while not record.exists() and time.monotonic() < deadline:
        time.sleep(0.02)  # waits on the file the editor writes
    assert record.read_text().split() == ["+7", str(tmp_path / "SKILL.md")]


def test_split_hint() -> None:
    assert split_hint("bad thing; do this") == ("bad thing.", "Do this")
    assert split_hint("only a message") == ("only a message", "")


def test_no_problems_is_not_a_warning(qtbot, engine) -> None:
    controller = make_controller(engine, tray=False)
    controller.start()
    problems = controller.surface.launcher.find_item("problems")
    assert problems.text(0) == "No problems"
    controller.shutdown()


def test_enter_on_a_section_row_expands_it(qtbot, engine) -> None:
    controller = make_controller(engine, tray=False)
    controller.start()
    launcher = controller.surface.launcher
    launcher.tree.collapseAll()
    row = launcher.find_item("skill:hello")
    launcher.tree.setCurrentItem(row)
    qtbot.keyClick(launcher.tree, Qt.Key.Key_Return)
    assert row.isExpanded()
    qtbot.keyClick(launcher.tree, Qt.Key.Key_Return)
    assert not row.isExpanded()
    controller.shutdown()
