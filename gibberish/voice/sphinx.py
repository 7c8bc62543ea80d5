"""The embedded recognizer: PocketSphinx decoding against the tools' grammar.

Two decoders run over the same speech, frame by frame as it arrives, so little work is
left when the person stops talking:

* the **grammar** decoder (a word graph built by ``gibberish.voice.fsg``, finite-state
  search) says which spoken form it was;
* a **phone loop** (PocketSphinx's all-phone search with its phonetic language model)
  says which sounds were there, free of any grammar.

A grammar always forces speech onto its closest phrase. Four checks reject what it
forced (docs/adr/0015-voice-grammar-and-rejection.md has the measurements):

1. a *garbage* path competes with every phrase inside the graph: any sequence of phones,
   each at ``GARBAGE_PENALTY``. Speech no phrase explains is explained better by it;
2. the search must reach the end of a phrase: a partial best path is rejected;
3. the words must parse as one of the tools' spoken forms;
4. the phrase must explain the sounds: the phone error rate (PER) of its expected phones
   against the phone loop's. ``confidence`` is ``1 - PER / 2`` clipped to 0..1, and at or
   below ``threshold`` (0.5: the phone loop heard more than twice what the phrase says,
   or something else entirely) the utterance is rejected. PER is noisy for synthetic
   voices, so the threshold is deliberately loose: it catches a short phrase forced onto
   a long sentence ("look up" for "book a table for two").

Streaming normalizes each frame with a fixed prior cepstral mean. When that pass rejects
the speech, or heard a number, the kept audio is decoded once more normalized by its own
mean, and speech still rejected once more in the graph without silence between words
(docs/adr/0021-voice-second-pass.md); a phrase that passes the same checks is the answer.
"""

from __future__ import annotations

import contextlib
import tempfile
import time
from pathlib import Path
from typing import Any

from msgspec import Struct, field
from msgspec.structs import replace

from gibberish.assistant.heard import Heard
from gibberish.voice.alignment import acoustic_fit, phone_error_rate, word_scores
from gibberish.voice.errors import VoiceError
from gibberish.voice.fsg import GARBAGE_PREFIX, garbage_words, word_graph
from gibberish.voice.grammar import GRAMMAR_NAME, Grammar
from gibberish.voice.lexicon import model_dir, write_dictionary
from gibberish.voice.matcher import PhraseMatcher
from gibberish.voice.numbers import holds_a_number

DEFAULT_THRESHOLD = 0.5
GARBAGE_PENALTY = 1e-8
"""Probability of each phone on the garbage path. Larger rejects more in-grammar speech
(a harsh synthetic voice first), smaller lets short phrases win over sentences; measured
on three synthetic voices, 1e-7 to 1e-8 rejected every out-of-grammar request, 1e-9 let
one through, 1e-6 turned away a third of one voice's requests."""
WORDS_ONLY = "words-only"
"""The same word graph as a second search, without silence between words: a quiet final
word ("commits", "uptime" in a formant voice) cannot vanish into a silence there."""
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


def _overruling(streaming: Heard, retry: Heard | None) -> Heard:
    """The later pass's answer when it found one. When it changed a phrase the streaming
    pass had accepted (a number, in practice: "fifty" against "fifteen"), that phrase is
    kept as the alternative, so the form can say the recognizer was torn between two."""
    if retry is None:
        return streaming
    if not streaming.rejected and streaming.text != retry.text:
        return replace(retry, alternatives=(streaming.text,))
    return retry


class _Utterance(Struct):
    started: float
    audio: bytearray = field(default_factory=bytearray)
    """Kept for the second pass (16 kHz 16-bit: 32 kB a second, 15 s at most from a
    microphone)."""
    decode: float = 0.0


class SphinxRecognizer:
    """Grammar decoding plus phone-loop verification; one utterance at a time."""

    backend = "pocketsphinx"

    def __init__(
        self,
        grammar: Grammar,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        second_pass: bool = True,
    ) -> None:
        if not grammar.forms:
            raise VoiceError("No tool has a spoken form: load some skills first.")
        ps = _pocketsphinx()
        self.grammar = grammar
        self.threshold = threshold
        self.second_pass = second_pass
        hmm = str(model_dir() / "en-us")
        started = time.perf_counter()
        self._grammar = self._grammar_decoder(ps, hmm, grammar)
        self._complete = PhraseMatcher(grammar.forms, free_text=False)
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

    def _grammar_decoder(self, ps: Any, hmm: str, grammar: Grammar) -> Any:
        graph = word_graph(grammar.forms, garbage=GARBAGE_PENALTY)
        garbage = garbage_words()
        with tempfile.TemporaryDirectory(prefix="gibberish-voice-") as tmp:
            dict_path = Path(tmp) / "words.dict"
            spoken = set(grammar.words) | (graph.words() - set(garbage))
            self.pronunciations = write_dictionary(spoken, dict_path, garbage)
            try:
                decoder = ps.Decoder(hmm=hmm, dict=str(dict_path), lm=None, loglevel="FATAL")
                for name, fillers in ((WORDS_ONLY, False), (GRAMMAR_NAME, True)):
                    # The filler (silence) loops are added to the graph when it is added.
                    decoder.config["fsgusefiller"] = fillers
                    fsg = decoder.create_fsg(name, graph.start, graph.final, graph.transitions)
                    decoder.add_fsg(name, fsg)
                decoder.activate_search(GRAMMAR_NAME)
            except (RuntimeError, ValueError) as exc:
                raise VoiceError(f"PocketSphinx could not load the tools' grammar: {exc}") from None
        return decoder

    # -- streaming ---------------------------------------------------------------------
    def start(self) -> None:
        if self._utt is not None:  # an utterance abandoned half-way (the source failed)
            self._abandon()
        # Setting the mean alone left some feature state behind (an utterance the garbage
        # path won changed how the next one decoded); a fresh front end costs ~0.2 ms.
        self._grammar.reinit_feat()
        self._phones.reinit_feat()
        self._grammar.set_cmn(self._cmn[0])
        self._phones.set_cmn(self._cmn[1])
        self._grammar.start_utt()
        self._phones.start_utt()
        self._utt = _Utterance(time.perf_counter())

    def _abandon(self) -> None:
        """Closes an utterance that was never finished, so the next one can start."""
        for decoder in (self._grammar, self._phones):
            with contextlib.suppress(RuntimeError):  # that one was already closed
                decoder.end_utt()
        self._utt = None

    def feed(self, pcm: bytes) -> None:
        assert self._utt is not None, "start() first"
        if not pcm:  # PocketSphinx raises IndexError on an empty buffer
            return
        began = time.perf_counter()
        self._grammar.process_raw(pcm, False, False)
        self._phones.process_raw(pcm, False, False)
        self._utt.audio += pcm
        self._utt.decode += time.perf_counter() - began

    def finish(self) -> Heard:
        assert self._utt is not None, "start() first"
        began = time.perf_counter()
        # The path alive at the last frame (before the utterance is closed, so without
        # the lattice rescoring that follows): when it is garbage, the speech is rejected
        # without building a lattice, which garbage makes large (seconds of work).
        last = self._grammar.hyp()
        self._grammar.end_utt()
        self._phones.end_utt()
        heard = self._garbage_rejection(last) or self._judge(self._best_text())
        utt, self._utt = self._utt, None
        if self.second_pass and (heard.rejected or holds_a_number(heard.text)):
            pcm = bytes(utt.audio)
            retry = self._normalized_pass(pcm, GRAMMAR_NAME)
            if retry is None and heard.rejected:
                retry = self._normalized_pass(pcm, WORDS_ONLY)
            heard = _overruling(heard, retry)
        finish = time.perf_counter() - began
        heard.timings.update(
            audio=len(utt.audio) / 32000, decode=utt.decode + finish, finish=finish
        )
        return heard

    def _normalized_pass(self, pcm: bytes, search: str) -> Heard | None:
        """The utterance decoded again, normalized by its own cepstral mean; None unless
        that finds a phrase which passes every check.

        The streaming pass subtracts a fixed prior mean (the same audio must always decode
        the same way, and the mean of an utterance is only known at its end). A voice or
        microphone whose spectrum lies far from that prior then sounds like no phrase, or
        like a neighbouring number; this pass removes the utterance's own channel instead
        (batch normalization, as the acoustic model was trained). It runs only after a
        rejection or for a phrase holding a number, so other accepted speech pays nothing,
        and its result goes through the same checks; when it finds nothing the streaming
        pass's answer stands. Speech still rejected is tried once more in the
        ``WORDS_ONLY`` search.
        """
        if not pcm:
            return None
        self._grammar.activate_search(search)
        try:
            self._grammar.reinit_feat()
            self._grammar.start_utt()
            self._grammar.process_raw(pcm, False, True)
            garbage = self._garbage_rejection(self._grammar.hyp())
            self._grammar.end_utt()
            text = "" if garbage else self._best_text()
            path = list(self._grammar.seg() or ())  # gone once the search is switched back
        finally:
            self._grammar.activate_search(GRAMMAR_NAME)
        if not self._is_complete(text):
            return None  # the phone loop is not run for speech the grammar already refused
        self._phones.reinit_feat()
        self._phones.start_utt()
        self._phones.process_raw(pcm, False, True)
        self._phones.end_utt()
        heard = self._judge(text, path)
        if heard.rejected:
            return None
        heard.details["normalized"] = "utterance" if search == GRAMMAR_NAME else search
        return heard

    def decode(self, pcm: bytes) -> Heard:
        """A whole utterance at once (benchmarks, tests)."""
        self.start()
        self.feed(pcm)
        return self.finish()

    # -- verification ------------------------------------------------------------------
    def _garbage_rejection(self, last: Any) -> Heard | None:
        """A rejection when the path alive at the last frame is the garbage loop."""
        if last is not None and GARBAGE_PREFIX in (last.hypstr or ""):
            return Heard(
                "", 0.0, backend=self.backend, rejected="the speech sounded like no phrase"
            )
        return None

    def _best_text(self) -> str:
        """The closed utterance's best path (its lattice is built on the first call)."""
        best = self._grammar.hyp()
        return best.hypstr.strip() if best is not None and best.hypstr else ""

    def _is_complete(self, text: str) -> bool:
        """Whether ``text`` is one whole spoken form (not garbage, not a partial path)."""
        return bool(text) and GARBAGE_PREFIX not in text and self._complete.match(text) is not None

    def _judge(self, text: str, path: list[Any] | None = None) -> Heard:
        """Checks 3 and 4 on the grammar's ``text``; ``path``: its segments (default:
        the grammar decoder's current ones)."""
        if GARBAGE_PREFIX in text:
            return Heard(
                "", 0.0, backend=self.backend, rejected="the speech sounded like no phrase"
            )
        # Only a complete phrase counts. A partial best path ("show the last five") is
        # not completed from the n-best: that guesses the missing words ("… notes" for
        # "… commits" in noise), and walking the n-best costs up to a second.
        if not self._is_complete(text):
            return Heard(text, 0.0, backend=self.backend, rejected="no phrase of the grammar fit")
        free = list(self._phones.seg() or ())
        heard = [s.word for s in free if s.word not in NON_SPEECH]
        per = phone_error_rate(self._phones_of(text), heard)
        confidence = min(1.0, max(0.0, 1.0 - per / 2))
        scores = word_scores([(w, self._phones_of(w)) for w in text.split()], heard)
        details = {
            "acoustic_fit": round(acoustic_fit(path or self._grammar.seg(), free), 3),
            "phone_error_rate": round(per, 3),
            "words": [(s.word, round(s.confidence, 2)) for s in scores],
        }
        rejected = ""
        if confidence <= self.threshold:
            rejected = (
                f"the sounds heard do not match {text!r} closely enough "
                f"(confidence {confidence:.2f} < {self.threshold:.2f})"
            )
        return Heard(text, confidence, (), self.backend, {}, rejected, details)

    def _phones_of(self, text: str) -> list[str]:
        return " ".join(self.pronunciations.get(w, "") for w in text.split()).split()
