"""The bundled notes skills, through the Engine as the tray and the CLI use them.

Reading notes never asks (the ``notes`` skill is read-only); writing one (``take-note``)
runs from the person's own run and asks to confirm when a model starts it. Both follow ``XDG_DATA_HOME`` inside the run, as the skills say.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gibberish.app import Engine, EngineOptions
from gibberish.trust.decision import DecisionKind


@pytest.fixture
def engine() -> Engine:
    engine = Engine(EngineOptions(include_user=False))
    yield engine
    engine.runs.cancel_all()


def notes_file() -> Path:
    return Path(os.environ["XDG_DATA_HOME"]) / "gibberish" / "notes.md"


def test_reading_notes_never_asks(engine: Engine) -> None:
    for tool, args in (("notes.read_notes", {}), ("notes.search_notes", {"text": "milk"})):
        prepared = engine.runs.prepare(tool, args)
        assert prepared.decision.kind is DecisionKind.RUN, prepared.decision.reason


def test_writing_a_note_asks_to_confirm_when_a_model_starts_it(engine: Engine) -> None:
    prepared = engine.runs.prepare("take-note.add_note", {"text": "buy milk"})
    assert prepared.decision.kind is not DecisionKind.RUN
    own = engine.runs.prepare("take-note.add_note", {"text": "buy milk"}, own_run=True)
    assert own.decision.kind is DecisionKind.RUN


def test_a_note_lands_under_xdg_data_home_and_reads_back(engine: Engine) -> None:
    added = engine.runs.run(
        engine.runs.prepare("take-note.add_note", {"text": "Buy MILK"}), confirmed=True
    )
    assert added.envelope.success, added.envelope.output
    assert notes_file().read_text().rstrip().endswith("Buy MILK")
    assert not (Path.home() / ".local" / "share" / "gibberish" / "notes.md").exists()

    read = engine.runs.run(engine.runs.prepare("notes.read_notes", {"count": 5}))
    assert read.envelope.success and "Buy MILK" in read.envelope.output

    found = engine.runs.run(engine.runs.prepare("notes.search_notes", {"text": "milk"}))
    assert "Buy MILK" in found.envelope.output
    missing = engine.runs.run(engine.runs.prepare("notes.search_notes", {"text": "bread"}))
    assert "No note contains 'bread'" in missing.envelope.output
