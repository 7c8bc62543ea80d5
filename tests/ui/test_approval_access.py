"""The approval shows what a run may reach beyond its folder: the display (``gui``), the
credentials its skill declares, and paths outside the project a model chose."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QLabel

from gibberish.app import Engine, EngineOptions
from gibberish.cli.run import describe
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
    prepared = engine.prepare("viewer.show")
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    assert (label(dialog, "approval-gui") or "").startswith("Yes — it may open windows")
    assert label(dialog, "approval-credentials") == "~/.aws, /etc/ssl/private — it may read these"
    assert label(dialog, "approval-reads-outside") is None
    text = describe(prepared)
    assert "display   yes (gui" in text and "reads     ~/.aws, /etc/ssl/private" in text
    if SHOT is not None:
        dialog.show()
        dialog.grab().save(str(SHOT / "approval-gui-credentials.png"))


def test_a_models_read_outside_the_project_is_named(qtbot, tmp_path: Path) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    engine = Engine(EngineOptions(include_user=False))
    prepared = engine.prepare(
        "files.read_file", {"path": "/etc/hostname"}, context_dir=project, origin=RunOrigin.MODEL
    )
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    assert label(dialog, "approval-reads-outside") == "/etc/hostname"
    assert "outside   /etc/hostname (the model chose it" in describe(prepared)
    assert label(dialog, "approval-gui") is None and label(dialog, "approval-credentials") is None
    assert label(dialog, "approval-asks-again") == (
        "A model's read outside the project is asked about every time."
    )
    if SHOT is not None:
        dialog.show()
        dialog.grab().save(str(SHOT / "approval-reads-outside.png"))
