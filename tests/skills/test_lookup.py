"""Looking up one skill (``gibberish run SKILL.TOOL``) reads its folder alone, with the
precedence and override rules of a full scan."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish.engine.core import Engine, EngineError, EngineOptions
from gibberish.skills.library import SkillLibrary, SkillSource
from gibberish.skills.model import Trust
from tests.skills.fixtures.skillkit import make_skill, tool_block
from tests.skills.test_cache import Counter


def skill(root: Path, name: str, word: str) -> None:
    make_skill(root, name, tools=[tool_block("say", "Say it.", f"echo {word}")])


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Counter:
    return Counter(monkeypatch)


@pytest.fixture
def sources(tmp_path: Path) -> list[SkillSource]:
    user, extra, bundled = (tmp_path / n for n in ("user", "extra", "bundled"))
    for name in ("shared", "pair"):
        skill(bundled, name, "bundled")
    skill(extra, "shared", "extra")
    skill(extra, "pair", "extra")
    skill(user, "shared", "user")
    (user / "pair").mkdir()  # a folder without SKILL.md is not a skill: it shadows nothing
    for i in range(20):
        skill(bundled, f"other{i}", "other")
    return [
        SkillSource(user, Trust.USER),
        SkillSource(extra, Trust.USER),
        SkillSource(bundled, Trust.BUNDLED),
    ]


def said(library: SkillLibrary, name: str) -> str:
    found = library.lookup(name)
    assert found is not None
    return found.tools[0].command.source.split()[-1]


def test_lookup_follows_the_precedence_of_a_scan(sources, counter) -> None:
    library = SkillLibrary(sources)
    assert said(library, "shared") == "user"
    assert said(library, "pair") == "extra"
    assert said(library, "other3") == "other"
    assert counter.parses == ["shared", "pair", "other3"]
    full = SkillLibrary(sources)
    full.load()
    for name in ("shared", "pair", "other3"):
        assert library.lookup(name) == full.get(name)


@pytest.mark.parametrize("name", ["", "../user/shared", "extra/shared", ".hidden", "nothere"])
def test_lookup_finds_nothing_outside_a_source(sources, counter, name) -> None:
    (sources[0].path / ".hidden").mkdir()
    assert SkillLibrary(sources).lookup(name) is None
    assert counter.parses == []


def test_the_engine_runs_a_tool_after_reading_its_skill_alone(tmp_path, counter) -> None:
    for i in range(30):
        skill(tmp_path / "many", f"s{i}", str(i))
    engine = Engine(
        EngineOptions(
            extra_skills_dirs=(tmp_path / "many",), include_user=False, include_bundled=False
        )
    )
    ref = engine.library.find_tool("s7.say")
    assert counter.parses == ["s7"] and ref.tool.command.source.endswith("7")
    prepared = engine.runs.prepare("s7.say")
    assert prepared.argv == ("echo", "7")
    with pytest.raises(EngineError, match="Known skills: s0, s1"):
        engine.library.find_tool("nothere.say")
