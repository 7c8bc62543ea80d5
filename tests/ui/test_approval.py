"""The approval / confirm dialog and the controller's accept / reject paths."""

from __future__ import annotations

from pathlib import Path

from msgspec.structs import replace
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QPlainTextEdit

from gibberish.engine.core import Engine
from gibberish.engine.run_flow import Answer
from gibberish.trust.decision import Decision
from gibberish.trust.provenance import write_provenance
from gibberish.ui.approval.dialog import ApprovalDialog, ApprovalPrompter
from tests.helpers.sandbox import requires_sandbox
from tests.ui.conftest import tool_block, wait_for_result, write_skill


def dialog_for(qtbot, prepared) -> ApprovalDialog:
    dialog = ApprovalDialog(prepared)
    qtbot.addWidget(dialog)
    return dialog


def text_of(dialog: ApprovalDialog, name: str) -> str:
    widget = dialog.findChild(QLabel, name) or dialog.findChild(QPlainTextEdit, name)
    assert widget is not None, name
    text = widget.text() if isinstance(widget, QLabel) else widget.toPlainText()
    return text.replace("\u00a0", " ")  # spaces inside an argument do not break


def test_first_run_shows_everything_and_offers_always_allow(qtbot, engine: Engine) -> None:
    prepared = engine.runs.prepare("hello.echo_text", {"text": "a b"})
    assert prepared.decision.can_always_allow
    dialog = dialog_for(qtbot, prepared)
    assert text_of(dialog, "approval-argv") == "echo 'a b'"
    assert text_of(dialog, "approval-skill").startswith("Hello  ·  ")  # the skill's title
    assert "1.0.0" not in text_of(dialog, "approval-skill")
    assert "“hello” version 1.0.0" in text_of(dialog, "approval-tool-id")  # in the Details
    assert "your skill" in text_of(dialog, "approval-skill")
    assert "Print the text you give it." in text_of(dialog, "approval-tool")
    assert "30 seconds" in text_of(dialog, "approval-timeout")
    assert text_of(dialog, "approval-network").startswith("No")
    assert text_of(dialog, "approval-cwd")
    assert dialog.findChild(QLabel, "approval-banner") is None
    assert dialog.always_button is not None and dialog.once_button is not None
    assert dialog.cancel_button.isDefault()


def test_escape_cancels(qtbot, engine: Engine) -> None:
    dialog = dialog_for(qtbot, engine.runs.prepare("hello.say_hello"))
    dialog.show()
    qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.answer is Answer.CANCEL
    assert not dialog.isVisible()


def test_buttons_give_their_answer(qtbot, engine: Engine) -> None:
    for button, answer in (
        ("once_button", Answer.ONCE),
        ("always_button", Answer.ALWAYS),
    ):
        dialog = dialog_for(qtbot, engine.runs.prepare("hello.say_hello"))
        getattr(dialog, button).click()
        assert dialog.answer is answer


def test_changed_since_approval_lists_the_changed_files(
    qtbot, engine: Engine, skills_dir: Path
) -> None:
    engine.trust.approve_prepared(engine.runs.prepare("slow.fail"))
    (skills_dir / "slow" / "fail.sh").write_text("#!/bin/sh\nexit 4\n")
    (skills_dir / "slow" / "new.sh").write_text("#!/bin/sh\n")
    prepared = engine.runs.prepare("slow.fail")
    assert prepared.decision.changed_files
    dialog = dialog_for(qtbot, prepared)
    changed = text_of(dialog, "approval-changed")
    assert "+ new.sh" in changed and "~ fail.sh" in changed
    assert "changed since you trusted it" in text_of(dialog, "approval-reason")


def test_an_installed_skill_shows_its_warning_source_files_and_trust_this_version(
    qtbot, engine: Engine, skills_dir: Path
) -> None:
    write_skill(
        skills_dir,
        "imported",
        [tool_block("fetch", "Fetch something.", "echo fetched")],
        extra="network: true",
    )
    folder = skills_dir / "imported"
    (folder / "helper.sh").write_text("#!/bin/sh\n")
    write_provenance(folder, "https://example.org/imported.git", "git", "0" * 64)
    engine.library.reload()
    prepared = engine.runs.prepare("imported.fetch")
    dialog = dialog_for(qtbot, prepared)
    assert "installed from outside" in text_of(dialog, "approval-banner")
    assert "Source: https://example.org/imported.git" in text_of(dialog, "approval-banner")
    assert "not trusted in this version" in text_of(dialog, "approval-skill")
    assert text_of(dialog, "approval-source").startswith("https://example.org/imported.git (git")
    assert text_of(dialog, "approval-files").splitlines() == ["SKILL.md", "helper.sh"]
    assert text_of(dialog, "approval-network").startswith("Yes")
    assert dialog.always_button is not None and dialog.once_button is not None
    assert "Trust this version" in dialog.always_button.text().replace("&", "")


def test_refuse_shows_the_reason_and_no_run_button(qtbot, engine: Engine) -> None:
    prepared = replace(
        engine.runs.prepare("hello.say_hello"), decision=Decision.refuse("Not today.")
    )
    dialog = dialog_for(qtbot, prepared)
    assert dialog.once_button is None and dialog.always_button is None
    assert text_of(dialog, "approval-reason") == "Not today."
    assert dialog.cancel_button.text() == "&Close"


def test_prompter_runs_the_dialog_modally(qtbot, engine: Engine) -> None:
    def click_once() -> None:
        dialog = next(
            w
            for w in QApplication.topLevelWidgets()
            if isinstance(w, ApprovalDialog) and w.isVisible()
        )
        dialog.once_button.click()

    QTimer.singleShot(50, click_once)
    assert ApprovalPrompter().ask(engine.runs.prepare("hello.say_hello")) is Answer.ONCE


def test_controller_cancel_runs_nothing(controller, approvals) -> None:
    approvals.answer = Answer.CANCEL
    assert controller.launch("hello.say_hello") is None
    assert controller.runs.sessions == {}
    assert controller.engine.runs.recent() == []


@requires_sandbox
def test_controller_always_allow_stores_the_approval(qtbot, controller, approvals) -> None:
    approvals.answer = Answer.ALWAYS
    session = controller.launch("hello.say_hello")
    wait_for_result(qtbot, session)
    assert [r.skill for r in controller.engine.trust.approvals.list()] == ["hello"]
    # read_only and approved now: the next run does not ask.
    approvals.answer = Answer.CANCEL
    approvals.seen.clear()
    session = controller.launch("hello.say_hello")
    assert session is not None and approvals.seen == []
    wait_for_result(qtbot, session)


def test_without_a_sandbox_the_controller_asks_a_proposal_again_and_says_why(
    qtbot, controller, approvals, no_sandbox
) -> None:
    """Your own Run of the version you trusted runs, sandbox or not; a proposal sent
    straight to run asks, as ``read_only`` is only the author's word without bwrap."""
    from gibberish.trust.model_reads import RunOrigin

    approvals.answer = Answer.ALWAYS
    wait_for_result(qtbot, controller.launch("hello.say_hello"))
    assert [r.skill for r in controller.engine.trust.approvals.list()] == ["hello"]
    approvals.answer = Answer.ONCE
    approvals.seen.clear()
    wait_for_result(qtbot, controller.launch("hello.say_hello"))
    assert approvals.seen == []
    session = controller.launch("hello.say_hello", origin=RunOrigin.MODEL)
    assert session is not None
    (asked,) = approvals.seen
    assert "sandbox" in asked.decision.reason and not asked.decision.can_always_allow
    wait_for_result(qtbot, session)


def test_controller_refused_decision_shows_reason_and_never_runs(
    controller, approvals, monkeypatch
) -> None:
    engine = controller.engine
    original = engine.runs.prepare

    def refusing(*args, **kwargs):
        return replace(original(*args, **kwargs), decision=Decision.refuse("Blocked by policy."))

    monkeypatch.setattr(engine.runs, "prepare", refusing)
    approvals.answer = Answer.ONCE  # even a "yes" cannot run it
    assert controller.launch("hello.say_hello") is None
    assert len(approvals.seen) == 1
    assert controller.runs.sessions == {}


def test_approvals_dialog_lists_and_revokes(qtbot, controller) -> None:
    from gibberish.ui.approval.approvals_dialog import ApprovalsDialog

    controller.engine.trust.approve_prepared(controller.engine.runs.prepare("hello.say_hello"))
    dialog = ApprovalsDialog(controller.engine.trust)
    qtbot.addWidget(dialog)
    assert dialog.names() == ["hello"]
    assert dialog.table.topLevelItem(0).text(2) == "approved"  # the Engine's status
    assert not dialog.revoke_button.isEnabled()
    dialog.select("hello")
    assert dialog.revoke_button.isEnabled()
    dialog.revoke_button.click()
    assert dialog.names() == []
    assert controller.engine.trust.approvals.list() == []
