"""A recording file → the 16 kHz mono 16-bit samples the recognizers take.

Recordings come from anywhere (a phone, a recorder, a browser) and are untrusted. They are
read by libsndfile through ``soundfile`` (its wheel bundles the library): 8/16/24/32-bit
integer and float WAV, WAVE_FORMAT_EXTENSIBLE, any channel count, and the other formats
libsndfile knows (FLAC, Ogg, AIFF…). Channels are averaged; any other rate is resampled
with ``soxr`` (the SoX resampler: high quality, bundled in its wheel). A file that cannot
be used gives a ``VoiceError`` saying what is wrong and how to convert it — never a
traceback.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from gibberish.voice.errors import VoiceError

SAMPLE_RATE = 16000
CONVERT_HINT = "convert it with: sox IN.wav -r 16000 -c 1 -b 16 OUT.wav"
MAX_SECONDS = 120.0
"""A spoken request lasts seconds; a longer file is refused before it is read whole."""
RATES = (4000, 384000)
"""Sampling rates accepted (Hz): below, no speech survives; above, no recorder writes."""
MAX_CHANNELS = 64
BLOCK = 65536
"""Frames read at a time."""


def _libraries() -> tuple[Any, Any, Any]:
    try:
        import numpy
        import soundfile
        import soxr
    except (ImportError, OSError) as exc:
        raise VoiceError(
            f"Reading recordings needs the Python packages soundfile, soxr and numpy ({exc}); "
            "they are dependencies of gibberish: reinstall it."
        ) from None
    return numpy, soundfile, soxr


def _check_file(path: Path) -> None:
    """What libsndfile reports only as "System error", said plainly."""
    if path.is_dir():
        raise VoiceError(f"{path} is a folder, not a recording.")
    if not path.exists():
        raise VoiceError(f"{path}: no such file.")
    if not path.is_file():  # a pipe or a device would be read forever
        raise VoiceError(f"{path} is not a regular file; save the recording to a file first.")
    if not os.access(path, os.R_OK):
        raise VoiceError(f"{path} cannot be read: permission denied.")


def _open_error(path: Path, exc: Exception) -> VoiceError:
    detail = str(getattr(exc, "error_string", "") or exc).strip().rstrip(".")
    why = f" ({detail})" if detail else ""
    return VoiceError(f"{path} is not a recording gibberish can read{why}; {CONVERT_HINT}")


def _check_shape(path: Path, info: Any) -> None:
    rate, channels, frames = info.samplerate, info.channels, info.frames
    if not RATES[0] <= rate <= RATES[1]:
        raise VoiceError(
            f"{path} says it is sampled at {rate} Hz, which no recording uses; {CONVERT_HINT}"
        )
    if not 1 <= channels <= MAX_CHANNELS:
        raise VoiceError(f"{path} says it has {channels} channels; {CONVERT_HINT}")
    if frames / rate > MAX_SECONDS:
        raise VoiceError(
            f"{path} is {frames / rate:.0f} s long; a spoken request must be under "
            f"{MAX_SECONDS:.0f} s: trim it (sox IN.wav OUT.wav trim 0 30)."
        )


def read_recording(path: Path) -> bytes:
    """The samples of ``path`` as 16 kHz mono signed 16-bit little-endian PCM."""
    numpy, soundfile, soxr = _libraries()
    path = Path(path)
    _check_file(path)
    try:
        info = soundfile.info(str(path))
        _check_shape(path, info)
        mono = _mono(numpy, soundfile, path)
    except VoiceError:
        raise
    except (RuntimeError, OSError, ValueError, TypeError, EOFError) as exc:
        raise _open_error(path, exc) from None
    if mono.size == 0:
        raise VoiceError(f"{path} is an empty recording (no samples).")
    mono = numpy.nan_to_num(mono, nan=0.0, posinf=1.0, neginf=-1.0)
    if info.samplerate != SAMPLE_RATE:
        mono = soxr.resample(mono, info.samplerate, SAMPLE_RATE)
    pcm = numpy.clip(numpy.round(mono * 32768.0), -32768, 32767).astype("<i2")
    if pcm.size == 0:
        raise VoiceError(f"{path} is too short to hold speech ({info.frames} samples).")
    return pcm.tobytes()


def _mono(numpy: Any, soundfile: Any, path: Path) -> Any:
    """The channels averaged, block by block: memory holds one channel, never all of a
    many-channel file."""
    blocks = [
        block.mean(axis=1)
        for block in soundfile.blocks(str(path), blocksize=BLOCK, dtype="float32", always_2d=True)
    ]
    return numpy.concatenate(blocks) if blocks else numpy.zeros(0, dtype="float32")
