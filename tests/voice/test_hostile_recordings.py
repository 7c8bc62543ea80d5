"""Recordings of any length, rate, width and channel count, and broken ones: each gives
audio or a ``VoiceError`` sentence, never another exception.

Hypothesis writes WAV files with libsndfile (plain and WAVE_FORMAT_EXTENSIBLE headers;
8/16/24/32-bit integer, 32/64-bit float; a spoken request or tone bursts), then truncates them, flips header bytes, or
replaces them with noise. Each goes through ``WavSource`` and ``capture``; a smaller set
goes through the Engine with the real recognizer, as ``gibberish listen --file`` does.
"""

from __future__ import annotations

import functools
import io
import os
import stat
from pathlib import Path

import numpy
import pytest
import soundfile
import soxr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gibberish.engine.core import EngineError
from gibberish.voice import VoiceError, WavSource, spoken
from gibberish.voice.listen import capture
from tests.voice.test_audio_lengths import SPEECH, BytesSource, Recorder

SUBTYPES = ("PCM_U8", "PCM_16", "PCM_24", "PCM_32", "FLOAT", "DOUBLE")
RATES = (8000, 11025, 16000, 22050, 32000, 44100, 48000, 96000)
HEADER = 64
"""Bytes at the start of a WAV that hold its RIFF, fmt and data chunk headers."""


@functools.cache
def _speech(rate: int) -> numpy.ndarray:
    """A spoken request at ``rate``, so a drawn file may hold speech the decoder works on."""
    samples, native = soundfile.read(SPEECH, dtype="float64")
    return soxr.resample(samples, native, rate)


@st.composite
def recordings(draw: st.DrawFn) -> tuple[bytes, str]:
    """A WAV file's bytes, whole or damaged, and what was done to it."""
    rate = draw(st.sampled_from(RATES))
    channels = draw(st.integers(1, 6))
    subtype = draw(st.sampled_from(SUBTYPES))
    container = draw(st.sampled_from(("WAV", "WAVEX")))
    frames = draw(st.one_of(st.integers(0, 40), st.integers(rate // 2, rate * 3)))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = numpy.random.default_rng(seed)
    if draw(st.booleans()):
        signal = _speech(rate)[:frames]
        signal = numpy.pad(signal, (0, frames - signal.size))
    else:
        t = numpy.arange(frames) / rate
        signal = 0.5 * numpy.sin(2 * numpy.pi * 220 * t) * (rng.random(frames) > 0.3)
    samples = numpy.repeat(signal[:, None], channels, axis=1)

    buffer = io.BytesIO()
    soundfile.write(buffer, samples, rate, subtype=subtype, format=container)
    data = buffer.getvalue()
    what = f"{container} {subtype} {rate} Hz x{channels}, {frames} frames"
    damage = draw(st.sampled_from(("none", "truncate", "flip", "noise", "huge sizes")))
    if damage == "truncate":
        cut = draw(st.integers(0, len(data)))
        data = data[:cut]
        what += f", cut at byte {cut}"
    elif damage == "flip":
        spots = draw(st.lists(st.integers(0, min(HEADER, len(data)) - 1), min_size=1, max_size=6))
        changed = bytearray(data)
        for spot in spots:
            changed[spot] = draw(st.integers(0, 255))
        data = bytes(changed)
        what += f", header bytes {spots} changed"
    elif damage == "noise":
        data = data[:12] + rng.bytes(draw(st.integers(0, 4000)))
        what += ", noise after the RIFF header"
    elif damage == "huge sizes" and len(data) >= 44:
        changed = bytearray(data)
        changed[4:8] = b"\xff\xff\xff\xff"
        changed[40:44] = b"\xff\xff\xff\x7f"
        data = bytes(changed)
        what += ", RIFF and data sizes claim 2-4 GB"
    return data, what


def _read(path: Path) -> bytes | str:
    try:
        return WavSource(path)._data
    except VoiceError as exc:
        return str(exc)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(recordings())
def test_any_recording_gives_audio_or_a_sentence(tmp_path: Path, case: tuple[bytes, str]) -> None:
    data, what = case
    path = tmp_path / "r.wav"
    path.write_bytes(data)
    result = _read(path)
    if isinstance(result, str):
        assert str(path) in result and result.endswith((".", "OUT.wav")), (what, result)
        return
    assert len(result) % 2 == 0, what
    try:
        capture(BytesSource(result), Recorder())
    except VoiceError as exc:
        assert "No speech heard" in str(exc) or "empty" in str(exc), (what, exc)


def test_a_pipe_is_refused_rather_than_read_forever(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.wav"
    os.mkfifo(fifo)
    assert stat.S_ISFIFO(fifo.stat().st_mode)
    with pytest.raises(VoiceError, match="not a regular file"):
        WavSource(fifo)


def test_an_unreadable_file_says_so(tmp_path: Path) -> None:
    if os.geteuid() == 0:
        pytest.skip("root reads any file: permissions cannot be tested as root")
    path = tmp_path / "locked.wav"
    soundfile.write(path, numpy.zeros(160), 16000)
    path.chmod(0)
    with pytest.raises(VoiceError, match="permission denied"):
        WavSource(path)


def test_a_recording_too_long_for_a_request_is_refused_before_reading(tmp_path: Path) -> None:
    path = tmp_path / "long.wav"
    with soundfile.SoundFile(path, "w", 8000, 1, "PCM_U8") as out:
        for _ in range(130):
            out.write(numpy.zeros(8000))
    with pytest.raises(VoiceError, match="under 120 s"):
        WavSource(path)


@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(recordings())
def test_hostile_recordings_through_the_engine(
    tmp_path: Path, engine, case: tuple[bytes, str]
) -> None:
    """What ``gibberish listen --file`` does: a proposal, or a ``VoiceError``."""
    data, what = case
    path = tmp_path / "r.wav"
    path.write_bytes(data)
    try:
        source = WavSource(path)
        proposal = spoken.listen(engine, source, backend="pocketsphinx")
    except (VoiceError, EngineError):
        return
    assert proposal.status.value in {"ok", "needs_arguments", "no_match"}, what
