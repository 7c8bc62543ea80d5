"""The spoken test set: phrases, what each must become, and how the WAVs are synthesized.

Shared by the tests and ``benchmarks/voice.py``. The WAVs under ``fixtures/`` were made by
``synthesize`` (espeak-ng and flite, resampled by sox to 16 kHz mono 16-bit) and are
committed, so the suite needs none of those programs; a test regenerates them when they
are installed and checks they still decode the same way.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

FIXTURES = Path(__file__).parent / "fixtures"


@dataclass(frozen=True)
class Phrase:
    text: str
    tool: str | None
    """Expected exposed tool name; None means it must be rejected (no match)."""
    arguments: dict[str, Any] = field(default_factory=dict)
    status: str = "ok"

    @property
    def slug(self) -> str:
        return re.sub(r"[^a-z0-9]+", "_", self.text.lower()).strip("_")


IN_GRAMMAR = (
    Phrase("show git status", "git_status"),
    Phrase("what is the git status", "git_status"),
    Phrase("show the last five commits", "git_log", {"count": 5}),
    Phrase("show the last twenty one commits", "git_log", {"count": 21}),
    Phrase("show the last one hundred and five commits", "git_log", {"count": 105}),
    Phrase("git log count three", "git_log", {"count": 3}),
    Phrase("show recent commits", "git_log"),
    Phrase("show the diff", "git_diff"),
    Phrase("show the staged changes", "git_diff", {"staged": True}),
    Phrase("list the branches", "git_branches"),
    Phrase("show disk usage", "disk_usage"),
    Phrase("how much memory is free", "memory_usage"),
    Phrase("show the uptime", "uptime"),
    Phrase("show the top fifteen processes", "top_processes", {"count": 15}),
    Phrase("show top processes by cpu", "top_processes", {"sort_by": "cpu"}),
    Phrase("show my notes", "read_notes"),
    Phrase("show the last twelve notes", "read_notes", {"count": 12}),
    Phrase("list this folder", "list_folder"),
    Phrase("take a note", "add_note", status="needs_arguments"),
)
OUT_OF_GRAMMAR = (
    Phrase("play some music", None),
    Phrase("what is the weather", None),
    Phrase("turn off the lights", None),
    Phrase("send an email to my boss", None),
    Phrase("set a timer for ten minutes", None),
    Phrase("call my mother", None),
    Phrase("good morning everybody", None),
    Phrase("book a table for two", None),
)
PHRASES = IN_GRAMMAR + OUT_OF_GRAMMAR

VOICES = {
    "slt": ["flite", "-voice", "slt", "-t", "{text}", "-o", "{out}"],
    "kal16": ["flite", "-voice", "kal16", "-t", "{text}", "-o", "{out}"],
    "espeak": ["espeak-ng", "-v", "en-us", "-s", "150", "-w", "{out}", "{text}"],
}
CLEAR_VOICES = ("slt", "kal16")
"""Voices the recognizer must get exactly right; espeak-ng's robotic formants are harder
for PocketSphinx's acoustic model, so for it the suite asks only for no wrong tool."""


def fixture(phrase: Phrase, voice: str) -> Path:
    return FIXTURES / f"{voice}-{phrase.slug}.wav"


def synthesizers_missing() -> list[str]:
    needed = {"sox"} | {argv[0] for argv in VOICES.values()}
    return sorted(p for p in needed if shutil.which(p) is None)


def synthesize(text: str, voice: str, out: Path) -> Path:
    """Speak ``text`` with ``voice`` into a 16 kHz mono 16-bit WAV, silence trimmed to 0.25 s."""
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.wav"
        argv = [a.format(out=raw, text=text) for a in VOICES[voice]]
        subprocess.run(argv, check=True, capture_output=True, timeout=60)
        subprocess.run(
            [
                "sox",
                str(raw),
                "-r",
                "16000",
                "-c",
                "1",
                "-b",
                "16",
                str(out),
                "silence",
                "1",
                "0.02",
                "0.5%",
                "reverse",
                "silence",
                "1",
                "0.02",
                "0.5%",
                "reverse",
                "pad",
                "0.25",
                "0.25",
            ],
            check=True,
            capture_output=True,
            timeout=60,
        )
    return out


def add_noise(clean: Path, out: Path, *, volume: float = 0.02) -> Path:
    """``clean`` mixed with white noise (sox), same format."""
    with tempfile.TemporaryDirectory() as tmp:
        noise = Path(tmp) / "noise.wav"
        subprocess.run(
            ["sox", str(clean), str(noise), "synth", "whitenoise", "vol", str(volume)],
            check=True,
            capture_output=True,
            timeout=60,
        )
        subprocess.run(
            ["sox", "-m", str(clean), str(noise), "-b", "16", str(out)],
            check=True,
            capture_output=True,
            timeout=60,
        )
    return out


NOISY = ((IN_GRAMMAR[0], "slt"), (IN_GRAMMAR[2], "slt"), (IN_GRAMMAR[2], "kal16"))


def noisy_fixture(phrase: Phrase, voice: str) -> Path:
    return FIXTURES / f"noisy-{voice}-{phrase.slug}.wav"


def regenerate(into: Path = FIXTURES) -> list[Path]:
    into.mkdir(parents=True, exist_ok=True)
    made = []
    for phrase in PHRASES:
        for voice in VOICES:
            made.append(synthesize(phrase.text, voice, into / fixture(phrase, voice).name))
    for phrase, voice in NOISY:
        clean = into / fixture(phrase, voice).name
        made.append(add_noise(clean, into / noisy_fixture(phrase, voice).name))
    return made


if __name__ == "__main__":
    for path in regenerate():
        print(path)
