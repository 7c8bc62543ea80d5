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

from collections.abc import Iterator
from typing import Any, Protocol

from gibberish.assistant.heard import Heard
from gibberish.voice.audio import SAMPLE_RATE, SAMPLE_WIDTH, AudioSource
from gibberish.voice.errors import VoiceError
from gibberish.voice.lead_in import LeadIn

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


def _frames(chunks: Iterator[bytes], size: int) -> Iterator[tuple[bytes, bool]]:
    """The source's audio cut into ``size``-byte frames, each with whether it is the last.

    A source may hand over chunks of any length (a device's blocks, a file's tail, half
    a sample at the end); the endpointer takes only whole frames, and the final one,
    whatever its length, through ``end_stream``."""
    pending = b""
    previous: bytes | None = None
    for chunk in chunks:
        pending += chunk
        while len(pending) >= size:
            if previous is not None:
                yield previous, False
            previous, pending = pending[:size], pending[size:]
    tail = pending[: len(pending) - len(pending) % SAMPLE_WIDTH]
    if previous is not None:
        yield previous, not tail
    if tail:
        yield tail, True


def _speech(endpointer: Any, frame: bytes, last: bool) -> bytes:
    """The speech the endpointer releases for ``frame``; at the end of the source, all it
    still holds (``end_stream`` must never be given an empty buffer: PocketSphinx raises
    ``IndexError`` on one)."""
    speech = b""
    if len(frame) == endpointer.frame_bytes and not (last and endpointer.in_speech):
        speech = endpointer.process(frame) or b""
        frame = b""
    if last and endpointer.in_speech:
        speech += endpointer.end_stream(frame or bytes(SAMPLE_WIDTH)) or b""
    return speech


def capture(
    source: AudioSource,
    recognizer: StreamingRecognizer,
    *,
    window: float = ENDPOINT_WINDOW,
    until_stopped: bool = False,
    cut_off: float | None = None,
) -> Heard:
    """Listen on ``source`` until the end of the first utterance (or, ``until_stopped``,
    until the source ends: toggle mode, pauses included); raise when no speech is heard.

    Any number of bytes is valid input: the last frame, whatever its length, closes the
    endpointer's stream, and the recognizer is never fed an empty buffer (PocketSphinx
    raises ``IndexError`` on both an empty final frame and an empty feed). ``cut_off``
    (seconds of non-speech) ends a held key's recording whose release never comes."""
    endpointer = _endpointer(window)
    lead_in = LeadIn(endpointer.frame_bytes, window)
    total = 0
    quiet = 0  # bytes of non-speech since the last speech
    limit = None if cut_off is None else int(cut_off * SAMPLE_RATE * SAMPLE_WIDTH)
    speaking = False
    for frame, last in _frames(source.frames(endpointer.frame_bytes), endpointer.frame_bytes):
        total += len(frame)
        lead_in.add(frame)
        was_speech = endpointer.in_speech
        speech = _speech(endpointer, frame, last)
        if speech:
            if was_speech:
                speech = lead_in.released(speech)
            else:  # a region of speech begins: give the recognizer what led up to it
                speech = lead_in.start(endpointer.speech_start, speech)
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
    if total == 0:
        raise VoiceError(f"The recording from {source.description} is empty (no audio).")
    if not speaking:
        seconds = total / (SAMPLE_RATE * SAMPLE_WIDTH)
        raise VoiceError(f"No speech heard in {seconds:.1f} s of audio from {source.description}.")
    return recognizer.finish()
