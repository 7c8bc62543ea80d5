"""Real exchanges, replayed: gibberish sends the recorded bytes and reads the real replies.

Each cassette under ``cassettes/`` was recorded from a real model server by
scripts/record-cassettes.py (its ``meta`` says which server, model and build). Replaying it
checks two things no fake server can: the request gibberish builds today is byte for byte
the one the real server answered, and the real server's streamed bytes read back to the
outcome seen when recording.
"""

from __future__ import annotations

import json

import pytest

from tests.assistant.cassette import Cassette, RecordingProxy, ReplayServer
from tests.assistant.scenarios import CASSETTES, SCENARIOS, run

RECORDED = sorted(CASSETTES.glob("*.json"))


def test_there_are_cassettes_for_every_scenario():
    names = {p.stem for p in RECORDED}
    missing = [s.name for s in SCENARIOS if s.name not in names]
    assert not missing, f"no cassette for {missing}: run scripts/record-cassettes.py"


@pytest.mark.parametrize("path", RECORDED, ids=[p.stem for p in RECORDED])
def test_replay(path):
    cassette = Cassette.load(path)
    scenario = next(s for s in SCENARIOS if s.name == path.stem)
    with ReplayServer(cassette) as server:
        outcome = run(scenario, server.url, cassette.meta["model"])
    assert server.mismatches == []
    assert server.served == len(cassette.exchanges)
    assert json.loads(json.dumps(outcome)) == cassette.meta["outcome"]


def test_a_changed_request_is_caught(tmp_path):
    """Replaying with a different request must fail loudly, or replay proves nothing."""
    path = RECORDED[0]
    cassette = Cassette.load(path)
    first = cassette.exchanges[0]
    first.request_body = first.request_body.replace(b'"stream"', b'"strean"', 1)
    scenario = next(s for s in SCENARIOS if s.name == path.stem)
    with ReplayServer(cassette) as server:
        outcome = run(scenario, server.url, cassette.meta["model"])
    assert server.mismatches and "differs from the recording at byte" in server.mismatches[0]
    assert outcome != cassette.meta["outcome"]


def test_record_then_replay_round_trip(model_server, tmp_path):
    """The recorder relays and keeps a streamed exchange; the replay gives the same outcome."""
    from gibberish.assistant.clients import Api
    from tests.assistant.fakeserver import Text
    from tests.assistant.scenarios import Scenario

    scenario = Scenario("fake", Api.OPENAI, "show me the last 5 commits")
    call = "<start_function_call>call:git_log{count:5}<end_function_call>"
    model_server.queue(Text(call, chunk=8, delay=0.01))
    with RecordingProxy(model_server.url) as proxy:
        recorded = run(scenario, proxy.url, "functiongemma")
    assert recorded["calls"] == [["git_log", {"count": 5}]]
    cassette = proxy.cassette
    cassette.meta = {"model": "functiongemma", "outcome": recorded}
    cassette.save(tmp_path / "fake.json")
    loaded = Cassette.load(tmp_path / "fake.json")
    assert len(loaded.exchanges[0].chunks) > 1  # streamed: kept chunk by chunk
    assert loaded.exchanges[0].request_body == model_server.raw_bodies[0]
    with ReplayServer(loaded) as server:
        replayed = run(scenario, server.url, "functiongemma")
    assert server.mismatches == [] and replayed == recorded
