"""The settings file: round trip, bad values, a corrupted file kept aside."""

from __future__ import annotations

from pathlib import Path

from msgspec.structs import replace

from gibberish import paths
from gibberish.settings import ModelSettings, Settings, load_settings, save_settings


def test_missing_file_gives_defaults_silently() -> None:
    loaded = load_settings()
    assert loaded.settings == Settings() and loaded.notices == ()


def test_round_trip() -> None:
    settings = replace(
        Settings(),
        extra_skills_dirs=("~/more-skills",),
        auto_mode=False,
        mode="Dev",
        grace_period=1.5,
        model=ModelSettings(enabled=True, model="other", api="openai", budget=900),
        apps={"terminals": ("foot",)},
    )
    path = save_settings(settings)
    assert path == paths.config_file()
    assert load_settings().settings == settings
    assert settings.extra_skill_paths[0] == Path.home() / "more-skills"


def test_corrupted_file_is_kept_aside_and_defaults_are_used() -> None:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("auto_mode = [unterminated\n")
    loaded = load_settings()
    assert loaded.settings == Settings()
    [notice] = loaded.notices
    assert "not valid TOML" in notice and "kept as" in notice
    kept = list(path.parent.glob("config.toml.broken-*"))
    assert len(kept) == 1 and kept[0].read_text() == "auto_mode = [unterminated\n"
    assert not path.exists()


def test_bad_values_fall_back_one_by_one() -> None:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        'mode = "Party"\ngrace_period = -3\nauto_mode = "yes"\nstart_at_login = true\n'
        '[model]\napi = "telepathy"\nbudget = 500\n'
    )
    loaded = load_settings()
    s = loaded.settings
    assert s.mode == "Global" and s.grace_period == 5.0 and s.auto_mode is True
    assert s.start_at_login is True and s.model.budget == 500 and s.model.api == "ollama-generate"
    assert len(loaded.notices) == 4
    assert any("mode = 'Party'" in n for n in loaded.notices)


def test_binary_file_is_a_notice_not_a_crash() -> None:
    path = paths.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"\xff\xfe\x00garbage")
    loaded = load_settings()
    assert loaded.settings == Settings() and loaded.notices


def test_model_api_names_match_the_model_feed() -> None:
    from gibberish.assistant import Api
    from gibberish.settings import MODEL_APIS

    assert tuple(a.value for a in Api) == MODEL_APIS
