"""The optional free-form recognizer: Whisper through ``faster-whisper`` (extra ``whisper``).

It writes whatever was said, so it serves dictation into free-text parameters and
requests no grammar covers; its transcript goes through the same phrase matching, then
the model router when one is enabled. The model is a CTranslate2 Whisper folder named in
the settings: gibberish never downloads one (``local_files_only``).

A spoken request lasts a second or two, but ``WhisperModel.transcribe`` always pads the
features to Whisper's 30 s window, and the encoder's cost follows the window, not the
speech. So this module drives the model one level down (faster-whisper's feature
extractor and tokenizer, CTranslate2's ``encode`` and ``generate``): it encodes the
speech and a little silence, and lets the decoder see a longer window whose silent part
comes from states computed once at load. See docs/adr/0022-whisper-fitted-window.md.
"""

from __future__ import annotations

import array
import math
import os
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NamedTuple

from msgspec import Struct

from gibberish.assistant.heard import Heard
from gibberish.voice.audio import SAMPLE_RATE
from gibberish.voice.errors import VoiceError
from gibberish.voice.numbers import number_run, parse_number

MODEL_HINT = (
    "Set [voice] model_folder in the settings to a CTranslate2 Whisper model folder "
    "(for example one converted with ct2-transformers-converter, holding model.bin); "
    "gibberish never downloads models."
)

FRAMES_PER_SECOND = 100
"""Whisper's mel frames per second of audio (hop of 160 samples at 16 kHz)."""
FULL_WINDOW = 30.0
"""The window Whisper was trained on, in seconds; the most a single pass encodes."""
WINDOW_PADDING = 8.0
"""Seconds of silence the decoder sees after the speech. With less, it more often stops
early or repeats itself; from about 8 s on, requests are transcribed as well as in the
full window (measured in docs/adr/0022-whisper-fitted-window.md)."""
ENCODED_PADDING = 2.0
"""Seconds of that silence actually encoded with the speech; the rest of the window is
the encoder's states for silence, computed once at load."""
STATES_PER_SECOND = 50
"""Encoder states per second (its second convolution halves the mel frames)."""
WINDOW_STEP = 1.0
"""Windows are whole seconds, so similar requests share encoder shapes."""
TOKENS_PER_SECOND = 8
"""Budget for the transcript; speech runs at about 3 words (4-5 tokens) a second, and a
cap cuts off a decoder that loops on its own output."""
WEIGHED_PADDING = 0.5
"""Seconds of encoder states after the speech that weighing without a transcript attends
to. The decoder's cost per reading follows the states it attends to (each reading
projects them anew), and the margins between readings barely move when the silent
states after this are left out (the suite's number requests: the right reading ahead of
the next by 0.8–1.8 per token either way; docs/adr/0098-voice-weighed-without-transcribing.md)."""
WEIGH_BATCH = 2
"""Readings forced through the decoder at a time: every reading carries its own copy of
the encoder states, and beyond a few at once the copies cost more than the passes save."""
MAX_LENGTH = 448
"""Whisper's decoder holds at most 448 tokens."""
NO_SPEECH_THRESHOLD = 0.6
LOG_PROB_THRESHOLD = -1.0
"""faster-whisper's defaults: a pass that is probably not speech and not confident is
silence, not text."""


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


class Weight(NamedTuple):
    """Whisper's log-probability of a text (natural log, summed over its tokens)."""

    total: float
    tokens: int

    @property
    def per_token(self) -> float:
        return self.total / max(self.tokens, 1)


def spelled(text: str) -> str:
    """``text`` in the one spelling texts are weighed in, Whisper's own: lower case, no
    punctuation but apostrophes, numbers in digits ("Show the last five commits!" →
    "show the last 5 commits"): Whisper finds "count three" far less likely than the
    "count 3" it writes, which is no disagreement about what was said."""
    words = ["".join(c for c in w if c.isalnum() or c == "'") for w in text.lower().split()]
    words = [w for w in words if w]
    out: list[str] = []
    i = 0
    while i < len(words):
        run = number_run(words, i)
        if run:
            out.append(str(parse_number(words[i : i + run])))
            i += run
        else:
            out.append(words[i])
            i += 1
    return " ".join(out)


def frames_in(window: float) -> int:
    return int(window * FRAMES_PER_SECOND)


def window_seconds(speech_seconds: float, padding: float = WINDOW_PADDING) -> float:
    """A window for ``speech_seconds`` of audio: the speech plus ``padding`` of silence,
    rounded up to ``WINDOW_STEP``, never over Whisper's 30 s."""
    steps = math.ceil((speech_seconds + padding) / WINDOW_STEP - 1e-9)
    return min(FULL_WINDOW, max(WINDOW_STEP, steps * WINDOW_STEP))


class Transcript(Struct, frozen=True):
    """One pass's text, its scores, the windows (seconds the decoder saw, seconds
    encoded) and where the time went."""

    text: str
    avg_logprob: float
    no_speech_prob: float
    window: float
    encoded_window: float
    encode: float
    generate: float


class WhisperRecognizer:
    """Buffers the utterance, transcribes it when speech ends (Whisper is not streaming)."""

    backend = "whisper"

    def __init__(
        self,
        model_folder: str | Path | None,
        *,
        compute_type: str = "int8",
        padding: float | None = WINDOW_PADDING,
    ) -> None:
        """``padding``: seconds of silence the decoder sees after the speech (of which
        ``ENCODED_PADDING`` is encoded with it); ``None`` encodes Whisper's full 30 s
        window whatever the length (what ``WhisperModel.transcribe`` does)."""
        if not model_folder:
            raise VoiceError(f"No Whisper model folder is set. {MODEL_HINT}")
        folder = Path(model_folder).expanduser()
        if not (folder / "model.bin").is_file():
            raise VoiceError(f"{folder} holds no Whisper model (no model.bin). {MODEL_HINT}")
        fw = _faster_whisper()
        self._padding = padding
        started = time.perf_counter()
        try:
            self._load(fw, folder, compute_type)
            # The first passes run several times slower (allocation, caches); one second
            # of silence pays that at load time instead of on a request.
            self.transcribe(numpy_zeros(SAMPLE_RATE))
            if padding is not None:
                self._silence = self._encode(numpy_zeros(0), FULL_WINDOW)
        except Exception as exc:  # ctranslate2 raises RuntimeError/ValueError variously
            raise VoiceError(f"Could not load the Whisper model in {folder}: {exc}") from None
        self.load_seconds = time.perf_counter() - started
        self._pcm = bytearray()

    def _load(self, fw: Any, folder: Path, compute_type: str) -> None:
        from faster_whisper.tokenizer import Tokenizer
        from faster_whisper.transcribe import get_suppressed_tokens

        self._model = fw.WhisperModel(
            str(folder),
            device="cpu",
            compute_type=compute_type,
            cpu_threads=os.cpu_count() or 1,
            local_files_only=True,
        )
        self._tokenizer = Tokenizer(
            self._model.hf_tokenizer,
            self._model.model.is_multilingual,
            task="transcribe",
            language="en",
        )
        self._prompt = [*self._tokenizer.sot_sequence, self._tokenizer.no_timestamps]
        self._suppress = list(get_suppressed_tokens(self._tokenizer, [-1]))
        self._silence = None
        self._heard: tuple[Any, int] | None = None
        self._pending: tuple[Any, float, float, int, tuple[Any, int]] | None = None
        """What ``hear`` encoded last: the decoder's states, seconds encoded, seconds of
        speech, bytes, and the states and frames to weigh over once transcribed."""
        self.heard_seconds = 0.0

    def _encode(self, samples: Any, window: float) -> Any:
        """Encoder states (numpy, 1 x states x width) of ``samples`` padded with silence
        to ``window`` seconds."""
        import numpy
        from faster_whisper.transcribe import get_ctranslate2_storage

        frames = frames_in(window)
        features = self._model.feature_extractor(samples)
        padded = numpy.zeros((1, features.shape[0], frames), dtype=numpy.float32)
        used = min(frames, features.shape[-1])
        padded[0, :, :used] = features[:, :used]
        return numpy.asarray(self._model.model.encode(get_ctranslate2_storage(padded)))

    def _states(self, samples: Any, window: float) -> tuple[Any, float]:
        """The decoder's view of ``window`` seconds: the speech and ``ENCODED_PADDING``
        encoded, the rest taken from the states of silence."""
        import ctranslate2
        import numpy

        speech = len(samples) / SAMPLE_RATE
        encoded_window = window
        if self._silence is not None:
            encoded_window = min(window, window_seconds(speech, ENCODED_PADDING))
        states = self._encode(samples, encoded_window)
        wanted = int(window * STATES_PER_SECOND)
        if states.shape[1] < wanted:
            tail = self._silence[:, states.shape[1] : wanted]
            states = numpy.concatenate([states, tail], axis=1)
        states = numpy.ascontiguousarray(states)
        self._heard = (
            states,
            min(len(samples) // (SAMPLE_RATE // FRAMES_PER_SECOND), frames_in(window)),
        )
        return ctranslate2.StorageView.from_array(states), encoded_window

    def start(self) -> None:
        self._pcm = bytearray()

    def feed(self, pcm: bytes) -> None:
        self._pcm.extend(pcm)

    def finish(self) -> Heard:
        import numpy

        samples = numpy.array(array.array("h", bytes(self._pcm)), dtype=numpy.float32) / 32768.0
        return self._heard_as(self.transcribe(samples), len(self._pcm))

    def _heard_as(self, heard: Transcript, size: int) -> Heard:
        """A transcript as what the recognizer heard, with where the time went."""
        finish = heard.encode + heard.generate
        timings = {
            "audio": size / 32000,
            "decode": finish,
            "finish": finish,
            "window": heard.window,
            "encoded_window": heard.encoded_window,
            "encode": heard.encode,
            "generate": heard.generate,
        }
        rejected = "" if heard.text else "nothing was transcribed"
        confidence = math.exp(heard.avg_logprob) if heard.text else 0.0
        return Heard(heard.text, confidence, (), self.backend, timings, rejected)

    def transcribe(self, samples: Any) -> Transcript:
        """One greedy pass without timestamps or retries (each multiplies the work) over
        a window fitted to ``samples``: features, encoder, decoder. Audio longer than one
        window (toggle-mode dictation) goes through ``WhisperModel.transcribe``, which
        walks it window by window."""
        speech = len(samples) / SAMPLE_RATE
        if speech > FULL_WINDOW:
            return self._transcribe_long(samples)
        began = time.perf_counter()
        self._pending = None
        encoded, encoded_window = self._states(samples, self._window(speech))
        return self._generated(encoded, encoded_window, speech, time.perf_counter() - began)

    def _window(self, speech: float) -> float:
        padding = self._padding
        return FULL_WINDOW if padding is None else window_seconds(speech, padding)

    def _generated(
        self, encoded: Any, encoded_window: float, speech: float, encode: float
    ) -> Transcript:
        """The decoder's greedy text over ``encoded`` (the states of a window holding
        ``speech`` seconds), with its scores."""
        began = time.perf_counter()
        window = encoded.shape[1] / STATES_PER_SECOND  # what the decoder attends to
        budget = len(self._prompt) + 8 + math.ceil(TOKENS_PER_SECOND * min(speech, window))
        budget = min(budget, MAX_LENGTH)
        result = self._model.model.generate(
            encoded,
            [self._prompt],
            beam_size=1,
            max_length=budget,
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=self._suppress,
        )[0]
        generate = time.perf_counter() - began
        tokens = [t for t in result.sequences_ids[0] if t < self._tokenizer.eot]
        avg_logprob = result.scores[0] * len(tokens) / (len(tokens) + 1)
        text = self._tokenizer.decode(tokens).strip()
        silence = result.no_speech_prob > NO_SPEECH_THRESHOLD and avg_logprob < LOG_PROB_THRESHOLD
        if silence or not any(c.isalnum() for c in text):  # silence often comes out as "."
            text = ""
        return Transcript(
            text, avg_logprob, result.no_speech_prob, window, encoded_window, encode, generate
        )

    def hear(self, pcm: bytes) -> bool:
        """Encodes ``pcm`` (16-bit mono at 16 kHz) for ``weigh``, without transcribing it:
        the encoder runs once, as for a transcription (the speech and ``ENCODED_PADDING``
        of silence), and the readings are then weighed over the speech and
        ``WEIGHED_PADDING`` of those states. ``transcribe_heard`` can still transcribe
        the same states later. False for audio longer than one window, which only a
        transcription can walk."""
        import numpy

        self._pending = None
        samples = numpy.array(array.array("h", pcm), dtype=numpy.float32) / 32768.0
        speech = len(samples) / SAMPLE_RATE
        if speech > FULL_WINDOW:
            self._heard = None
            return False
        began = time.perf_counter()
        encoded, encoded_window = self._states(samples, self._window(speech))
        if self._heard is None:  # set by _states
            return False
        full = self._heard
        states, frames = full
        kept = min(states.shape[1], math.ceil((speech + WEIGHED_PADDING) * STATES_PER_SECOND))
        self._heard = (numpy.ascontiguousarray(states[:, :kept]), frames)
        self.heard_seconds = time.perf_counter() - began
        self._pending = (encoded, encoded_window, speech, len(pcm), full)
        return True

    def transcribe_heard(self) -> Heard:
        """The transcript of the audio ``hear`` encoded last, from its encoder states
        (no second encoding). ``weigh`` then weighs over the whole window the transcript
        was written from, as after ``transcribe``: a veto compares the transcript with
        the readings on the states the margins were measured on."""
        if self._pending is None:
            return Heard("", 0.0, (), self.backend, {}, "nothing was heard to transcribe")
        encoded, encoded_window, speech, size, full = self._pending
        transcript = self._generated(encoded, encoded_window, speech, 0.0)
        self._heard = full
        return self._heard_as(transcript, size)

    def weigh(self, texts: Sequence[str]) -> list[Weight] | None:
        """How likely Whisper finds each of ``texts`` as the transcript of the utterance it
        last transcribed: its tokens' log-probabilities, the decoder forced
        through the text (CTranslate2's ``align``) over the same encoder states.

        Whisper's own greedy transcript only says what it heard first; weighing lets it
        judge the readings the grammar allows ("five" against "nine", "show git status"
        against its "children status"), which it tells apart far better than the grammar's
        acoustic model does for voices that model hears badly. Texts are compared in one
        spelling (lower case, no punctuation), so only the words count. None for audio
        longer than one window (transcribed piecewise, no single set of states) or when
        nothing was transcribed yet."""
        if self._heard is None or not texts:
            return None
        import ctranslate2
        import numpy

        states, frames = self._heard
        tokens = [
            self._tokenizer.encode(" " + spelled(text)) or [self._tokenizer.eot] for text in texts
        ]
        results = []
        for i in range(0, len(tokens), WEIGH_BATCH):
            some = tokens[i : i + WEIGH_BATCH]
            batch = numpy.ascontiguousarray(numpy.repeat(states, len(some), axis=0))
            results += self._model.model.align(
                ctranslate2.StorageView.from_array(batch), self._prompt, some, max(frames, 1)
            )
        return [
            Weight(sum(math.log(max(p, 1e-12)) for p in r.text_token_probs), len(t))
            for r, t in zip(results, tokens, strict=True)
        ]

    def _transcribe_long(self, samples: Any) -> Transcript:
        self._heard = None
        began = time.perf_counter()
        segments, _info = self._model.transcribe(
            samples,
            language="en",
            beam_size=1,
            best_of=1,
            temperature=0.0,
            condition_on_previous_text=False,
            without_timestamps=True,
        )
        parts = list(segments)
        text = " ".join(s.text.strip() for s in parts).strip()
        if not any(c.isalnum() for c in text):
            text = ""
        avg_logprob = sum(s.avg_logprob for s in parts) / len(parts) if parts else 0.0
        no_speech = max((s.no_speech_prob for s in parts), default=1.0)
        spent = time.perf_counter() - began
        return Transcript(text, avg_logprob, no_speech, FULL_WINDOW, FULL_WINDOW, spent, 0.0)

    def decode(self, pcm: bytes) -> Heard:
        self.start()
        self.feed(pcm)
        return self.finish()
