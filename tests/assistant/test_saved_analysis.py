"""The router's analysis saved between processes: equal to a fresh build, never stale."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from gibberish.assistant.budget import functiongemma_cost, json_cost
from gibberish.assistant.saved_analysis import SavedAnalyses
from gibberish.assistant.skill_part import SkillPart
from gibberish.assistant.tool_index import ToolIndex
from gibberish.engine.core import Engine, EngineOptions
from gibberish.skills.model import Mode
from tests.assistant.test_tool_index import skill_md

CALLED: list[str] = []


def _mark() -> str:
    CALLED.append("ran")
    return "ran"


class _Hostile:
    """Unpickled by an unpickler that allows globals, this calls ``_mark``."""

    def __reduce__(self):
        return (_mark, ())


REQUESTS = ("weather forecast for tomorrow", "list the things of pack 3", "spelling", "")


def _write(root: Path, name: str, tools: dict[str, str]) -> None:
    (root / name).mkdir(parents=True, exist_ok=True)
    (root / name / "SKILL.md").write_text(skill_md(name, tools))


@pytest.fixture
def root(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    for i in range(12):
        _write(root, f"pack-{i}", {f"list_{i}": f"List the things of pack {i}.", "show": "Show."})
    _write(root, "weather", {"forecast": "Show the weather forecast for a city."})
    _write(root, "editor", {"spellcheck": "Check the spelling of a text.", "show": "Show it."})
    return root


def new_process(root: Path) -> Engine:
    """What a new ``gibberish ask`` finds: a new Engine over the same folders and caches."""
    return Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )


def saved_file(engine: Engine) -> Path:
    return SavedAnalyses.path_for(engine.feed._library.skill_library.cache_path)


def analysed_afresh(monkeypatch) -> list[str]:
    """The skills ``SkillPart.of`` analyses from now on, by name."""
    seen: list[str] = []
    original = SkillPart.of.__func__

    def recording(cls, skill, tools):
        seen.append(skill.name)
        return original(cls, skill, tools)

    monkeypatch.setattr(SkillPart, "of", classmethod(recording))
    return seen


def assert_same_as_fresh(index: ToolIndex, engine: Engine, mode: Mode) -> None:
    fresh = ToolIndex.build(engine.feed._library.skills(), mode)
    assert [t.name for t in index.tools] == [t.name for t in fresh.tools]
    for ours, theirs in zip(index.parts, fresh.parts, strict=True):
        assert [set(w) for w in ours.name_words] == [set(w) for w in theirs.name_words]
        assert [set(w) for w in ours.text_words] == [set(w) for w in theirs.text_words]
        assert ours.vocabulary == theirs.vocabulary
        assert ours.cost(functiongemma_cost) == theirs.cost(functiongemma_cost)
        assert ours.cost(json_cost) == theirs.cost(json_cost)
    for request in REQUESTS:
        for budget in (60, 400, 4096):
            a, b = index.select(request, budget), fresh.select(request, budget)
            assert [t.name for t in a.tools] == [t.name for t in b.tools]
            assert a.tokens == b.tokens


def test_a_new_process_analyses_nothing_and_gets_the_index_a_fresh_build_gives(root, monkeypatch):
    new_process(root).feed.tool_index(Mode.DEV)
    seen = analysed_afresh(monkeypatch)
    engine = new_process(root)
    index = engine.feed.tool_index(Mode.DEV)
    assert seen == []
    assert len(index.tools) == 27
    assert_same_as_fresh(index, engine, Mode.DEV)


def test_an_edited_skill_md_is_analysed_again_and_only_it(root, monkeypatch):
    new_process(root).feed.tool_index(Mode.DEV)
    _write(root, "weather", {"forecast": "Tell whether thunder comes."})
    seen = analysed_afresh(monkeypatch)
    engine = new_process(root)
    index = engine.feed.tool_index(Mode.DEV)
    assert seen == ["weather"]
    assert any("thunder" in p.vocabulary for p in index.parts)
    assert_same_as_fresh(index, engine, Mode.DEV)
    seen.clear()
    new_process(root).feed.tool_index(Mode.DEV)  # the edit was saved in turn
    assert seen == []


def test_a_tool_renamed_by_a_new_clash_is_analysed_under_its_new_name(root, monkeypatch):
    new_process(root).feed.tool_index(Mode.DEV)
    _write(root, "zebra", {"forecast": "Forecast the zebras."})  # clashes with weather's
    seen = analysed_afresh(monkeypatch)
    engine = new_process(root)
    index = engine.feed.tool_index(Mode.DEV)
    assert sorted(seen) == ["weather", "zebra"]
    assert_same_as_fresh(index, engine, Mode.DEV)


def test_a_skill_whose_trust_changed_is_analysed_again(root, monkeypatch):
    new_process(root).feed.tool_index(Mode.DEV)
    (root / "weather" / ".gibberish-source.json").write_text("{}")  # provenance: untrusted
    seen = analysed_afresh(monkeypatch)
    engine = new_process(root)
    index = engine.feed.tool_index(Mode.DEV)
    assert engine.feed._library.get("weather").trust.value == "untrusted"
    assert "weather" in seen
    assert_same_as_fresh(index, engine, Mode.DEV)


@pytest.mark.parametrize(
    "damage",
    [
        lambda path: path.write_bytes(path.read_bytes()[:100]),  # truncated
        lambda path: path.write_bytes(b"not a pickle at all"),
        lambda path: path.write_bytes(pickle.dumps(("stamp", {"k": "v"}))),  # foreign stamp
        lambda path: path.write_bytes(pickle.dumps((_Hostile(), {}))),  # a global: refused
        lambda path: path.chmod(0o666),  # others may write it
    ],
    ids=["truncated", "garbage", "foreign", "global", "writable-by-others"],
)
def test_a_damaged_or_foreign_file_is_ignored_and_rewritten(root, monkeypatch, damage):
    engine = new_process(root)
    engine.feed.tool_index(Mode.DEV)
    path = saved_file(engine)
    assert path.exists()
    damage(path)
    seen = analysed_afresh(monkeypatch)
    engine = new_process(root)
    index = engine.feed.tool_index(Mode.DEV)
    assert len(seen) == 14
    assert_same_as_fresh(index, engine, Mode.DEV)
    assert path.stat().st_mode & 0o077 == 0
    seen.clear()
    new_process(root).feed.tool_index(Mode.DEV)
    assert seen == []
    assert CALLED == []


def test_a_damaged_value_of_the_right_stamp_is_refused(root, monkeypatch):
    engine = new_process(root)
    engine.feed.tool_index(Mode.DEV)
    path = saved_file(engine)
    stamp, saved = pickle.loads(path.read_bytes())
    key = next(iter(saved))
    saved[key] = (("not", "frozensets"), (), {})
    path.write_bytes(pickle.dumps((stamp, saved)))
    seen = analysed_afresh(monkeypatch)
    engine = new_process(root)
    assert_same_as_fresh(engine.feed.tool_index(Mode.DEV), engine, Mode.DEV)
    assert len(seen) == 14


@pytest.mark.parametrize("shape", [" ".join, frozenset, list])
def test_words_of_another_shape_are_refused(root, monkeypatch, shape):
    """Each tool's words are a tuple: a string of the same words (where ``in`` would find
    parts of words), the frozensets of the first format or a list are refused whole."""
    engine = new_process(root)
    engine.feed.tool_index(Mode.DEV)
    path = saved_file(engine)
    stamp, saved = pickle.loads(path.read_bytes())
    key = next(iter(saved))
    names, texts, costs = saved[key]
    saved[key] = (tuple(shape(w) for w in names), texts, costs)
    path.write_bytes(pickle.dumps((stamp, saved)))
    seen = analysed_afresh(monkeypatch)
    engine = new_process(root)
    assert_same_as_fresh(engine.feed.tool_index(Mode.DEV), engine, Mode.DEV)
    assert len(seen) == 14
