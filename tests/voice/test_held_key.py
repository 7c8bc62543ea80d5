"""A key held through the portal: pauses do not end the recording, its release does, and
a long silence still does when the release never comes (``HELD_CUT_OFF``)."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

from gibberish.engine.core import Engine, EngineOptions
from gibberish.voice import spoken
from gibberish.voice.audio import SAMPLE_RATE, SAMPLE_WIDTH, read_wav
from gibberish.voice.spoken import HELD_CUT_OFF
from tests.voice.corpus import IN_GRAMMAR, fixture


class OpenMicrophone:
    """Speech from a WAV, then silence for as long as it is not stopped (a live microphone)."""

    description = "open microphone (WAV, then silence)"

    def __init__(self, path, silence_limit: float = 20.0) -> None:
        self._data = read_wav(path)
        self._limit = int(silence_limit * SAMPLE_RATE * SAMPLE_WIDTH)
        self.stopped = threading.Event()
        self.silence_read = 0

    def stop(self) -> None:
        self.stopped.set()

    def frames(self, size: int) -> Iterator[bytes]:
        for start in range(0, len(self._data), size):
            yield self._data[start : start + size]
        while not self.stopped.is_set() and self.silence_read < self._limit:
            self.silence_read += size
            yield b"\0" * size


def test_a_held_key_whose_release_never_comes_ends_after_the_cut_off() -> None:
    mic = OpenMicrophone(fixture(IN_GRAMMAR[0], "slt"))
    engine = Engine(EngineOptions(include_user=False))
    began = time.monotonic()
    proposal = spoken.listen(engine, mic, held=True)
    assert proposal.call is not None and proposal.call.name == "git_status"
    assert not mic.stopped.is_set()  # nobody released: the silence ended it
    seconds = mic.silence_read / (SAMPLE_RATE * SAMPLE_WIDTH)
    assert HELD_CUT_OFF - 0.5 <= seconds <= HELD_CUT_OFF + 0.5
    assert time.monotonic() - began < 60


def test_without_holding_the_end_of_speech_ends_it_at_once() -> None:
    mic = OpenMicrophone(fixture(IN_GRAMMAR[0], "slt"))
    engine = Engine(EngineOptions(include_user=False))
    proposal = spoken.listen(engine, mic)
    assert proposal.call is not None and proposal.call.name == "git_status"
    assert mic.silence_read / (SAMPLE_RATE * SAMPLE_WIDTH) < 0.5
