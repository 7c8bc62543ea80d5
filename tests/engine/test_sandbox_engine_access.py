"""The Engine hands the sandbox what the skill declares and who started the run."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish.engine.core import Engine, EngineOptions
from gibberish.runner import sandbox
from gibberish.trust.model_reads import RunOrigin
from tests.helpers.credentials import plant
from tests.skills.fixtures.skillkit import make_skill


@pytest.mark.parametrize("gui", [True, False])
def test_a_gui_skill_gets_the_display_in_its_sandbox(root: Path, gui: bool) -> None:
    make_skill(root, "viewer", extra=f"read_only: true\ngui: {str(gui).lower()}")
    engine = Engine(EngineOptions(extra_skills_dirs=(root,), include_bundled=False))
    engine.trust.approve_skill_by_name("viewer")
    spec = engine.runs.run_spec(engine.runs.prepare("viewer.hello"))
    try:
        assert spec.sandbox is not None and spec.sandbox.gui is gui
        assert spec.sandbox.blocks_unix_sockets is not gui  # offline: the filter, unless gui
    finally:
        sandbox.remove_snapshot(spec.sandbox)


def test_only_a_model_started_run_has_credential_places_hidden(root: Path, tmp_path: Path) -> None:
    planted = plant(tmp_path)
    make_skill(root, "reader", extra="read_only: true\ncredentials: [~/.kube]")
    engine = Engine(EngineOptions(extra_skills_dirs=(root,), include_bundled=False))
    engine.trust.approve_skill_by_name("reader")
    person = engine.runs.prepare("reader.hello", context_dir=planted.project)
    model = engine.runs.prepare("reader.hello", context_dir=planted.project, origin=RunOrigin.MODEL)
    assert person.hidden == ()
    hidden = set(model.hidden)
    assert str(planted.files["ssh"].parent) in hidden and str(planted.files["dotenv"]) in hidden
    assert str(planted.files["kube"].parent) not in hidden  # declared and approved
    spec = engine.runs.run_spec(model)
    try:
        assert spec.sandbox is not None and set(spec.sandbox.hidden) == hidden
    finally:
        sandbox.remove_snapshot(spec.sandbox)
