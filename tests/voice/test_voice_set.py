"""The synthetic voices of benchmarks/voice_unseen.py are made once into a kept folder and
measured again from it, with a checksum that says it is the same set."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from benchmarks.voice_unseen import HELD_OUT_VOICES, checksum, voice_set
from tests.voice.corpus import IN_GRAMMAR, OUT_OF_GRAMMAR

pytestmark = pytest.mark.skipif(
    shutil.which("flite") is None, reason="flite is not installed (Debian: flite)"
)


def test_a_voice_set_is_made_once_and_its_checksum_follows_its_files(tmp_path: Path) -> None:
    chosen = {"flite-slt-low": HELD_OUT_VOICES["flite-slt-low"]}
    if shutil.which("sox") is None:
        pytest.skip("sox is not installed")
    files, digest = voice_set(chosen, tmp_path / "set")
    assert len(files) == len(IN_GRAMMAR + OUT_OF_GRAMMAR)
    assert sorted(p.name for p in (tmp_path / "set" / "flite-slt-low").iterdir()) == sorted(
        f"{p.slug}.wav" for p in IN_GRAMMAR + OUT_OF_GRAMMAR
    )  # only the recordings are kept
    made = {k: p.stat().st_mtime_ns for k, p in files.items()}
    again, same = voice_set(chosen, tmp_path / "set")
    assert same == digest and {k: p.stat().st_mtime_ns for k, p in again.items()} == made
    first = next(iter(sorted(files.values())))
    first.write_bytes(first.read_bytes()[:-2] + b"\x00\x01")
    assert checksum(files) != digest
