"""``gibberish listen --file``, ``voice grammar`` and ``voice devices`` end to end."""

from __future__ import annotations

import json
import wave

from click.testing import CliRunner

from gibberish.cli import cli
from tests.voice.corpus import IN_GRAMMAR, OUT_OF_GRAMMAR, fixture


def _run(*args: str):
    return CliRunner().invoke(cli, ["--no-user-skills", *args], catch_exceptions=False)


def test_listen_dry_run_proposes_git_log_with_count_five() -> None:
    result = _run("listen", "--file", str(fixture(IN_GRAMMAR[2], "slt")), "--dry-run")
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["heard"]["text"] == "show the last five commits"
    assert (out["call"]["skill"], out["call"]["tool"]) == ("git", "git_log")
    assert out["call"]["arguments"] == {"count": 5}
    assert out["argv"][-2:] == ["-n", "5"]
    assert out["decision"]["kind"] == "run"
    assert result.stderr.startswith("heard “show the last five commits”: confidence 0.")


def test_listen_names_the_number_the_recognizer_was_torn_on() -> None:
    fifteen = next(p for p in IN_GRAMMAR if p.text == "show the top fifteen processes")
    result = _run("listen", "--file", str(fixture(fifteen, "kal16")), "--dry-run")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["call"]["arguments"] == {"count": 15}
    assert result.stderr.startswith(
        "heard “show the top fifteen processes”, or perhaps “show the top fifty processes”: "
    )


def test_listen_runs_through_the_engine_and_prints_the_envelope(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    result = _run("listen", "--file", str(fixture(IN_GRAMMAR[0], "slt")), "--json")
    lines = [json.loads(x) for x in result.stdout.splitlines() if x.strip()]
    assert lines[0]["call"]["tool"] == "git_status"
    envelope = lines[-1]
    assert "exit_code" in envelope and envelope["exit_code"] is not None


def test_listen_out_of_grammar_exits_1_with_no_match() -> None:
    result = _run("listen", "--file", str(fixture(OUT_OF_GRAMMAR[1], "slt")), "--dry-run")
    assert result.exit_code == 1
    assert "No tool matches" in result.stderr


def test_listen_converts_a_44_1_khz_24_bit_stereo_extensible_wav(tmp_path) -> None:
    """What many recorders write (format tag 65534), once refused as an unknown format."""
    import numpy
    import soundfile
    import soxr

    samples, rate = soundfile.read(fixture(IN_GRAMMAR[2], "slt"), dtype="float64")
    resampled = soxr.resample(samples, rate, 44100)
    stereo = numpy.stack([resampled, 0.5 * resampled], axis=1)
    path = tmp_path / "recorder.wav"
    soundfile.write(path, stereo, 44100, subtype="PCM_24", format="WAVEX")
    assert int.from_bytes(path.read_bytes()[20:22], "little") == 0xFFFE
    result = _run("listen", "--file", str(path), "--dry-run")
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["call"]["arguments"] == {"count": 5}


def test_listen_explains_a_file_that_is_not_a_recording(tmp_path) -> None:
    path = tmp_path / "broken.wav"
    path.write_bytes(b"RIFF\x10\x00\x00\x00WAVEfmt ")
    result = _run("listen", "--file", str(path))
    assert result.exit_code == 1
    assert "is not a recording gibberish can read" in result.stderr and "sox" in result.stderr
    assert "Traceback" not in result.output and "internal error" not in result.output


def test_listen_says_when_the_recording_is_empty(tmp_path) -> None:
    path = tmp_path / "empty.wav"
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(1)
        wav.setsampwidth(2)
        wav.setframerate(16000)
    result = _run("listen", "--file", str(path))
    assert result.exit_code == 1
    assert "empty recording" in result.stderr


def test_listen_needs_arguments_suggests_the_run_command() -> None:
    result = _run("listen", "--file", str(fixture(IN_GRAMMAR[-1], "slt")), "--dry-run")
    assert result.exit_code == 1
    assert "Missing: text" in result.stderr
    assert "gibberish run take-note.add_note --arg text=" in result.stderr


def test_voice_grammar_prints_jsgf_with_spoken_numbers() -> None:
    result = _run("voice", "grammar")
    assert result.exit_code == 0
    assert result.stdout.startswith("#JSGF V1.0;")
    assert "show the last <number> commits" in result.stdout
    assert "<number> =" in result.stdout


def test_voice_devices_without_portaudio_names_the_package() -> None:
    try:
        import sounddevice  # noqa: F401
    except OSError:
        result = _run("voice", "devices")
        assert result.exit_code == 1
        assert "libportaudio2" in result.stderr
    else:
        result = _run("voice", "devices")
        assert result.exit_code in (0, 1)
        assert "Traceback" not in result.output
