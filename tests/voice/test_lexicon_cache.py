"""Pronunciations are cached per PocketSphinx version: a warm start never reads the dictionary."""

from __future__ import annotations

import json

import pytest

from gibberish.voice import lexicon


def _no_dictionary() -> dict[str, str]:
    raise AssertionError("the CMU dictionary was read although every word was cached")


def test_a_second_lookup_comes_from_the_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    path = lexicon.cache_file()
    assert not path.exists()
    first = lexicon.pronunciations(["uptime", "git", "zorbqux"])
    assert path.is_file()
    assert json.loads(path.read_text())["git"] == "G IH T"
    monkeypatch.setattr(lexicon, "cmu_dictionary", _no_dictionary)
    assert lexicon.pronunciations(["git", "uptime", "zorbqux"]) == first


def test_a_broken_cache_is_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    path = lexicon.cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    for junk in ("{not json", "[1, 2]", json.dumps({"git": 5, "df": ""})):
        path.write_text(junk)
        assert lexicon.pronunciations(["git", "df"]) == {"git": "G IH T", "df": "D IY EH F"}
        assert json.loads(path.read_text())["git"] == "G IH T"


def test_the_cache_file_names_the_recognizer_and_rules_version() -> None:
    from importlib import metadata

    name = lexicon.cache_file().name
    assert metadata.version("pocketsphinx") in name
    assert name.endswith(f"-{lexicon.RULES_VERSION}.json")


def test_an_unwritable_cache_folder_still_gives_pronunciations(tmp_path, monkeypatch) -> None:
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    monkeypatch.setattr(lexicon, "cache_dir", lambda: blocked)
    assert lexicon.pronunciations(["git"]) == {"git": "G IH T"}
