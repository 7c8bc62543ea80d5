"""The approval shows what a run may reach beyond its folder: the display (``gui``), the
credentials its skill declares, and paths outside the project a model chose."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QLabel

from gibberish.cli.run import describe
from gibberish.engine.core import Engine, EngineOptions
from gibberish.trust.model_reads import RunOrigin
from gibberish.ui.approval.dialog import ApprovalDialog
from tests.ui.conftest import tool_block, write_skill

SHOT = (
    Path(os.environ.get("GIBBERISH_SCREENSHOTS", ""))
    if "GIBBERISH_SCREENSHOTS" in os.environ
    else None
)


def label(dialog: ApprovalDialog, name: str) -> str | None:
    found = dialog.findChild(QLabel, name)
    return None if found is None else found.text()


def test_gui_and_declared_credentials_are_shown_before_approval(qtbot, tmp_path: Path) -> None:
    root = tmp_path / "skills"
    block = tool_block("show", "Show a window.", "true")
    write_skill(root, "viewer", [block], extra="gui: true\ncredentials: [~/.aws, /etc/ssl/private]")
    engine = Engine(EngineOptions(extra_skills_dirs=(root,), include_bundled=False))
    prepared = engine.runs.prepare("viewer.show")
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    gui, credentials = prepared.reaches
    assert label(dialog, "approval-gui") == f"Yes — {gui.why}"
    assert label(dialog, "approval-credentials") == f"~/.aws, /etc/ssl/private — {credentials.why}"
    assert label(dialog, "approval-reads-outside") is None
    text = describe(prepared)  # the command line says the same
    assert f"display   yes ({gui.why})" in text
    assert f"reads     ~/.aws, /etc/ssl/private ({credentials.why})" in text
    assert "may open windows" in gui.why and "may read these" in credentials.why
    if SHOT is not None:
        dialog.show()
        dialog.grab().save(str(SHOT / "approval-gui-credentials.png"))


def test_a_models_read_outside_the_project_is_named(qtbot, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    engine = Engine(EngineOptions(include_user=False))
    prepared = engine.runs.prepare(
        "files.read_file", {"path": "/etc/hostname"}, context_dir=project, origin=RunOrigin.MODEL
    )
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    (outside,) = prepared.reaches
    assert label(dialog, "approval-reads-outside") == f"/etc/hostname — {outside.why}"
    assert f"outside   /etc/hostname ({outside.why})" in describe(prepared)
    assert "the model chose it" in outside.why
    assert label(dialog, "approval-gui") is None and label(dialog, "approval-credentials") is None
    assert label(dialog, "approval-asks-again") == (
        "A model's read outside the project is asked about every time."
    )
    if SHOT is not None:
        dialog.show()
        dialog.grab().save(str(SHOT / "approval-reads-outside.png"))
