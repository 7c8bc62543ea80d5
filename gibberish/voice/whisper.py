"""The optional free-form recognizer: Whisper through ``faster-whisper`` (extra ``whisper``).

It writes whatever was said, so it serves dictation into free-text parameters and
requests no grammar covers; its transcript goes through the same phrase matching, then
the model router when one is enabled. The model is a CTranslate2 Whisper folder named in
the settings: gibberish never downloads one (``local_files_only``).
"""

from __future__ import annotations

import array
import os
import time
from pathlib import Path
from typing import Any

from gibberish.voice.audio import SAMPLE_RATE
from gibberish.voice.errors import VoiceError
from gibberish.voice.heard import Heard

MODEL_HINT = (
    "Set [voice] model_folder in the settings to a CTranslate2 Whisper model folder "
    "(for example one converted with ct2-transformers-converter, holding model.bin); "
    "gibberish never downloads models."
)


def _faster_whisper() -> Any:
    try:
        import faster_whisper
    except ImportError:
        raise VoiceError(
            "The whisper backend needs the optional extra: pip install 'gibberish[whisper]'."
        ) from None
    return faster_whisper


def numpy_zeros(n: int) -> Any:
    import numpy

    return numpy.zeros(n, dtype=numpy.float32)


class WhisperRecognizer:
    """Buffers the utterance, transcribes it when speech ends (Whisper is not streaming)."""

    backend = "whisper"

    def __init__(self, model_folder: str | Path | None, *, compute_type: str = "int8") -> None:
        if not model_folder:
            raise VoiceError(f"No Whisper model folder is set. {MODEL_HINT}")
        folder = Path(model_folder).expanduser()
        if not (folder / "model.bin").is_file():
            raise VoiceError(f"{folder} holds no Whisper model (no model.bin). {MODEL_HINT}")
        fw = _faster_whisper()
        started = time.perf_counter()
        try:
            self._model = fw.WhisperModel(
                str(folder),
                device="cpu",
                compute_type=compute_type,
                cpu_threads=os.cpu_count() or 1,
                local_files_only=True,
            )
            # The first transcriptions run several times slower (allocation, caches);
            # one second of silence pays that at load time instead of on a request.
            self._transcribe(numpy_zeros(SAMPLE_RATE))
        except Exception as exc:  # ctranslate2 raises RuntimeError/ValueError variously
            raise VoiceError(f"Could not load the Whisper model in {folder}: {exc}") from None
        self.load_seconds = time.perf_counter() - started
        self._pcm = bytearray()

    def start(self) -> None:
        self._pcm = bytearray()

    def feed(self, pcm: bytes) -> None:
        self._pcm.extend(pcm)

    def finish(self) -> Heard:
        import numpy

        began = time.perf_counter()
        samples = numpy.array(array.array("h", bytes(self._pcm)), dtype=numpy.float32) / 32768.0
        parts = self._transcribe(samples)
        text = " ".join(s.text.strip() for s in parts).strip()
        finish = time.perf_counter() - began
        confidence = 0.0
        if parts:
            import math

            confidence = math.exp(sum(s.avg_logprob for s in parts) / len(parts))
        timings = {"audio": len(self._pcm) / 32000, "decode": finish, "finish": finish}
        rejected = "" if text else "nothing was transcribed"
        return Heard(text, confidence, (), self.backend, timings, rejected)

    def _transcribe(self, samples: Any) -> list[Any]:
        """Greedy and single-pass: one short request needs no beam, no retries at higher
        temperatures, no previous text and no timestamps (each multiplies the work)."""
        segments, _info = self._model.transcribe(
            samples,
            language="en",
            beam_size=1,
            best_of=1,
            temperature=0.0,
            condition_on_previous_text=False,
            without_timestamps=True,
        )
        return list(segments)

    def decode(self, pcm: bytes) -> Heard:
        self.start()
        self.feed(pcm)
        return self.finish()
