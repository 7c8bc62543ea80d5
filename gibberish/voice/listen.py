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

from gibberish.voice.audio import SAMPLE_RATE, SAMPLE_WIDTH, AudioSource
from gibberish.voice.errors import VoiceError
from gibberish.voice.heard import Heard

ENDPOINT_WINDOW = 0.3
"""Seconds of non-speech that end an utterance (and of speech that starts one)."""
PRE_ROLL = 1.0
"""Seconds of audio before the endpointer's start of speech that the recognizer is fed
too. The endpointer declares speech once nine tenths of its window are speech, so short
syllables split by stops lie before the start it reports: espeak-ng's "list this folder"
said from the key press was released from 0.63 s on, without "list this", and sounded
like no phrase. The silence this also feeds before most speech costs a little decoding,
and the recognizer has a model for it."""


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


class _History:
    """The last few frames read, so the speech can be given what came just before it."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self.data = bytearray()
        self.start = 0
        """Offset in the stream (bytes) of ``data[0]``."""
        self.fed = 0
        """Offset up to which the recognizer has had the stream (nothing is fed twice)."""

    def add(self, frame: bytes) -> None:
        self.data += frame
        extra = len(self.data) - self.keep
        if extra > 0:
            del self.data[:extra]
            self.start += extra

    def pre_roll(self, speech_start: float, speech: bytes) -> bytes:
        """``speech`` (released from ``speech_start`` seconds on) with up to ``PRE_ROLL``
        seconds of the audio before it."""
        begin = round(speech_start * SAMPLE_RATE) * SAMPLE_WIDTH
        low = max(begin - int(PRE_ROLL * SAMPLE_RATE) * SAMPLE_WIDTH, self.fed, self.start)
        before = bytes(self.data[low - self.start : max(low, begin) - self.start])
        self.fed = begin + len(speech)
        return before + speech

    def released(self, speech: bytes) -> bytes:
        self.fed += len(speech)
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
    history = _History(
        int((window + PRE_ROLL) * SAMPLE_RATE) * SAMPLE_WIDTH + 4 * endpointer.frame_bytes
    )
    total = 0
    quiet = 0  # bytes of non-speech since the last speech
    limit = None if cut_off is None else int(cut_off * SAMPLE_RATE * SAMPLE_WIDTH)
    speaking = False
    for frame, last in _frames(source.frames(endpointer.frame_bytes), endpointer.frame_bytes):
        total += len(frame)
        history.add(frame)
        was_speech = endpointer.in_speech
        speech = _speech(endpointer, frame, last)
        if speech:
            if was_speech:
                speech = history.released(speech)
            else:  # a region of speech begins: give the recognizer what led up to it
                speech = history.pre_roll(endpointer.speech_start, speech)
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
