"""The decision table of docs/adr/0010-trust-table.md, cell by cell."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish.skills.model import SkillDefinition, ToolDefinition, Trust
from gibberish.trust.decision import ChangedFiles, DecisionKind
from gibberish.trust.policy import UNTRUSTED_BANNER, ApprovalState, ToolPolicy, decide

READ_ONLY = "read_only"
OTHERWISE = "otherwise"
ALWAYS_ASK = "always_ask"

APPROVED = ApprovalState(approved=True)
NEVER_APPROVED = ApprovalState(approved=False)
CHANGED = ApprovalState(approved=False, changed_files=ChangedFiles(modified=("scripts/run.sh",)))


def policy(trust: Trust, column: str) -> ToolPolicy:
    return ToolPolicy(
        name="status",
        skill="git",
        read_only=column == READ_ONLY,
        always_ask=column == ALWAYS_ASK,
        network=False,
        trust=trust,
        source="/skills/git",
    )


# (trust, approval, column) -> (kind, first_run, banner?)
TABLE = [
    (Trust.BUNDLED, NEVER_APPROVED, READ_ONLY, DecisionKind.RUN, False, False),
    (Trust.BUNDLED, NEVER_APPROVED, OTHERWISE, DecisionKind.ASK, False, False),
    (Trust.BUNDLED, NEVER_APPROVED, ALWAYS_ASK, DecisionKind.ASK, False, False),
    (Trust.USER, APPROVED, READ_ONLY, DecisionKind.RUN, False, False),
    (Trust.USER, APPROVED, OTHERWISE, DecisionKind.ASK, False, False),
    (Trust.USER, APPROVED, ALWAYS_ASK, DecisionKind.ASK, False, False),
    (Trust.USER, NEVER_APPROVED, READ_ONLY, DecisionKind.ASK, True, False),
    (Trust.USER, NEVER_APPROVED, OTHERWISE, DecisionKind.ASK, True, False),
    (Trust.USER, NEVER_APPROVED, ALWAYS_ASK, DecisionKind.ASK, True, False),
    (Trust.USER, CHANGED, READ_ONLY, DecisionKind.ASK, True, False),
    (Trust.USER, CHANGED, OTHERWISE, DecisionKind.ASK, True, False),
    (Trust.USER, CHANGED, ALWAYS_ASK, DecisionKind.ASK, True, False),
    (Trust.UNTRUSTED, NEVER_APPROVED, READ_ONLY, DecisionKind.ASK, False, True),
    (Trust.UNTRUSTED, NEVER_APPROVED, OTHERWISE, DecisionKind.ASK, False, True),
    (Trust.UNTRUSTED, NEVER_APPROVED, ALWAYS_ASK, DecisionKind.ASK, False, True),
    (Trust.UNTRUSTED, APPROVED, READ_ONLY, DecisionKind.ASK, False, True),
    (Trust.UNTRUSTED, APPROVED, OTHERWISE, DecisionKind.ASK, False, True),
    (Trust.UNTRUSTED, APPROVED, ALWAYS_ASK, DecisionKind.ASK, False, True),
]


@pytest.mark.parametrize(("trust", "approval", "column", "kind", "first_run", "banner"), TABLE)
def test_decision_table_cell(trust, approval, column, kind, first_run, banner) -> None:
    decision = decide(policy(trust, column), approval)
    assert decision.kind is kind
    assert decision.first_run is first_run
    assert decision.can_always_allow is first_run
    assert (decision.banner == UNTRUSTED_BANNER) is banner
    assert decision.reason.endswith(".")
    assert "git" in decision.reason
    assert not decision.refused


def test_both_read_only_and_always_ask_falls_in_the_always_ask_column() -> None:
    p = ToolPolicy("status", "git", True, True, False, Trust.BUNDLED, "/skills/git")
    assert decide(p, APPROVED).asks
    assert decide(p, APPROVED).reason == decide(policy(Trust.BUNDLED, ALWAYS_ASK), APPROVED).reason


def test_approval_state_is_ignored_for_bundled_skills() -> None:
    for approval in (APPROVED, NEVER_APPROVED, CHANGED):
        assert decide(policy(Trust.BUNDLED, READ_ONLY), approval).runs


def test_changed_files_are_passed_to_the_dialog_only_when_an_older_approval_existed() -> None:
    changed = decide(policy(Trust.USER, READ_ONLY), CHANGED)
    assert changed.changed_files == CHANGED.changed_files
    assert "changed since you approved it (1 file)" in changed.reason
    never = decide(policy(Trust.USER, READ_ONLY), NEVER_APPROVED)
    assert never.changed_files is None
    assert "not approved" in never.reason


def test_untrusted_skill_shows_what_changed_when_known() -> None:
    decision = decide(policy(Trust.UNTRUSTED, OTHERWISE), CHANGED)
    assert decision.changed_files == CHANGED.changed_files
    assert decision.banner


def test_reasons_are_sentences_for_people() -> None:
    reasons = {
        decide(policy(trust, column), approval).reason for trust, approval, column, *_ in TABLE
    }
    for reason in reasons:
        assert reason[0].isupper() or reason[0] in "“"
        assert "_" not in reason.replace("status", "")  # no identifiers like read_only
        assert "Trust." not in reason and "None" not in reason


def test_for_tool_reads_the_skill_flags(tmp_path: Path) -> None:
    skill = SkillDefinition(
        name="git",
        source_path=tmp_path / "git" / "SKILL.md",
        read_only=True,
        always_ask=False,
        network=True,
        trust=Trust.UNTRUSTED,
        tools=(ToolDefinition("status", "Show status."),),
    )
    p = ToolPolicy.for_tool(skill, skill.tools[0])
    assert p == ToolPolicy(
        name="status",
        skill="git",
        read_only=True,
        always_ask=False,
        network=True,
        trust=Trust.UNTRUSTED,
        source=str(tmp_path / "git"),
    )
