"""The Qt-free flow the tray and the CLI share: launch → decide → approve, and what it says.

The prompts and the notifier are injected recorders; the Engine, the skills and the
approval store are real.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from msgspec.structs import replace

from gibberish.engine.core import Engine
from gibberish.engine.run_flow import Answer, Notice, Session, authorize, never_approved
from gibberish.trust.decision import Decision
from tests.helpers.sandbox import requires_sandbox
from tests.skills.fixtures.skillkit import make_skill, param_table, tool_block


class Prompts:
    """Answers the form with ``values`` (None: cancel) and approvals with ``answer``."""

    def __init__(self, values: dict[str, Any] | None = None, answer: Answer = Answer.ONCE):
        self.values, self.answer = values, answer
        self.forms: list[str] = []
        self.approvals: list[str] = []

    def ask(self, *args: Any, **kwargs: Any) -> Any:
        if len(args) >= 3:  # skill, tool, render, …: the form
            self.forms.append(f"{args[0].name}.{args[1].name}")
            return None if self.values is None else dict(self.values)
        self.approvals.append(args[0].ref)
        return self.answer


@pytest.fixture
def root(tmp_path: Path) -> Path:
    make_skill(
        tmp_path,
        "echoer",
        tools=[
            tool_block("hi", "Say hi.", "echo hi"),
            tool_block(
                "say", "Say it.", "echo {{words}}", param_table([("words", "string", "yes", "w")])
            ),
        ],
        extra="read_only: true",
    )
    return tmp_path


def session(engine: Engine, prompts: Prompts, notices: list[Notice]) -> Session:
    return Session(lambda: engine, arguments=prompts, approval=prompts, notify=notices.append)


def test_launch_asks_the_form_then_the_approval_then_is_ready(engine: Engine) -> None:
    prompts, notices = Prompts({"words": "x"}), []
    launched = session(engine, prompts, notices).launch("echoer.say", context=engine.mode_context())
    assert prompts.forms == ["echoer.say"] and prompts.approvals == ["echoer.say"]
    assert launched.prepared is not None and launched.confirmed and not launched.failure
    assert launched.prepared.argv == ("echo", "x")
    assert engine.runs.run(launched.prepared, confirmed=True).envelope.output == "x\n"


@requires_sandbox
def test_a_tool_without_parameters_skips_the_form_and_always_is_remembered(
    engine: Engine,
) -> None:
    prompts = Prompts(answer=Answer.ALWAYS)
    flow = session(engine, prompts, [])
    assert flow.launch("echoer.hi", context=engine.mode_context()).prepared is not None
    assert prompts.forms == []
    again = flow.launch("echoer.hi", context=engine.mode_context())
    assert prompts.approvals == ["echoer.hi"]  # approved and read-only: runs without asking
    assert again.prepared is not None and not again.confirmed


def test_without_a_sandbox_always_is_remembered_and_only_a_models_read_still_asks(
    engine: Engine, no_sandbox
) -> None:
    """Your own Run of the version you trusted runs, sandbox or not; a proposal sent
    straight to run (no form) of the same read-only tool asks, as ``read_only`` is then
    only the author's word."""
    from gibberish.trust.model_reads import RunOrigin

    prompts = Prompts(answer=Answer.ALWAYS)
    flow = session(engine, prompts, [])
    assert flow.launch("echoer.hi", context=engine.mode_context()).prepared is not None
    assert [a.skill for a in engine.trust.approvals.list()] == ["echoer"]
    prompts.answer = Answer.ONCE
    again = flow.launch("echoer.hi", context=engine.mode_context())
    assert prompts.approvals == ["echoer.hi"]
    assert again.prepared is not None and not again.confirmed and again.prepared.own_run
    proposed = flow.launch("echoer.hi", context=engine.mode_context(), origin=RunOrigin.MODEL)
    assert prompts.approvals == ["echoer.hi", "echoer.hi"]
    assert proposed.prepared is not None and proposed.confirmed
    assert "sandbox" in proposed.prepared.decision.reason


def test_cancel_in_the_form_or_the_dialog_prepares_nothing(engine: Engine) -> None:
    context = engine.mode_context()
    assert session(engine, Prompts(None), []).launch("echoer.say", context=context).prepared is None
    declined = session(engine, Prompts(answer=Answer.CANCEL), []).launch(
        "echoer.hi", context=context
    )
    assert declined.prepared is None and declined.failure == ""


def test_unknown_tools_and_bad_values_are_failures_not_exceptions(engine: Engine) -> None:
    context = engine.mode_context()
    flow = session(engine, Prompts({}), [])
    assert "No skill named 'nope'" in flow.launch("nope.x", context=context).failure
    assert "words" in flow.launch("echoer.say", context=context).failure  # required, missing


def test_a_refused_decision_is_shown_and_never_ready(engine: Engine, monkeypatch) -> None:
    original = engine.runs.prepare
    monkeypatch.setattr(
        engine.runs,
        "prepare",
        lambda *a, **k: replace(original(*a, **k), decision=Decision.refuse("Blocked.")),
    )
    prompts = Prompts()
    launched = session(engine, prompts, []).launch("echoer.hi", context=engine.mode_context())
    assert launched.prepared is None and prompts.approvals == ["echoer.hi"]


def test_reload_announces_a_skill_that_broke_and_recovered(engine: Engine, root: Path) -> None:
    notices: list[Notice] = []
    flow = session(engine, Prompts(), notices)
    engine.library.skills()
    skill_md = root / "echoer" / "SKILL.md"
    good = skill_md.read_text()
    skill_md.write_text("---\nname: echoer\n---\n")
    flow.reload()
    assert notices[-1].title == "Skill “echoer” has a problem" and notices[-1].failed
    skill_md.write_text(good)
    flow.reload(manual=True)
    assert [n.title for n in notices[-2:]] == ["Skill “echoer” works again", "Skills reloaded"]


def test_yes_covers_a_confirmation_but_not_what_a_model_chose_unapproved(engine: Engine) -> None:
    prepared = engine.runs.prepare("echoer.hi")
    assert never_approved(prepared)
    asked: list[str] = []

    def ask(p):
        asked.append(p.ref)
        return Answer.CANCEL

    assert authorize(engine, prepared, ask, yes=True).confirmed and asked == []
    verdict = authorize(engine, prepared, ask, yes=True, model_chose=True)
    assert asked == ["echoer.hi"] and verdict.refused == "Not run: you declined."


def test_a_proposal_takes_one_path_each_call_in_order_with_its_note(engine: Engine) -> None:
    from gibberish.assistant.heard import Heard
    from gibberish.assistant.proposal import Proposal, ProposalStatus, proposal_of
    from gibberish.engine.run_flow import prepare_proposed, proposed_runs
    from gibberish.trust.model_reads import RunOrigin

    two = proposal_of("echoer.say", {"words": "x"}, message="first")
    two = replace(two, calls=(*two.calls, proposal_of("echoer.hi").calls[0]), notes=("a", "b"))
    runs = proposed_runs(two)
    assert [(r.ref, dict(r.arguments), r.note) for r in runs] == [
        ("echoer.say", {"words": "x"}, "a"),
        ("echoer.hi", {}, "b"),
    ]
    prepared = prepare_proposed(engine, runs[0])
    assert prepared.argv == ("echo", "x") and prepared.origin is RunOrigin.MODEL
    heard = replace(proposal_of("echoer.hi"), heard=Heard("say hi", 0.9), message="")
    assert proposed_runs(heard)[0].note == "Heard “say hi”"
    unsure = replace(two, status=ProposalStatus.ASK_USER)
    assert proposed_runs(unsure) == () and proposed_runs(Proposal(None, ProposalStatus.ERROR)) == ()
