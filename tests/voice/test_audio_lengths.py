"""Every length of audio reaches the decoder as valid buffers (the chunk-boundary crash).

PocketSphinx raises ``IndexError`` when its endpointer's final frame or a decoder's feed is
empty; a recording whose length was an exact multiple of the endpointer's frame, still in
speech at its end, used to end that way. Here every sample count from none to a few
seconds of speech goes through ``capture``, cut into chunks of several sizes.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest

from gibberish.assistant.heard import Heard
from gibberish.voice import VoiceError, WavSource
from gibberish.voice.listen import _endpointer, capture
from tests.voice.corpus import FIXTURES

SPEECH = FIXTURES / "slt-show_the_last_five_commits.wav"
FRAME = _endpointer(0.3).frame_bytes


@dataclass
class BytesSource:
    data: bytes
    chunk: int | None = None
    """Bytes per chunk handed over; None: the size ``capture`` asks for."""
    description: str = "test bytes"

    def frames(self, size: int) -> Iterator[bytes]:
        step = self.chunk or size
        for start in range(0, len(self.data), step):
            yield self.data[start : start + step]


@dataclass
class Recorder:
    """A recognizer that only checks what it is fed."""

    backend: str = "recorder"
    fed: list[bytes] = field(default_factory=list)

    def start(self) -> None:
        self.fed = []

    def feed(self, pcm: bytes) -> None:
        assert pcm, "an empty buffer reached the recognizer"
        assert len(pcm) % 2 == 0, "half a sample reached the recognizer"
        self.fed.append(pcm)

    def finish(self) -> Heard:
        return Heard("x", 1.0, backend=self.backend)


def _outcome(data: bytes, chunk: int | None = None) -> str:
    try:
        capture(BytesSource(data, chunk), Recorder())
    except VoiceError:
        return "no speech"
    return "heard"


@pytest.mark.slow
def test_every_length_up_to_the_whole_utterance_is_captured_without_error() -> None:
    pcm = WavSource(SPEECH)._data
    outcomes = {_outcome(pcm[:n]) for n in range(0, len(pcm) + 1, 2)}
    assert outcomes == {"no speech", "heard"}


@pytest.mark.parametrize("chunk", [1, 3, 7, 500, FRAME - 1, FRAME + 1, 4096])
def test_chunks_of_any_size_and_odd_byte_counts_are_reframed(chunk: int) -> None:
    pcm = WavSource(SPEECH)._data
    for cut in (FRAME * 40, FRAME * 40 + 1, FRAME * 40 + 2, FRAME * 40 - 1, len(pcm) - 1):
        assert _outcome(pcm[:cut], chunk) == "heard"


def test_a_recording_ending_in_speech_on_a_frame_boundary_decodes(service, catalog) -> None:
    """The crash itself, through the real decoder: speech cut mid-word, length a whole
    number of endpointer frames (and one sample either side)."""
    from gibberish.voice import VoiceConfig

    pcm = WavSource(SPEECH)._data
    recognizer = service.recognizer(service.grammar(catalog), VoiceConfig())
    for cut in (FRAME * 40, FRAME * 40 + 2, FRAME * 40 - 2, FRAME, 2):
        try:
            heard = capture(BytesSource(pcm[:cut]), recognizer)
        except VoiceError as exc:
            assert "No speech heard" in str(exc)
            continue
        assert isinstance(heard, Heard)


def test_the_decoder_takes_any_buffer_length(service, catalog) -> None:
    from gibberish.voice import VoiceConfig

    recognizer = service.recognizer(service.grammar(catalog), VoiceConfig())
    for pcm in (b"", b"\0\0", bytes(FRAME), bytes(FRAME + 2)):
        heard = recognizer.decode(pcm)
        assert heard.rejected or heard.text


def test_an_utterance_abandoned_half_way_does_not_block_the_next(service, catalog) -> None:
    """A source that fails mid-utterance (a device unplugged) leaves the decoder open."""
    from gibberish.voice import VoiceConfig

    recognizer = service.recognizer(service.grammar(catalog), VoiceConfig())
    recognizer.start()
    recognizer.feed(bytes(FRAME))
    heard = recognizer.decode(WavSource(SPEECH)._data)
    assert heard.text == "show the last five commits"


ONSETS = sorted(FIXTURES.glob("onset-*.wav"))
"""espeak-ng's suite voice, untrimmed, speech from the first sample (a person who starts
talking as the key goes down): ``espeak-ng -v en-us -s 150 -w raw.wav "list the branches"``,
then ``sox raw.wav -r 16000 -c 1 -b 16 onset-espeak-list_the_branches.wav``."""


def _fed(data: bytes) -> bytes:
    recorder = Recorder()
    capture(BytesSource(data), recorder, until_stopped=True)
    return b"".join(recorder.fed)


@pytest.mark.parametrize("path", ONSETS, ids=lambda p: p.stem)
def test_speech_from_the_first_sample_reaches_the_recognizer_whole(path) -> None:
    """The endpointer declares speech once nine tenths of its window are speech: "list",
    a short syllable and the closure of its "t", lies before the start it reports, and
    the lead-in feeds it too."""
    data = WavSource(path)._data
    fed = _fed(data)
    assert fed == data[: len(fed)]  # from the first sample, in order, nothing twice


@pytest.mark.parametrize("path", ONSETS, ids=lambda p: p.stem)
def test_speech_from_the_first_sample_is_recognized(path, service, catalog) -> None:
    from gibberish.voice import VoiceConfig

    tool = {"list_the_branches": "git_branches", "list_this_folder": "list_folder"}
    proposal = service.listen(WavSource(path), catalog, VoiceConfig())
    assert proposal.call is not None, proposal.message
    assert proposal.call.name == tool[path.stem.split("-", 2)[2]]


def test_the_silence_before_speech_is_not_fed() -> None:
    """Only voiced audio is given back: the fixture's 0.25 s of (dithered) silence before
    its speech stays out, as it did before the lead-in (feeding it changed how the
    suite's espeak-ng recordings decode)."""
    for voice in ("slt", "espeak"):
        data = WavSource(FIXTURES / f"{voice}-show_the_last_five_commits.wav")._data
        fed = _fed(data)
        assert fed in data
        assert data.index(fed) >= int(0.2 * 16000) * 2, voice


def test_two_regions_of_speech_are_each_fed_once() -> None:
    """Toggle mode: the lead-in given to a second region of speech never repeats audio
    the recognizer already had, and a long pause is not fed whole."""
    onset = WavSource(ONSETS[0])._data
    data = _silence(0.5) + onset + _silence(2.5) + onset
    fed = _fed(data + _silence(0.6))
    assert fed.count(onset[:9600]) == 2
    assert len(fed) < len(data) - 16000


def _silence(seconds: float) -> bytes:
    return bytes(int(seconds * 16000) * 2)
