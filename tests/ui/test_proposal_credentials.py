"""In the tray, a model's or the voice's proposal is a model-started run: it cannot read
credentials and asks before reading outside the project; a click reads what it names."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish.engine.core import Engine, EngineOptions
from gibberish.engine.run_flow import Answer
from tests.helpers.credentials import plant
from tests.ui.conftest import FakeApprovals, FakeForms, make_controller


@pytest.fixture
def tray(qtbot, tmp_path: Path, monkeypatch):
    planted = plant(tmp_path)
    monkeypatch.chdir(planted.project)
    approvals, forms = FakeApprovals(Answer.ONCE), FakeForms()
    ctl = make_controller(
        Engine(EngineOptions(include_user=False)), forms=forms, approvals=approvals
    )
    ctl.start()
    yield ctl, approvals, planted
    ctl.shutdown()
    ctl.deleteLater()


def test_a_proposal_naming_a_key_is_refused_even_when_the_person_says_yes(tray) -> None:
    controller, approvals, planted = tray
    key = str(planted.files["ssh"])
    controller.proposals.open_one("files.read_file", {"path": key}, "model", ())
    assert controller.runs.sessions == {}
    [shown] = approvals.seen
    assert shown.decision.refused and "never reads credentials" in shown.decision.reason


def test_the_same_path_clicked_by_the_person_runs(tray, qtbot) -> None:
    controller, _, planted = tray
    session = controller.launch("files.read_file", {"path": str(planted.files["ssh"])})
    assert session is not None
    qtbot.waitUntil(lambda: session.result is not None, timeout=10_000)
    assert planted.canaries["ssh"] in session.result.envelope.output
