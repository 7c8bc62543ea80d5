"""The tray under the decision table of docs/adr/0057: the person's own Run of a version
they trusted runs without a dialog — the bundled *Add note* from its form included — an
installed skill can be trusted in its dialog, and whatever a model or the recognizer
sends straight to run (no form), or an MCP client asks for, still asks."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gibberish.engine.core import Engine, EngineOptions
from gibberish.engine.run_flow import Answer
from gibberish.mcp.approval import ApprovalRequest
from gibberish.trust.fingerprint import fingerprint
from gibberish.trust.model_reads import RunOrigin
from gibberish.trust.provenance import write_provenance
from gibberish.ui.approval.dialog import ApprovalDialog
from gibberish.ui.approval.mcp import McpApprovals
from tests.ui.conftest import (
    FakeApprovals,
    FakeForms,
    make_controller,
    param_table,
    wait_for_result,
    write_skill,
)

WORDS = param_table([("words", "string", "yes", "What to write")])


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "marker.txt"


@pytest.fixture
def skills(skills_dir: Path, marker: Path) -> Path:
    """The standard skills plus ``writer`` (a write tool with a form and one without)."""
    from tests.ui.conftest import tool_block

    folder = write_skill(
        skills_dir,
        "writer",
        [
            tool_block("mark", "Write the words.", "./scripts/mark.sh {{words}}", WORDS),
            tool_block("stamp", "Write a stamp.", "./scripts/mark.sh stamp"),
        ],
        scripts={"scripts/mark.sh": f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{marker}"\n'},
    )
    os.chmod(folder / "scripts" / "mark.sh", 0o755)
    return skills_dir


@pytest.fixture
def tray(qtbot, skills: Path):
    approvals, forms = FakeApprovals(Answer.ONCE), FakeForms({"words": "from the form"})
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills,), include_user=False, include_bundled=False)
    )
    ctl = make_controller(engine, forms=forms, approvals=approvals)
    ctl.start()
    yield ctl, approvals, forms
    ctl.shutdown()
    ctl.deleteLater()


def marks(marker: Path) -> list[str]:
    return marker.read_text().splitlines() if marker.exists() else []


def run(qtbot, controller, ref: str, **kwargs) -> None:
    session = controller.launch(ref, **kwargs)
    assert session is not None
    wait_for_result(qtbot, session)


def test_add_note_runs_from_its_form_with_no_dialog(qtbot) -> None:
    approvals, forms = FakeApprovals(Answer.CANCEL), FakeForms({"text": "buy milk"})
    ctl = make_controller(
        Engine(EngineOptions(include_user=False)), forms=forms, approvals=approvals
    )
    ctl.start()
    try:
        run(qtbot, ctl, "take-note.add_note")
        assert approvals.seen == [] and forms.calls == [("take-note.add_note", {})]
        notes = Path(os.environ["XDG_DATA_HOME"]) / "gibberish" / "notes.md"
        assert notes.read_text().rstrip().endswith("buy milk")
    finally:
        ctl.shutdown()
        ctl.deleteLater()


def test_a_trusted_write_tool_runs_from_your_run_and_your_confirmed_form(
    qtbot, tray, marker: Path
) -> None:
    controller, approvals, forms = tray
    controller.engine.trust.approve_skill_by_name("writer")
    run(qtbot, controller, "writer.stamp")  # a menu click, no form
    run(qtbot, controller, "writer.mark")  # the form, then Run
    # a voice request whose form the person confirmed
    run(qtbot, controller, "writer.mark", origin=RunOrigin.MODEL)
    assert approvals.seen == [] and len(forms.calls) == 2
    assert marks(marker) == ["stamp", "from the form", "from the form"]


def test_a_tool_picked_in_the_command_bar_is_your_own_run(qtbot, tray, marker: Path) -> None:
    controller, approvals, _ = tray
    controller.engine.trust.approve_skill_by_name("writer")
    controller.text._tool_chosen("writer.stamp")
    qtbot.waitUntil(lambda: marks(marker) == ["stamp"], timeout=10_000)
    assert approvals.seen == []


def test_a_proposal_sent_straight_to_run_asks_every_time(qtbot, tray, marker: Path) -> None:
    """Attack: a model reaching the person's path. A proposal of a tool without a form
    (nothing for the person to confirm) of a trusted write tool asks, every time."""
    controller, approvals, _ = tray
    controller.engine.trust.approve_skill_by_name("writer")
    approvals.answer = Answer.CANCEL
    for _ in range(2):
        controller.proposals.open_one("writer.stamp", {}, "model", ())
    assert [p.ref for p in approvals.seen] == ["writer.stamp", "writer.stamp"]
    assert not any(p.own_run for p in approvals.seen) and marks(marker) == []
    assert (
        "A model or what was heard started “Stamp” from “Writer”"
        in approvals.seen[0].decision.reason
    )


def test_an_mcp_request_shows_the_dialog_for_a_trusted_write(tray) -> None:
    """Attack: the tray prepares an MCP client's call itself; that is never your own run."""
    controller, approvals, _ = tray
    engine = controller.engine
    engine.trust.approve_skill_by_name("writer")
    prepared = engine.runs.prepare("writer.stamp", origin=RunOrigin.MODEL)
    request = ApprovalRequest(
        "writer.stamp", {}, str(prepared.cwd), prepared.argv, prepared.fingerprint.digest
    )
    answer, _ = McpApprovals(lambda: engine, approvals)._decide(request)
    assert answer == "once" and [p.ref for p in approvals.seen] == ["writer.stamp"]


def test_always_ask_asks_your_own_run_every_time(qtbot, skills: Path) -> None:
    from tests.ui.conftest import tool_block

    write_skill(skills, "careful", [tool_block("go", "Go.", "echo go")], extra="always_ask: true")
    approvals = FakeApprovals(Answer.ALWAYS)
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills,), include_user=False, include_bundled=False)
    )
    ctl = make_controller(engine, forms=FakeForms(), approvals=approvals)
    ctl.start()
    try:
        for _ in range(3):
            run(qtbot, ctl, "careful.go")
        assert [p.ref for p in approvals.seen] == ["careful.go"] * 3
        assert [r.skill for r in engine.trust.approvals.list()] == ["careful"]
    finally:
        ctl.shutdown()
        ctl.deleteLater()


def test_an_installed_skill_is_trusted_in_its_dialog_and_an_update_shows_the_diff(
    qtbot, tray, skills: Path, marker: Path
) -> None:
    controller, approvals, _ = tray
    folder = skills / "writer"
    write_provenance(folder, "https://example.org/writer.git", "git", fingerprint(folder).digest)
    controller.engine.library.reload()
    approvals.answer = Answer.ALWAYS  # "Trust this version"
    run(qtbot, controller, "writer.stamp")
    (first,) = approvals.seen
    assert first.decision.can_always_allow and first.decision.banner
    assert first.came_from.startswith("https://example.org/writer.git (git")
    assert first.covered_files == ("SKILL.md", "scripts/mark.sh")
    run(qtbot, controller, "writer.stamp")
    run(qtbot, controller, "writer.mark")
    assert len(approvals.seen) == 1  # trusted: like your own skill from now on
    assert marks(marker) == ["stamp", "stamp", "from the form"]

    script = folder / "scripts" / "mark.sh"
    script.write_text(script.read_text().replace("printf", "printf  "))
    approvals.answer = Answer.CANCEL
    assert controller.launch("writer.stamp") is None
    update = approvals.seen[-1]
    assert update.decision.changed_files.modified == ("scripts/mark.sh",)
    assert update.decision.banner and update.decision.can_always_allow
    dialog = ApprovalDialog(update)
    qtbot.addWidget(dialog)
    diff = dialog.findChild(object, "approval-diff")
    assert diff is not None and "+printf  " in diff.toPlainText()
    assert dialog.always_button is not None


class ProposeStamp:
    """A router that proposes the trusted write tool whatever was asked."""

    instant = True
    name = "a test router"

    def propose(self, text, tools, *, mode=None):  # type: ignore[no-untyped-def]
        from gibberish.assistant.proposal import proposal_of

        return proposal_of("writer.stamp")


def test_a_request_from_another_process_is_a_models_run(qtbot, skills: Path, marker: Path) -> None:
    """Attack: a line on the single-instance socket (``gibberish ask`` handed to the tray)
    reaches a trusted write tool through the router: sent straight to run, it asks."""
    from gibberish.ui.single_instance import ASK_PREFIX

    approvals = FakeApprovals(Answer.CANCEL)
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills,), include_user=False, include_bundled=False)
    )
    engine.trust.approve_skill_by_name("writer")
    ctl = make_controller(engine, forms=FakeForms(), approvals=approvals, router=ProposeStamp())
    ctl.start()
    try:
        ctl.handle_message(ASK_PREFIX + "stamp it")
        qtbot.waitUntil(lambda: len(approvals.seen) == 1, timeout=5_000)
        assert approvals.seen[0].ref == "writer.stamp" and not approvals.seen[0].own_run
        assert marks(marker) == []
    finally:
        ctl.shutdown()
        ctl.deleteLater()
