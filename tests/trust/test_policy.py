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

BUNDLED, USER, INSTALLED, PROJECT = "bundled", "user", "installed", "project"


def policy(kind: str, column: str, *, enforced: bool = True) -> ToolPolicy:
    trust = {BUNDLED: Trust.BUNDLED, USER: Trust.USER}.get(kind, Trust.UNTRUSTED)
    return ToolPolicy(
        name="git_status",
        skill="git",
        read_only=column == READ_ONLY,
        always_ask=column == ALWAYS_ASK,
        network=False,
        trust=trust,
        source="/skills/git",
        read_only_enforced=enforced,
        project="/work/clone" if kind == PROJECT else None,
    )


# The table of docs/adr/0057, one row per trust and approval; the columns are
# own run read_only, own run otherwise, model read_only, model otherwise, always_ask
# (the last for both). R runs, A asks, F asks as a first run (offers Trust this
# version), W is F with the warning of a skill from outside, P asks with the warning of
# an untrusted project folder and never offers to trust the version.
COLUMNS = [(True, READ_ONLY), (True, OTHERWISE), (False, READ_ONLY), (False, OTHERWISE)]
TABLE = {
    (BUNDLED, "never"): "R R R A A",
    (USER, "approved"): "R R R A A",
    (USER, "never"): "F F F F F",
    (USER, "changed"): "F F F F F",
    (INSTALLED, "approved"): "R R R A A",
    (INSTALLED, "never"): "W W W W W",
    (INSTALLED, "changed"): "W W W W W",
    (PROJECT, "approved"): "P P P P P",
    (PROJECT, "never"): "P P P P P",
}
WITHOUT_SANDBOX = {  # read_only is only the author's word: it earns a model's run nothing
    (BUNDLED, "never"): "R R R A A",
    (USER, "approved"): "R R A A A",
    (INSTALLED, "approved"): "R R A A A",
    (USER, "never"): "F F F F F",
    (INSTALLED, "never"): "W W W W W",
}
STATES = {"approved": APPROVED, "never": NEVER_APPROVED, "changed": CHANGED}


def _cells(table: dict, enforced: bool):
    for (kind, state), row in table.items():
        letters = row.split()
        for (own, column), letter in zip(COLUMNS, letters, strict=False):
            yield kind, state, column, own, enforced, letter
        for own in (True, False):
            yield kind, state, ALWAYS_ASK, own, enforced, letters[4]


CELLS = [*_cells(TABLE, True), *_cells(WITHOUT_SANDBOX, False)]


@pytest.mark.parametrize(("kind", "state", "column", "own", "enforced", "letter"), CELLS)
def test_decision_table_cell(kind, state, column, own, enforced, letter) -> None:
    decision = decide(policy(kind, column, enforced=enforced), STATES[state], own_run=own)
    assert decision.kind is (DecisionKind.RUN if letter == "R" else DecisionKind.ASK)
    assert decision.first_run is (letter in "FW")
    assert decision.can_always_allow is (letter in "FW")
    assert (decision.banner == UNTRUSTED_BANNER) is (letter == "W")
    assert (decision.banner is not None and "/work/clone" in decision.banner) is (letter == "P")
    assert decision.reason.endswith(".")
    assert "Git" in decision.reason  # the skill's title, or the tool's (“Git status”)
    assert "git_status" not in decision.reason  # the tool's id: only in the Details
    assert not decision.refused
    if decision.asks:
        assert decision.asks_again.endswith(".")


def test_the_default_is_the_stricter_column_of_a_run_a_model_started() -> None:
    """A caller that does not say the person started the run gets the model's rule."""
    assert decide(policy(USER, OTHERWISE), APPROVED).asks
    assert decide(policy(BUNDLED, OTHERWISE), NEVER_APPROVED).asks


def test_trusting_settles_a_first_run_only_where_the_trusted_version_would_run() -> None:
    """``runs_once_trusted`` is what lets a message suggest ``approvals approve``."""
    assert decide(policy(INSTALLED, READ_ONLY), NEVER_APPROVED).runs_once_trusted
    assert not decide(policy(INSTALLED, OTHERWISE), NEVER_APPROVED).runs_once_trusted
    assert decide(policy(INSTALLED, OTHERWISE), NEVER_APPROVED, own_run=True).runs_once_trusted
    assert not decide(policy(USER, ALWAYS_ASK), NEVER_APPROVED, own_run=True).runs_once_trusted
    assert not decide(policy(PROJECT, READ_ONLY), NEVER_APPROVED).runs_once_trusted


def test_both_read_only_and_always_ask_falls_in_the_always_ask_column() -> None:
    p = ToolPolicy("status", "git", True, True, False, Trust.BUNDLED, "/skills/git")
    for own in (True, False):
        assert decide(p, APPROVED, own_run=own).asks
        assert (
            decide(p, APPROVED, own_run=own).reason
            == decide(policy(BUNDLED, ALWAYS_ASK), APPROVED).reason
        )


def test_approval_state_is_ignored_for_bundled_skills() -> None:
    for approval in (APPROVED, NEVER_APPROVED, CHANGED):
        assert decide(policy(BUNDLED, READ_ONLY), approval).runs
        assert decide(policy(BUNDLED, OTHERWISE), approval, own_run=True).runs


def test_changed_files_are_passed_to_the_dialog_only_when_an_older_approval_existed() -> None:
    changed = decide(policy(USER, READ_ONLY), CHANGED)
    assert changed.changed_files == CHANGED.changed_files
    assert "changed since you trusted it (1 file)" in changed.reason
    never = decide(policy(USER, READ_ONLY), NEVER_APPROVED)
    assert never.changed_files is None
    assert "not approved" in never.reason


def test_an_updated_installed_skill_asks_again_with_what_changed_and_its_warning() -> None:
    for own in (True, False):
        decision = decide(policy(INSTALLED, OTHERWISE), CHANGED, own_run=own)
        assert decision.changed_files == CHANGED.changed_files
        assert decision.banner == UNTRUSTED_BANNER and decision.can_always_allow
    project = decide(policy(PROJECT, OTHERWISE), CHANGED, own_run=True)
    assert project.changed_files == CHANGED.changed_files and not project.can_always_allow


def test_reasons_are_sentences_for_people() -> None:
    reasons = {
        decide(policy(kind, column, enforced=enforced), STATES[state], own_run=own).reason
        for kind, state, column, own, enforced, _ in CELLS
    }
    for reason in reasons:
        assert reason[0].isupper() or reason[0] in "“"
        assert "_" not in reason  # no identifiers like read_only or the tool's git_status
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
