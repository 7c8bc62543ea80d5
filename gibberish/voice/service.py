"""The voice pipeline behind the Engine: grammar, cached recognizers, listen → proposal.

What a request becomes is decided in one place, ``decision.Decision``; this module holds
what that needs across requests (the grammar, the recognizers, Whisper loaded ahead) and
the plumbing from an audio source to it.

A recognizer is expensive to build and cheap to reuse, so one is kept per backend and
rebuilt only when the grammar's signature changes (a skill added, a phrase edited, another
mode's tools).
"""

from __future__ import annotations

import importlib.util
import threading
import time

from msgspec import Struct
from msgspec.structs import replace

from gibberish.assistant import ToolCatalog
from gibberish.assistant.proposal import Proposal
from gibberish.voice.audio import AudioSource
from gibberish.voice.decision import Decision, SecondOpinion
from gibberish.voice.errors import VoiceError
from gibberish.voice.grammar import Grammar, VoiceTool, grammar_for_tools
from gibberish.voice.listen import StreamingRecognizer, capture
from gibberish.voice.second_opinion import KeptAudio
from gibberish.voice.settings import VOICE_BACKENDS
from gibberish.voice.sounds_like import SoundsLike

BACKENDS = VOICE_BACKENDS  # the values of voice.settings.VoiceBackend


class VoiceConfig(Struct, frozen=True):
    backend: str = "pocketsphinx"
    model_folder: str = ""
    threshold: float | None = None
    until_stopped: bool = False
    """Toggle mode: keep listening across pauses until the source is stopped."""
    cut_off: float | None = None
    """With ``until_stopped``: seconds of silence that still end the recording (a key held
    through the portal, whose release might never arrive)."""
    second_opinion: bool = False
    """With the grammar backend and a Whisper ``model_folder``: ask Whisper when the
    grammar finds no call, doubts it, or it is short or holds a number
    (``gibberish.voice.decision``)."""


class VoiceService:
    def __init__(self) -> None:
        self._lock = threading.RLock()
        self._grammar: tuple[tuple[object, ...], Grammar] | None = None
        self._recognizers: dict[tuple[str, str], StreamingRecognizer] = {}
        self._sounds_like: tuple[str, SoundsLike] | None = None
        self._loading: threading.Thread | None = None
        """Whisper being loaded ahead for a second opinion (``_load_ahead``)."""
        self._loaded: tuple[tuple[str, str], StreamingRecognizer | None] | None = None
        self._unloadable: set[tuple[str, str]] = set()

    def grammar(self, catalog: ToolCatalog) -> Grammar:
        """The grammar of ``catalog``'s tools; rebuilt only when a tool changed."""
        key = tuple((t.name, t.tool) for t in catalog.tools)
        cached = self._grammar
        if cached is not None and cached[0] == key:
            return cached[1]
        grammar = grammar_for_tools(VoiceTool(t.name, t.tool) for t in catalog.tools)
        self._grammar = (key, grammar)
        return grammar

    def recognizer(self, grammar: Grammar, config: VoiceConfig) -> StreamingRecognizer:
        if config.backend not in BACKENDS:
            raise VoiceError(
                f"Unknown voice backend {config.backend!r}; use one of: {', '.join(BACKENDS)}."
            )
        with self._lock:
            if config.backend == "whisper":
                self._adopt_loaded_ahead()
            key = self._key(grammar, config)
            found = self._recognizers.get(key)
            if found is None:
                found = self._build(grammar, config)
                self._keep(key, found)
            return found

    def _keep(self, key: tuple[str, str], recognizer: StreamingRecognizer) -> None:
        """One recognizer per backend: a new grammar or model folder replaces the old."""
        kept = {k: v for k, v in self._recognizers.items() if k[0] != key[0]}
        self._recognizers = {**kept, key: recognizer}

    @staticmethod
    def _key(grammar: Grammar, config: VoiceConfig) -> tuple[str, str]:
        """What a recognizer depends on: the grammar, or Whisper's model folder."""
        if config.backend == "pocketsphinx":
            return (config.backend, grammar.signature)
        return (config.backend, config.model_folder)

    def _load_ahead(self, grammar: Grammar, config: VoiceConfig) -> None:
        """Starts loading the Whisper model of ``config`` on a thread, unless it is loaded
        or loading: the person is still speaking, and the load (about 2 s) overlaps
        that instead of following a rejection."""
        key = self._key(grammar, config)
        with self._lock:
            if key in self._recognizers or key in self._unloadable or self._loading is not None:
                return

            def load() -> None:
                try:
                    self._loaded = (key, self._build(grammar, config))
                except Exception:  # reported by the next build, on the thread that asks
                    self._loaded = (key, None)

            self._loading = threading.Thread(target=load, name="whisper-load", daemon=True)
            self._loading.start()

    def _adopt_loaded_ahead(self) -> None:
        """Waits for a load started ahead and keeps its recognizer. After a failed load the
        next use builds again, on the thread that asks, and reports the error."""
        loading = self._loading
        if loading is None:
            return
        loading.join()
        self._loading = None
        loaded, self._loaded = self._loaded, None
        if loaded is None:
            return
        key, found = loaded
        if found is None:
            self._unloadable.add(key)  # not loaded ahead again; asking still tries, and says why
        elif key not in self._recognizers:
            self._keep(key, found)

    @staticmethod
    def _build(grammar: Grammar, config: VoiceConfig) -> StreamingRecognizer:
        if config.backend == "whisper":
            from gibberish.voice.whisper import WhisperRecognizer

            return WhisperRecognizer(config.model_folder)
        from gibberish.voice.sphinx import DEFAULT_THRESHOLD, SphinxRecognizer

        threshold = DEFAULT_THRESHOLD if config.threshold is None else config.threshold
        return SphinxRecognizer(grammar, threshold=threshold)

    def sounds_like(self, grammar: Grammar) -> SoundsLike | None:
        """The grammar's forms spelled as phones, for matching free-form transcripts; None
        without RapidFuzz (it comes with the ``whisper`` extra)."""
        if importlib.util.find_spec("rapidfuzz") is None:
            return None
        with self._lock:
            cached = self._sounds_like
            if cached is None or cached[0] != grammar.signature:
                cached = self._sounds_like = (grammar.signature, SoundsLike(grammar.forms))
            return cached[1]

    def listen(self, source: AudioSource, catalog: ToolCatalog, config: VoiceConfig) -> Proposal:
        """Capture one utterance from ``source`` and turn it into a proposal
        (``decision.Decision``: the grammar's reading, then Whisper's when it is set up)."""
        began = time.perf_counter()
        grammar = self.grammar(catalog)
        recognizer = self.recognizer(grammar, config)
        asks = config.backend == "pocketsphinx" and self._can_ask(config)
        if asks:
            self._load_ahead(grammar, replace(config, backend="whisper"))
        kept = KeptAudio(recognizer) if asks else None
        decision = Decision(catalog, grammar, self.sounds_like(grammar))
        with self._lock:  # one utterance at a time per recognizer
            heard = capture(
                source,
                kept or recognizer,
                until_stopped=config.until_stopped,
                cut_off=config.cut_off,
            )
            ended = time.perf_counter()
            second_opinion = None
            if kept is not None:
                whisper = replace(config, backend="whisper")
                second_opinion = SecondOpinion(
                    bytes(kept.audio), lambda: self.recognizer(grammar, whisper)
                )
            proposal = decision.propose(heard, config.backend, second_opinion)
        done = time.perf_counter()
        # End of speech → proposal: the recognizer's finalization, then everything after
        # it, a second opinion included, whichever reading the proposal ends up holding.
        proposal.heard.timings["latency"] = heard.timings.get("finish", 0.0) + done - ended
        proposal.heard.timings["total"] = done - began
        return proposal

    @staticmethod
    def _can_ask(config: VoiceConfig) -> bool:
        return (
            config.second_opinion
            and bool(config.model_folder)
            and importlib.util.find_spec("faster_whisper") is not None
        )
