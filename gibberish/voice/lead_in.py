"""The speech the endpointer let go by before it declared speech, found again.

PocketSphinx's endpointer declares speech once nine tenths of its window (0.3 s) are
speech. Speech that begins as the key goes down, in short syllables split by stops
("list | the branches"), is declared only where a whole window was speech, 0.3–0.6 s in,
and the words before that were never decoded. ``LeadIn`` keeps the last frames read with
whether each was voiced, and when speech is declared gives back the voiced stretch just
before it: frames the voice activity detector called speech, with pauses of at most
``MAX_GAP`` between them, back to ``PRE_ROLL`` seconds. Silence before the speech is not
given back: it would change what the decoder hears first, and the decoding of some
voices flips with that (the suite's espeak-ng recordings lost two requests when 0.1 s
of their leading silence was fed too).
"""

from __future__ import annotations

from collections import deque

from gibberish.voice.audio import SAMPLE_RATE, SAMPLE_WIDTH, loudness

PRE_ROLL = 1.0
"""The most seconds of speech before the endpointer's start that are given back."""
MAX_GAP = 0.15
"""The longest pause (seconds) inside that speech: the closure of a stop, not a silence."""
VOICED_FLOOR = 0.001
"""Loudness (RMS of full scale, −60 dBFS) below which a frame is not voice, whatever the
voice activity detector says: its first frames of a stream call even a file's dithered
digital silence (±1 of 32,768) speech."""


def _seconds_to_bytes(seconds: float) -> int:
    return int(seconds * SAMPLE_RATE) * SAMPLE_WIDTH


class LeadIn:
    """Frames read lately, each with whether it was voiced; what was fed, so nothing
    reaches the recognizer twice."""

    def __init__(self, frame_bytes: int, window: float) -> None:
        from pocketsphinx import Vad

        self._vad = Vad(Vad.LOOSE, SAMPLE_RATE)
        self._frame_bytes = frame_bytes
        kept = (_seconds_to_bytes(PRE_ROLL + window) // frame_bytes) + 4
        self._frames: deque[tuple[int, bytes, bool]] = deque(maxlen=kept)
        self._offset = 0
        self.fed = 0
        """Stream offset (bytes) up to which the recognizer has had the audio."""

    def add(self, frame: bytes) -> None:
        voiced = (
            len(frame) == self._frame_bytes
            and loudness(frame) > VOICED_FLOOR
            and self._vad.is_speech(frame)
        )
        self._frames.append((self._offset, frame, voiced))
        self._offset += len(frame)

    def start(self, speech_start: float, speech: bytes) -> bytes:
        """``speech``, released from ``speech_start`` seconds on, with the voiced stretch
        that led up to it."""
        begin = round(speech_start * SAMPLE_RATE) * SAMPLE_WIDTH
        earliest = begin
        floor = max(begin - _seconds_to_bytes(PRE_ROLL), self.fed)
        gap = 0
        for offset, frame, voiced in reversed(self._frames):
            if offset + len(frame) > begin:
                continue
            if offset < floor:
                break
            if voiced:
                earliest, gap = offset, 0
            else:
                gap += len(frame)
                if gap > _seconds_to_bytes(MAX_GAP):
                    break
        before = b"".join(f for o, f, _ in self._frames if earliest <= o and o + len(f) <= begin)
        self.fed = begin + len(speech)
        return before + speech

    def released(self, speech: bytes) -> bytes:
        self.fed += len(speech)
        return speech
