"""The embedded recognizer: PocketSphinx decoding against the tools' grammar.

Two decoders run over the same speech, frame by frame as it arrives, so little work is
left when the person stops talking:

* the **grammar** decoder (JSGF → finite-state search) says which spoken form it was;
* a **phone loop** (PocketSphinx's all-phone search with its phonetic language model)
  says which sounds were there, free of any grammar.

A grammar always forces speech onto its closest phrase. Three checks reject what it
forced (docs/adr/0015-voice-grammar-and-rejection.md has the measurements):

1. the search must reach the end of a phrase — out-of-grammar speech mostly never does,
   and PocketSphinx then returns nothing or a partial path;
2. the words must parse as one of the tools' spoken forms (a partial path does not);
3. the phrase must explain the sounds: the phone error rate (PER) of its expected phones
   against the phone loop's. ``confidence`` is ``1 - PER / 2`` clipped to 0..1, and at or
   below ``threshold`` (0.5: the phone loop heard more than twice what the phrase says,
   or something else entirely) the utterance is rejected. PER is noisy for synthetic
   voices, so the threshold is deliberately loose: it catches a short phrase forced onto
   a long sentence ("look up" for "book a table for two").
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gibberish.voice.errors import VoiceError
from gibberish.voice.grammar import Grammar
from gibberish.voice.heard import Heard
from gibberish.voice.lexicon import model_dir, write_dictionary

DEFAULT_THRESHOLD = 0.5
NON_SPEECH = frozenset({"SIL", "<sil>", "<s>", "</s>", "+NSN+", "+SPN+", "+BREATH+", "[NOISE]"})
_BEAMS = {"beam": 1e-20, "pbeam": 1e-20}


def _pocketsphinx() -> Any:
    try:
        import pocketsphinx
    except ImportError as exc:
        raise VoiceError(
            f"Speech recognition needs the Python package 'pocketsphinx' ({exc}); "
            "pip install 'pocketsphinx>=5'."
        ) from None
    return pocketsphinx


def phone_error_rate(expected: list[str], heard: list[str]) -> float:
    """Levenshtein distance over phones, divided by the expected length."""
    if not expected:
        return 1.0
    previous = list(range(len(heard) + 1))
    for i, want in enumerate(expected, 1):
        current = [i]
        for j, got in enumerate(heard, 1):
            current.append(
                min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (want != got))
            )
        previous = current
    return previous[-1] / len(expected)


@dataclass
class _Utterance:
    started: float
    audio_bytes: int = 0
    decode: float = 0.0


class SphinxRecognizer:
    """Grammar decoding plus phone-loop verification; one utterance at a time."""

    backend = "pocketsphinx"

    def __init__(self, grammar: Grammar, *, threshold: float = DEFAULT_THRESHOLD) -> None:
        if not grammar.forms:
            raise VoiceError("No tool has a spoken form: load some skills first.")
        ps = _pocketsphinx()
        self.grammar = grammar
        self.threshold = threshold
        hmm = str(model_dir() / "en-us")
        started = time.perf_counter()
        with tempfile.TemporaryDirectory(prefix="gibberish-voice-") as tmp:
            dict_path, gram_path = Path(tmp) / "words.dict", Path(tmp) / "tools.gram"
            self.pronunciations = write_dictionary(set(grammar.words), dict_path)
            gram_path.write_text(grammar.text, encoding="utf-8")
            try:
                self._grammar = ps.Decoder(
                    hmm=hmm, dict=str(dict_path), jsgf=str(gram_path), loglevel="FATAL"
                )
            except (RuntimeError, ValueError) as exc:
                raise VoiceError(f"PocketSphinx could not load the tools' grammar: {exc}") from None
        self._phones = ps.Decoder(
            hmm=hmm,
            allphone=str(model_dir() / "en-us-phone.lm.bin"),
            lw=2.0,
            loglevel="FATAL",
            **_BEAMS,
        )
        self.load_seconds = time.perf_counter() - started
        self._utt: _Utterance | None = None
        # Live cepstral mean normalization carries over between utterances, which makes
        # the same audio decode differently depending on what came before; every
        # utterance starts from the model's initial mean instead (it still adapts within).
        self._cmn = (self._grammar.get_cmn(), self._phones.get_cmn())

    # -- streaming ---------------------------------------------------------------------
    def start(self) -> None:
        self._grammar.set_cmn(self._cmn[0])
        self._phones.set_cmn(self._cmn[1])
        self._grammar.start_utt()
        self._phones.start_utt()
        self._utt = _Utterance(time.perf_counter())

    def feed(self, pcm: bytes) -> None:
        assert self._utt is not None, "start() first"
        began = time.perf_counter()
        self._grammar.process_raw(pcm, False, False)
        self._phones.process_raw(pcm, False, False)
        self._utt.audio_bytes += len(pcm)
        self._utt.decode += time.perf_counter() - began

    def finish(self) -> Heard:
        assert self._utt is not None, "start() first"
        began = time.perf_counter()
        self._grammar.end_utt()
        self._phones.end_utt()
        heard = self._judge()
        finish = time.perf_counter() - began
        utt, self._utt = self._utt, None
        heard.timings.update(
            audio=utt.audio_bytes / 32000, decode=utt.decode + finish, finish=finish
        )
        return heard

    def decode(self, pcm: bytes) -> Heard:
        """A whole utterance at once (benchmarks, tests)."""
        self.start()
        self.feed(pcm)
        return self.finish()

    # -- verification ------------------------------------------------------------------
    def _judge(self) -> Heard:
        hyp = self._grammar.hyp()
        text = hyp.hypstr.strip() if hyp is not None else ""
        if not text:
            return Heard("", 0.0, backend=self.backend, rejected="no phrase of the grammar fit")
        alternatives = self._alternatives(text)
        expected = " ".join(self.pronunciations.get(w, "") for w in text.split()).split()
        heard = [s.word for s in self._phones.seg() if s.word not in NON_SPEECH]
        per = phone_error_rate(expected, heard)
        confidence = min(1.0, max(0.0, 1.0 - per / 2))
        details = {"phone_error_rate": round(per, 3), "posterior": round(hyp.prob, 3)}
        rejected = ""
        if confidence <= self.threshold:
            rejected = (
                f"the sounds heard do not match {text!r} closely enough "
                f"(confidence {confidence:.2f} < {self.threshold:.2f})"
            )
        return Heard(text, confidence, alternatives, self.backend, {}, rejected, details)

    def _alternatives(self, best: str, limit: int = 3) -> tuple[str, ...]:
        out: list[str] = []
        try:
            for hyp in self._grammar.nbest():
                text = hyp.hypstr.strip()
                if text and text != best and text not in out:
                    out.append(text)
                if len(out) >= limit:
                    break
        except (RuntimeError, ValueError):
            return ()
        return tuple(out)
