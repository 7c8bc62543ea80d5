"""One settings schema: every key and type checked at load, old files still read.

Hostile ``config.toml`` files (wrong keys, wrong types, typos) must give a notice that
names the key, the value and what is allowed — on ``run``, ``skills list`` and ``mode`` —
never an internal error. The golden files under ``tests/settings_files/`` are settings
files as earlier versions wrote them; each must load as it did, with no notice.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from msgspec.structs import fields

from gibberish import paths
from gibberish.assistant.settings import Api, ModelSettings
from gibberish.desktop.modes import AppLists
from gibberish.settings import APP_LISTS, Settings, load_settings, save_settings
from gibberish.voice.settings import Activation, VoiceBackend, VoiceSettings

GOLDEN = Path(__file__).parent / "settings_files"

HOSTILE = {
    "apps-typo": ('[apps]\nbrowsers = ["firefox"]\n', "apps.browsers", "terminals"),
    "mode-list": ('mode = ["Dev"]\n', "mode = ['Dev']", "'Dev'"),
    "mode-unknown": ('mode = "Party"\n', "mode = 'Party'", "'Writer'"),
    "grace-text": ('grace_period = "soon"\n', "grace_period = 'soon'", "0 to 60 seconds"),
    "auto-mode-int": ("auto_mode = 1\n", "auto_mode = 1", "true or false"),
    "model-not-table": ('model = "functiongemma"\n', "[model]", "a table"),
    "model-api-typo": ('[model]\napi = "olama"\n', "model.api = 'olama'", "'ollama-chat'"),
    "voice-backend": ('[voice]\nbackend = "vosk"\n', "voice.backend = 'vosk'", "'whisper'"),
    "apps-not-list": ('[apps]\nterminals = "kitty"\n', "apps.terminals = 'kitty'", "a list"),
    "top-typo": ('extra_skill_dirs = ["~/s"]\n', "extra_skill_dirs", "extra_skills_dirs"),
}
"""name -> (config.toml, what the notice must quote, what it must say is allowed)."""


def _write(text: str) -> Path:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_a_hostile_file_is_a_notice_naming_key_value_and_what_is_allowed(name: str) -> None:
    text, quoted, allowed = HOSTILE[name]
    loaded = load_settings(_write(text))
    assert len(loaded.notices) == 1, loaded.notices
    [notice] = loaded.notices
    assert quoted in notice and allowed in notice, notice
    assert str(paths.config_file()) in notice
    assert loaded.settings == Settings()  # the default stands in for what was wrong


@pytest.mark.parametrize(
    "command",
    [["run", "system.uptime", "--yes", "--json"], ["skills", "list"], ["mode"]],
    ids=["run", "skills-list", "mode"],
)
@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_commands_run_with_a_hostile_file(name: str, command: list[str], no_sandbox) -> None:
    from gibberish.cli.root import cli

    text, quoted, _ = HOSTILE[name]
    _write(text)
    result = CliRunner().invoke(cli, ["--no-user-skills", *command])
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert result.exit_code == 0, result.output + result.stderr
    assert "internal error" not in result.stderr
    assert quoted in result.stderr  # the notice, once, on stderr


def test_a_typo_is_answered_with_the_likely_key() -> None:
    [notice] = load_settings(_write('[voice]\nbakend = "whisper"\n')).notices
    assert "did you mean voice.backend?" in notice


def test_the_good_keys_of_a_partly_wrong_file_are_kept() -> None:
    loaded = load_settings(
        _write('grace_period = 2\n[model]\nbudget = 0\nenabled = true\n[voice]\nbackend = "x"\n')
    )
    assert loaded.settings.grace_period == 2.0 and loaded.settings.model.enabled
    assert loaded.settings.model.budget == ModelSettings().budget
    assert len(loaded.notices) == 2


def test_the_app_lists_of_the_settings_are_those_mode_detection_knows() -> None:
    assert tuple(f.name for f in fields(AppLists)) == APP_LISTS


def test_the_typed_settings_are_enums() -> None:
    settings = load_settings(_write('[model]\napi = "openai"\n[voice]\nactivation = "toggle"\n'))
    assert settings.settings.model.api is Api.OPENAI
    assert settings.settings.voice.activation is Activation.TOGGLE


GOLDEN_EXPECTED = {
    "0.1-defaults.toml": Settings(),
    "0.1-model.toml": Settings(
        extra_skills_dirs=("~/more-skills",),
        auto_mode=False,
        mode="Dev",
        grace_period=2.5,
        model=ModelSettings(
            enabled=True,
            endpoint="http://127.0.0.1:8080/v1",
            model="other",
            api=Api.OPENAI,
            timeout=12.0,
            budget=900,
            stream=False,
            temperature=0.5,
            max_tokens=128,
        ),
    ),
    "0.1-voice-apps-mcp.toml": Settings(
        start_at_login=True,
        apps={"terminals": ("kitty", "foot"), "meetings": ("zoom",)},
        mcp_servers={"files": {"command": "mcp-files", "args": ["--root", "~"]}},
        voice=VoiceSettings(
            backend=VoiceBackend.WHISPER,
            microphone="USB Headset",
            model_folder="~/models/whisper-small",
            activation=Activation.TOGGLE,
            spoken_feedback=True,
            listen_in_meeting=True,
            second_opinion=False,
        ),
    ),
}


@pytest.mark.parametrize("name", sorted(GOLDEN_EXPECTED))
def test_old_settings_files_load_as_they_did(name: str, tmp_path: Path) -> None:
    loaded = load_settings(GOLDEN / name)
    assert loaded.notices == ()
    assert loaded.settings == GOLDEN_EXPECTED[name]
    again = save_settings(loaded.settings, tmp_path / "config.toml")  # and round-trip
    assert load_settings(again) == loaded


def test_every_golden_file_is_checked() -> None:
    assert sorted(p.name for p in GOLDEN.glob("*.toml")) == sorted(GOLDEN_EXPECTED)
