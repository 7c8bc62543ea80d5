"""The approval dialog names the programs outside the skill folder a tool starts."""

from __future__ import annotations

import os
from pathlib import Path

from PySide6.QtWidgets import QLabel

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.approval.dialog import ApprovalDialog
from tests.skills.fixtures.skillkit import make_skill, tool_block


def test_a_home_helper_and_a_system_program_are_listed(qtbot, tmp_path: Path) -> None:
    helper = Path(os.environ["HOME"]) / "bin" / "helper"
    helper.parent.mkdir(parents=True)
    helper.write_text("#!/bin/sh\necho helped\n")
    helper.chmod(0o755)
    skills = tmp_path / "skills"
    make_skill(
        skills,
        "helping",
        tools=[
            tool_block("help_out", "Run the helper.", "~/bin/helper"),
            tool_block("list_it", "List a folder.", "ls -la"),
        ],
    )
    engine = Engine(EngineOptions(extra_skills_dirs=(skills,), include_user=False))
    dialog = ApprovalDialog(engine.runs.prepare("helping.help_out"))
    qtbot.addWidget(dialog)
    shown = dialog.findChild(QLabel, "approval-programs")
    assert shown is not None
    assert shown.text() == "~/bin/helper — in your home folder; an edit to it asks again"

    system = ApprovalDialog(engine.runs.prepare("helping.list_it"))
    qtbot.addWidget(system)
    listed = system.findChild(QLabel, "approval-programs").text()
    assert listed.endswith("/ls — a program of the system") and "helper" not in listed
