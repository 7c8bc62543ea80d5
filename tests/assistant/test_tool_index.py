"""The router's tool index: the same choices as plain scoring, and never a stale index."""

from __future__ import annotations

import random
import shutil
import threading
from pathlib import Path

import pytest

from gibberish.assistant.budget import functiongemma_cost, json_cost, select_tools
from gibberish.assistant.clients import Api, ModelReply, ModelRequest, ModelSettings
from gibberish.assistant.functiongemma import render_call
from gibberish.assistant.naming import ToolCatalog
from gibberish.assistant.router import Router
from gibberish.assistant.tool_index import ToolIndex, ToolIndexCache
from gibberish.engine.core import Engine, EngineOptions
from gibberish.skills.model import Diagnostic, Mode, Severity, ToolDefinition
from tests.assistant.builders import P, param, skill

# ------------------------------------------------------------------ same choices

WORDS = [
    "show",
    "list",
    "git",
    "log",
    "commit",
    "status",
    "diff",
    "branch",
    "file",
    "files",
    "folder",
    "search",
    "find",
    "image",
    "convert",
    "resize",
    "photo",
    "note",
    "notes",
    "deploy",
    "preview",
    "build",
    "test",
    "run",
    "server",
    "port",
    "network",
    "disk",
    "usage",
    "space",
    "size",
    "recent",
    "latest",
    "history",
    "weather",
    "forecast",
    "calendar",
    "meeting",
    "mail",
    "ünïcode",
    "naïve",
    "café",
]


def _sentence(rng: random.Random, low: int, high: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(low, high)))


def corpus(seed: int, count: int = 60) -> list:
    """Skills with clashing tool names (qualified exposed names), modes, a broken skill,
    an instruction skill, empty descriptions and declarations bigger than any budget."""
    rng = random.Random(seed)
    skills = []
    for i in range(count):
        tools = []
        for t in range(rng.randint(1, 5)):
            name = rng.choice(["status", "log", "search", "run", f"tool_{i}_{t}", "git__log"])
            if any(x.name == name for x in tools):
                name = f"{name}_{t}"
            params = tuple(
                param(
                    f"p{k}_{rng.choice(WORDS[:10])}",
                    P.STRING,
                    rng.random() < 0.5,
                    _sentence(rng, 0, 6),
                )
                for k in range(rng.randint(0, 3))
            )
            size = rng.choice([(0, 0), (2, 12), (2, 12), (300, 400)])
            tools.append(ToolDefinition(name, _sentence(rng, *size), params))
        modes = rng.choice([(Mode.GLOBAL,), (Mode.DEV,), (Mode.WRITER,), (Mode.DEV, Mode.MEETING)])
        diagnostics = ()
        if i % 17 == 5:
            diagnostics = (Diagnostic(Severity.ERROR, "E-TEST", "broken on purpose"),)
        name = f"{rng.choice(WORDS[:20])}-{i}"
        skills.append(skill(name, _sentence(rng, 0, 10), tools, modes, diagnostics=diagnostics))
    skills.append(skill("only-instructions", "show notes", [], (Mode.GLOBAL,)))
    return skills


REQUESTS = [
    "show me the git log",
    "find the latest photos and resize them",
    "what is the weather",  # shares few words
    "zzz qqq",  # shares none: catalog order fills the budget
    "the a of",  # function words only
    "",
    "ÜNÏCODE café",
    "disk space on the server, please",
    "git__log status status status",
    "tool 7 of skill 12",  # words in a few names only
    "café 31 naïve",
]


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("cost", [functiongemma_cost, json_cost], ids=["gemma", "json"])
def test_the_index_chooses_exactly_what_plain_scoring_chooses(seed, cost):
    skills = corpus(seed)
    cache = ToolIndexCache()
    for mode in (None, Mode.DEV, Mode.WRITER, Mode.MEETING):
        catalog = ToolCatalog.from_skills(skills, mode)
        index = cache.get(skills, mode)
        assert [t.name for t in index.tools] == catalog.names()
        for request in REQUESTS:
            for budget in (1, 200, 700, 2048, 100_000):
                want = select_tools(catalog.tools, request, budget, cost=cost)
                got = index.select(request, budget, cost=cost)
                assert [t.name for t in got.tools] == [t.name for t in want.tools], request
                assert got.tokens == want.tokens
                assert got.scores == want.scores
                assert [t.name for t in got.omitted] == [t.name for t in want.omitted]


def test_an_index_over_given_tools_keeps_those_very_objects():
    catalog = ToolCatalog.from_skills(corpus(4))
    index = ToolIndex.of_tools(catalog.tools)
    assert index.tools == catalog.tools  # identity: ExposedTool compares by identity
    got = index.select("git log", 2048)
    assert [t.name for t in got.tools] == [
        t.name for t in select_tools(catalog.tools, "git log", 2048).tools
    ]


def test_an_empty_index_selects_nothing():
    index = ToolIndexCache().get([], Mode.DEV)
    selection = index.select("show the log", 2048)
    assert selection.tools == () and len(index) == 0


# ------------------------------------------------------------------ never stale


def skill_md(name: str, tools: dict[str, str], modes: str = "Global") -> str:
    blocks = [
        f"### {tool}\n\n{description}\n\n#### Parameters\n\nNone.\n\n"
        f"#### Command\n\n```bash\necho {tool}\n```\n"
        for tool, description in tools.items()
    ]
    return (
        f"---\nname: {name}\nversion: 1.0.0\ndescription: Tools of {name}.\n"
        f"modes:\n  - {modes}\n---\n\n" + "\n".join(blocks)
    )


class Recorder:
    """A client that records what it was offered and calls the first tool offered."""

    def __init__(self) -> None:
        self.settings = ModelSettings(api=Api.OLLAMA_GENERATE, budget=2048)
        self.offered: list[list[str]] = []

    def complete(self, request: ModelRequest, *, cancel=None, on_text=None) -> ModelReply:
        self.offered.append([render_call(t.name, {}) + t.description for t in request.tools])
        return ModelReply(render_call(request.tools[0].name, {}))


@pytest.fixture
def library(tmp_path: Path):
    root = tmp_path / "skills"
    for i in range(30):
        (root / f"pack-{i}").mkdir(parents=True)
        (root / f"pack-{i}" / "SKILL.md").write_text(
            skill_md(f"pack-{i}", {f"list_{i}": f"List the things of pack {i}."})
        )
    (root / "weather").mkdir()
    (root / "weather" / "SKILL.md").write_text(
        skill_md("weather", {"forecast": "Show the weather forecast for a city."})
    )
    (root / "editor").mkdir()
    (root / "editor" / "SKILL.md").write_text(
        skill_md("editor", {"spellcheck": "Check the spelling of a text."}, modes="Writer")
    )
    engine = Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )
    engine.library.ensure_loaded()
    return engine, root


def test_the_index_is_reused_while_the_library_is_unchanged(library):
    engine, _ = library
    first = engine.feed.tool_index(Mode.DEV)
    engine.library.reload()  # nothing changed on disk
    assert engine.feed.tool_index(Mode.DEV) is first
    assert engine.feed.catalog(Mode.DEV) is first.catalog
    client = Recorder()
    for _ in range(3):
        engine.feed.route("weather forecast", mode=Mode.DEV, client=client)
    assert engine.feed.tool_index(Mode.DEV) is first
    assert engine.feed.tool_index(Mode.WRITER) is not first  # another mode, another index


def test_an_edited_skill_is_seen_by_the_next_request(library):
    engine, root = library
    client = Recorder()
    engine.feed.route("weather forecast", mode=Mode.DEV, client=client)
    old = engine.feed.tool_index(Mode.DEV)
    (root / "weather" / "SKILL.md").write_text(
        skill_md("weather", {"forecast": "Tell whether it will rain tomorrow, with umbrellas."})
    )
    engine.library.reload()
    result = engine.feed.route("umbrellas", mode=Mode.DEV, client=client)
    index = engine.feed.tool_index(Mode.DEV)
    assert index is not old
    assert result.offered[0] == "forecast"
    assert "umbrellas" in client.offered[-1][0]
    assert all("Show the weather forecast" not in d for d in client.offered[-1])
    # only the edited skill was analysed again: every other part is the very same object
    reused = {id(p) for p in old.parts}
    assert [p.skill.name for p in index.parts if id(p) not in reused] == ["weather"]


def test_a_renamed_tool_is_offered_under_its_new_name_only(library):
    engine, root = library
    engine.feed.route("weather forecast", mode=Mode.DEV, client=Recorder())
    (root / "weather" / "SKILL.md").write_text(
        skill_md("weather", {"outlook": "Show the weather forecast for a city."})
    )
    engine.library.reload()
    catalog = engine.feed.catalog(Mode.DEV)
    assert "outlook" in catalog and "forecast" not in catalog
    result = engine.feed.route("weather forecast", mode=Mode.DEV, client=Recorder())
    assert result.offered[0] == "outlook" and "forecast" not in result.offered


def test_a_removed_skill_is_never_offered(library):
    engine, root = library
    engine.feed.route("weather forecast", mode=Mode.DEV, client=Recorder())
    shutil.rmtree(root / "weather")
    engine.library.reload()
    client = Recorder()
    for request in ("weather forecast", "show the weather forecast for a city", "forecast"):
        result = engine.feed.route(request, mode=Mode.DEV, client=client)
        assert "forecast" not in result.offered
    assert "forecast" not in engine.feed.catalog(Mode.DEV)
    assert all("weather" not in d for offered in client.offered for d in offered)


def test_an_added_skill_is_offered_at_once(library):
    engine, root = library
    engine.feed.route("anything", mode=Mode.DEV, client=Recorder())
    (root / "tides").mkdir()
    (root / "tides" / "SKILL.md").write_text(
        skill_md("tides", {"high_tide": "When is high tide at the harbour."})
    )
    engine.library.reload()
    result = engine.feed.route("high tide harbour", mode=Mode.DEV, client=Recorder())
    assert result.offered[0] == "high_tide"


def test_the_mode_decides_what_is_offered(library):
    engine, _ = library
    writer = engine.feed.route("check the spelling", mode=Mode.WRITER, client=Recorder())
    dev = engine.feed.route("check the spelling", mode=Mode.DEV, client=Recorder())
    assert writer.offered[0] == "spellcheck"
    assert "spellcheck" not in dev.offered


def test_requests_from_many_threads_during_reloads_never_see_a_removed_skill(library):
    engine, root = library
    shutil.rmtree(root / "weather")
    engine.library.reload()
    seen: list[tuple[str, ...]] = []
    errors: list[BaseException] = []

    def ask() -> None:
        try:
            for _ in range(20):
                seen.append(
                    engine.feed.route("weather forecast", mode=Mode.DEV, client=Recorder()).offered
                )
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=ask) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(10):
        (root / f"pack-{i}" / "SKILL.md").write_text(
            skill_md(f"pack-{i}", {f"list_{i}": f"List the things of pack {i}, again {i}."})
        )
        engine.library.reload()
    for t in threads:
        t.join()
    assert not errors
    assert seen and all("forecast" not in offered for offered in seen)


def test_the_router_accepts_the_index_and_a_plain_catalog_alike():
    skills = corpus(5)
    catalog = ToolCatalog.from_skills(skills, Mode.DEV)
    index = ToolIndexCache().get(skills, Mode.DEV)
    router = Router(Recorder())
    for request in REQUESTS[:4]:
        assert router.route(request, index).offered == router.route(request, catalog).offered


def test_the_fuzzy_router_follows_edits_and_removals(library):
    from gibberish.ui.command_bar.routing import FuzzyRouter

    engine, root = library
    router = FuzzyRouter()
    assert router.propose("weather forecast", engine.library.tools()).ref == "weather.forecast"
    (root / "weather" / "SKILL.md").write_text(
        skill_md("weather", {"forecast": "Tell whether umbrellas are needed tomorrow."})
    )
    engine.library.reload()
    assert router.propose("umbrellas", engine.library.tools()).ref == "weather.forecast"
    shutil.rmtree(root / "weather")
    engine.library.reload()
    proposal = router.propose("umbrellas forecast", engine.library.tools())
    assert proposal is None or not proposal.ref.startswith("weather.")


def test_an_index_patched_after_edits_chooses_what_a_fresh_one_chooses():
    """Edits that keep every name patch the last index (postings carried over, the edited
    tools' positions redone); the result must be what a fresh index and plain scoring give."""
    from msgspec.structs import replace

    rng = random.Random(7)
    skills = corpus(8)
    cache = ToolIndexCache()
    first = cache.get(skills, Mode.DEV)
    for request in REQUESTS:
        first.select(request, 700)  # postings for every request word, to be carried over
    for round_no in range(6):
        k = rng.randrange(len(skills))
        edited = skills[k]
        tools = tuple(
            replace(t, description=f"{_sentence(rng, 1, 8)} round{round_no}") for t in edited.tools
        )
        skills = [
            *skills[:k],
            replace(edited, tools=tools, description="café weather"),
            *skills[k + 1 :],
        ]
        index = cache.get(skills, Mode.DEV)
        catalog = ToolCatalog.from_skills(skills, Mode.DEV)
        fresh = ToolIndex.build(skills, Mode.DEV)
        described = [(t.name, t.skill, t.tool) for t in catalog.tools]
        assert [(t.name, t.skill, t.tool) for t in index.tools] == described
        for request in [*REQUESTS, f"round{round_no}", "café weather"]:
            want = select_tools(catalog.tools, request, 700)
            for got in (index.select(request, 700), fresh.select(request, 700)):
                assert [t.name for t in got.tools] == [t.name for t in want.tools], request
                assert got.scores == want.scores
    assert index._inherited is not None  # the patch path was taken
