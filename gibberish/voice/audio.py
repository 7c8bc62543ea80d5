"""Audio in: 16 kHz mono 16-bit PCM from a recording file or the default microphone.

Both sources have one interface, ``frames(size)``: an iterator of ``size``-byte chunks
(the endpointer's frame), the last one possibly shorter. The recognizer never knows
which source it is fed from, so tests and ``gibberish listen --file`` exercise exactly
the code a microphone does.

The microphone goes through PortAudio via ``sounddevice``: it is the well-kept binding
that works with ALSA, PulseAudio and PipeWire alike, needs no compiler, and reports its
devices. It is imported only when a microphone is used, so a machine without the
PortAudio library still decodes files.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from msgspec import Struct

from gibberish.voice.errors import VoiceError
from gibberish.voice.recording import read_recording

SAMPLE_RATE = 16000
SAMPLE_WIDTH = 2
PORTAUDIO_PACKAGE = "libportaudio2"


class AudioSource(Protocol):
    """Where speech comes from; ``frames`` ends when the source is exhausted or stopped."""

    description: str

    def frames(self, size: int) -> Iterator[bytes]: ...


def _chunks(data: bytes, size: int) -> Iterator[bytes]:
    for start in range(0, len(data), size):
        yield data[start : start + size]


def read_wav(path: Path) -> bytes:
    """The recording at ``path`` as 16 kHz mono 16-bit PCM (``gibberish.voice.recording``
    converts any rate, width and channel count; a file it cannot use is a ``VoiceError``)."""
    return read_recording(Path(path))


class WavSource:
    """A recording file, read whole (utterances are seconds long) and replayed frame by frame."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        self.description = str(self.path)
        self._data = read_wav(self.path)

    @property
    def duration(self) -> float:
        return len(self._data) / (SAMPLE_RATE * SAMPLE_WIDTH)

    def frames(self, size: int) -> Iterator[bytes]:
        return _chunks(self._data, size)


def _sounddevice() -> Any:
    """Import ``sounddevice``; a missing PortAudio library becomes a message naming the package."""
    try:
        import sounddevice
    except ModuleNotFoundError:
        raise VoiceError(
            "The microphone needs the Python package 'sounddevice': "
            "pip install sounddevice (it is a dependency of gibberish; reinstall it)."
        ) from None
    except OSError as exc:  # sounddevice raises OSError when libportaudio is missing
        raise VoiceError(
            f"The PortAudio library is not installed ({exc}); install the package "
            f"'{PORTAUDIO_PACKAGE}' (sudo apt install {PORTAUDIO_PACKAGE}) to use a microphone."
        ) from None
    return sounddevice


class InputDevice(Struct, frozen=True):
    index: int
    name: str
    channels: int
    default_rate: float
    is_default: bool


def input_devices() -> list[InputDevice]:
    """The microphones PortAudio sees (devices with at least one input channel), its list
    made again first when the sound server's sources changed (``microphones``)."""
    from gibberish.voice import microphones

    sd = _sounddevice()
    server = microphones.sound_server()
    microphones.PORTAUDIO.refresh(sd, server)
    try:
        devices = sd.query_devices()
        default_in = sd.default.device[0]
    except Exception as exc:  # PortAudioError is not importable without the library
        said = microphones.open_error(str(exc), server)
        raise VoiceError(said or f"Could not list the microphones ({exc}).") from None
    return [
        InputDevice(i, d["name"], d["max_input_channels"], d["default_samplerate"], i == default_in)
        for i, d in enumerate(devices)
        if d["max_input_channels"] > 0
    ]


def loudness(block: bytes) -> float:
    """RMS of 16-bit samples as a fraction of full scale."""
    import numpy

    samples = numpy.frombuffer(block[: len(block) // 2 * 2], dtype="<i2").astype("float64")
    return float(numpy.sqrt(numpy.mean(samples**2)) / 32768.0) if samples.size else 0.0


class MicrophoneSource:
    """The microphone, until ``stop()`` (key released, second press) or ``max_seconds``.

    PortAudio calls back on its own thread; blocks go through a queue so ``frames`` can be
    consumed at the caller's pace without dropping audio.
    """

    def __init__(self, device: str | int | None = None, *, max_seconds: float = 15.0) -> None:
        self.device = device if device not in ("", "default") else None
        self.max_seconds = max_seconds
        self.description = f"microphone {self.device or '(default)'}"
        self._stop = threading.Event()
        self.opened = threading.Event()
        """Set once the device is recording (what is said before that is not heard)."""
        self.level = 0.0
        """Loudness of the last block, 0..1 (RMS of full scale): for a level meter."""
        self.peak_level = 0.0

    def stop(self) -> None:
        self._stop.set()

    def frames(self, size: int) -> Iterator[bytes]:
        from gibberish.voice import microphones

        sd = _sounddevice()
        server = microphones.check(sd)
        blocks: queue.Queue[bytes] = queue.Queue()

        def callback(indata: Any, _frames: int, _time: Any, _status: Any) -> None:
            block = bytes(indata)
            self.level = loudness(block)
            self.peak_level = max(self.peak_level, self.level)
            blocks.put(block)

        def open_stream() -> Any:
            return sd.RawInputStream(
                samplerate=SAMPLE_RATE,
                channels=1,
                dtype="int16",
                blocksize=size // SAMPLE_WIDTH,
                device=self.device,
                callback=callback,
            )

        try:
            stream = open_stream()
        except Exception:
            # PortAudio's device list may predate the sound server or the microphone:
            # make it again and try once more before saying why.
            microphones.PORTAUDIO.refresh(sd, server, force=True)
            try:
                stream = open_stream()
            except Exception as exc:
                raise VoiceError(self._open_error(exc, server)) from None
        budget = int(self.max_seconds * SAMPLE_RATE * SAMPLE_WIDTH)
        with stream:
            self.opened.set()
            while budget > 0 and not self._stop.is_set():
                try:
                    block = blocks.get(timeout=0.5)
                except queue.Empty:
                    continue
                budget -= len(block)
                yield from _chunks(block, size)

    def _open_error(self, exc: Exception, server: Any) -> str:
        from gibberish.voice.microphones import open_error

        said = open_error(str(exc), server)
        if said:
            return said
        return (
            f"Could not open the {self.description} ({exc}). Pick another microphone in "
            "Settings, Voice (gibberish voice devices lists them)."
        )
