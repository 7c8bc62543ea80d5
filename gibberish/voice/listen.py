"""From an audio source to one utterance, decoded while it is spoken.

PocketSphinx's ``Endpointer`` (voice activity detection over a sliding window) finds where
speech starts and stops; speech frames go to the recognizer as they arrive. The capture
ends at the first end of speech (so push-to-talk needs no precise release) or when the
source runs out (the key was released, the file ended); in toggle mode only the latter.
A key held down through the desktop portal (``cut_off``) also keeps listening across
pauses until it is released, but a silence of ``cut_off`` seconds still ends the
recording, in case the release never arrives.
"""

from __future__ import annotations

from typing import Any, Protocol

from gibberish.voice.audio import SAMPLE_RATE, SAMPLE_WIDTH, AudioSource
from gibberish.voice.errors import VoiceError
from gibberish.voice.heard import Heard

ENDPOINT_WINDOW = 0.3
"""Seconds of non-speech that end an utterance (and of speech that starts one)."""


class StreamingRecognizer(Protocol):
    backend: str

    def start(self) -> None: ...
    def feed(self, pcm: bytes) -> None: ...
    def finish(self) -> Heard: ...


def _endpointer(window: float) -> Any:
    from pocketsphinx import Endpointer, Vad

    return Endpointer(window=window, ratio=0.9, vad_mode=Vad.LOOSE, sample_rate=SAMPLE_RATE)


def capture(
    source: AudioSource,
    recognizer: StreamingRecognizer,
    *,
    window: float = ENDPOINT_WINDOW,
    until_stopped: bool = False,
    cut_off: float | None = None,
) -> Heard:
    """Listen on ``source`` until the end of the first utterance (or, ``until_stopped``,
    until the source ends: toggle mode, pauses included); raise when no speech is heard."""
    endpointer = _endpointer(window)
    size = endpointer.frame_bytes
    total = 0
    quiet = 0  # bytes of non-speech since the last speech
    limit = None if cut_off is None else int(cut_off * SAMPLE_RATE * SAMPLE_WIDTH)
    speaking = False
    ended = False
    for frame in source.frames(size):
        total += len(frame)
        if len(frame) < size:  # the last, short frame
            speech = endpointer.end_stream(frame) if endpointer.in_speech else None
            ended = True
        else:
            speech = endpointer.process(frame)
        if speech is not None:
            if not speaking:
                recognizer.start()
                speaking = True
            recognizer.feed(speech)
        if speaking and not endpointer.in_speech:
            quiet += len(frame)
            if not until_stopped or (limit is not None and quiet >= limit):
                break
        else:
            quiet = 0
    if speaking and not ended and endpointer.in_speech:
        leftover = endpointer.end_stream(b"")
        if leftover:
            recognizer.feed(leftover)
    if total == 0:
        raise VoiceError(f"The recording from {source.description} is empty (no audio).")
    if not speaking:
        seconds = total / (SAMPLE_RATE * SAMPLE_WIDTH)
        raise VoiceError(f"No speech heard in {seconds:.1f} s of audio from {source.description}.")
    return recognizer.finish()
