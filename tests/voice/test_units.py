"""Numbers, pronunciations, spoken forms, author phrases, WAV input and settings."""

from __future__ import annotations

import array
import wave
from pathlib import Path

import pytest

from gibberish.settings import _from_dict
from gibberish.skills.parser import parse_skill_text
from gibberish.voice import VoiceError, WavSource, grammar_for_tools, spoken
from gibberish.voice.audio import _sounddevice
from gibberish.voice.grammar import VoiceTool
from gibberish.voice.lexicon import pronounce
from gibberish.voice.matcher import PhraseMatcher
from gibberish.voice.numbers import parse_number, spoken_forms, spoken_number


def test_every_number_round_trips_through_its_spoken_forms() -> None:
    for n in range(1000):
        assert parse_number(spoken_number(n).split()) == n
    assert parse_number(["a", "hundred", "and", "five"]) == 105
    assert parse_number(["one", "hundred", "five"]) == 105
    assert parse_number(["21"]) == 21
    assert parse_number(["five", "five"]) is None
    assert len(spoken_forms()) > 1000


def test_words_missing_from_the_dictionary_still_get_a_pronunciation() -> None:
    assert pronounce("git") == ("G IH T", "dictionary")
    assert pronounce("uptime")[1] == "compound"
    assert pronounce("df") == ("D IY EH F", "spelled")
    phones, how = pronounce("zorbqux")
    assert how == "rules" and phones


SKILL = """---
name: demo
version: 1.0.0
description: A demo.
---

### zorbqux_tally

Count the zorbqux widgets in the nproc pool.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| limit | integer | no | How many |
| mode | string | no | Which: fast or slow (default: fast) |

#### Phrases

- tally the zorbqux {limit} times
- tally {mode} widgets
- use {nope} here
* spin the nproc wheel

Some prose that is not a phrase.

#### Command

```bash
echo {{limit}} {{mode}}
```
"""


def _demo(tmp_path: Path):
    path = tmp_path / "demo" / "SKILL.md"
    path.parent.mkdir()
    path.write_text(SKILL)
    skill = parse_skill_text(SKILL, path=path)
    assert skill.ok, [d.format() for d in skill.diagnostics]
    return skill


def test_author_phrases_are_read_from_the_phrases_section(tmp_path) -> None:
    tool = _demo(tmp_path).tools[0]
    assert tool.phrases == (
        "tally the zorbqux {limit} times",
        "tally {mode} widgets",
        "use {nope} here",
        "spin the nproc wheel",
    )


def test_grammar_from_unknown_words_loads_and_reports_bad_phrases(tmp_path) -> None:
    from gibberish.voice.sphinx import SphinxRecognizer

    tool = _demo(tmp_path).tools[0]
    grammar = grammar_for_tools([VoiceTool("zorbqux_tally", tool)])
    assert "tally the zorbqux <number> times" in grammar.text
    assert "tally (fast | slow) widgets" in grammar.text
    assert any("{nope}" in p for p in grammar.problems)
    recognizer = SphinxRecognizer(grammar)  # raises if any word lacked a pronunciation
    assert {"zorbqux", "nproc"} <= set(recognizer.pronunciations)
    matcher = PhraseMatcher(grammar.forms, free_text=False)
    found = matcher.match("tally the zorbqux twenty one times")
    assert (found.tool, found.arguments) == ("zorbqux_tally", {"limit": 21})
    assert matcher.match("tally slow widgets").arguments == {"mode": "slow"}
    assert matcher.match("tally the weather") is None


def _wav(path: Path, *, width=2, rate=16000, channels=1, frames=1600) -> Path:
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(channels)
        wav.setsampwidth(width)
        wav.setframerate(rate)
        wav.writeframes(bytes(width * channels * frames))
    return path


def test_other_widths_and_rates_are_converted_and_problems_explained(tmp_path) -> None:
    assert len(WavSource(_wav(tmp_path / "a.wav", width=1))._data) == 3200
    assert len(WavSource(_wav(tmp_path / "b.wav", rate=48000, frames=4800))._data) == 3200
    with pytest.raises(VoiceError, match="empty recording"):
        WavSource(_wav(tmp_path / "c.wav", frames=0))
    (tmp_path / "d.wav").write_text("not audio")
    with pytest.raises(VoiceError, match=r"not a recording gibberish can read.*sox"):
        WavSource(tmp_path / "d.wav")
    with pytest.raises(VoiceError, match="no such file"):
        WavSource(tmp_path / "missing.wav")
    with pytest.raises(VoiceError, match="is a folder"):
        WavSource(tmp_path)


def test_stereo_is_mixed_down(tmp_path) -> None:
    path = tmp_path / "s.wav"
    with wave.open(str(path), "wb") as wav:
        wav.setnchannels(2)
        wav.setsampwidth(2)
        wav.setframerate(16000)
        wav.writeframes(array.array("h", [100, 300] * 10).tobytes())
    assert list(array.array("h", WavSource(path)._data)) == [200] * 10


def test_a_missing_portaudio_library_names_the_package() -> None:
    try:
        import sounddevice  # noqa: F401
    except OSError:
        with pytest.raises(VoiceError, match="libportaudio2"):
            _sounddevice()
    else:
        pytest.skip("PortAudio is installed here")


def test_voice_settings_table() -> None:
    loaded = _from_dict(
        {"voice": {"backend": "whisper", "activation": "hold", "spoken_feedback": True}}, "cfg"
    )
    voice = loaded.settings.voice
    assert (voice.backend, voice.activation, voice.spoken_feedback) == (
        "whisper",
        "push_to_talk",
        True,
    )
    assert any("voice.activation" in n for n in loaded.notices)


def test_voice_layer_imports_no_front_end() -> None:
    """Voice sits above the Engine (``voice.spoken`` listens through it) and below the
    front ends; tests/test_layers.py holds the whole table."""
    import ast

    root = Path(__file__).resolve().parents[2] / "gibberish" / "voice"
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            for name in names:
                assert not name.startswith(("PySide6", "gibberish.ui", "gibberish.cli")), path


def test_the_grammar_follows_the_library(tmp_path) -> None:
    from gibberish.engine.core import Engine, EngineOptions

    folder = tmp_path / "skills" / "demo"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL)
    engine = Engine(
        EngineOptions(extra_skills_dirs=(folder.parent,), include_user=False, include_bundled=False)
    )
    before = spoken.voice_grammar(engine)
    assert "spin the nproc wheel" in before.text
    assert spoken.voice_grammar(engine) is before  # unchanged library: the cached grammar
    (folder / "SKILL.md").write_text(SKILL.replace("spin the nproc wheel", "whirl the gadget"))
    engine.library.reload()
    after = spoken.voice_grammar(engine)
    assert "whirl the gadget" in after.text and "spin the nproc wheel" not in after.text
    assert after.signature != before.signature


def test_meeting_mode_listens_only_when_asked_and_never_over_a_call(tmp_path) -> None:
    from msgspec.structs import replace

    from gibberish.desktop.focus import MicrophoneProbe
    from gibberish.engine.core import Engine, EngineOptions
    from gibberish.skills.model import Mode

    engine = Engine(EngineOptions(include_user=False, include_bundled=False))
    call = MicrophoneProbe(run=lambda argv: "42\t1\t3\tprotocol-native.c\ts16le 1ch 48000Hz\n")
    quiet = MicrophoneProbe(run=lambda argv: "")
    assert spoken.may_listen(engine, Mode.GLOBAL, microphone=True, probe=call) is None
    assert "Meeting mode" in spoken.may_listen(engine, Mode.MEETING)
    assert spoken.may_listen(engine, Mode.MEETING, asked=True, microphone=True, probe=quiet) is None
    assert "a call" in spoken.may_listen(
        engine, Mode.MEETING, asked=True, microphone=True, probe=call
    )
    engine.update_settings(
        replace(engine.settings, voice=replace(engine.settings.voice, listen_in_meeting=True))
    )
    assert spoken.may_listen(engine, Mode.MEETING, microphone=True, probe=quiet) is None
