"""One recognizer for the bundled tools, shared by the module (building it takes a second)."""

from __future__ import annotations

import pytest

from gibberish.engine.core import Engine, EngineOptions
from gibberish.voice import VoiceConfig, spoken


@pytest.fixture(scope="module")
def engine() -> Engine:
    return Engine(EngineOptions(include_user=False))


@pytest.fixture(scope="module")
def catalog(engine: Engine):
    return engine.feed.catalog(None)


@pytest.fixture(scope="module")
def service(engine: Engine, catalog):
    svc = spoken.voice_service(engine)
    svc.recognizer(svc.grammar(catalog), VoiceConfig())
    return svc
