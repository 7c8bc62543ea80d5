"""The fuzzy ranker keeps per-word scores between queries; it must rank exactly as the
plain ranker (``fuzzy_reference``) does, whatever was typed before."""

from __future__ import annotations

import random

import pytest

from gibberish.assistant.fuzzy import FuzzyIndex
from gibberish.engine.core import Engine, EngineOptions
from tests.assistant.fuzzy_reference import reference_entries, reference_rank

WORDS = [
    "git",
    "log",
    "diff",
    "status",
    "commit",
    "commits",
    "history",
    "recent",
    "last",
    "latest",
    "newest",
    "show",
    "list",
    "print",
    "find",
    "search",
    "grep",
    "delete",
    "remove",
    "note",
    "notes",
    "disk",
    "usage",
    "space",
    "size",
    "convert",
    "image",
    "video",
    "deploy",
    "preview",
    "upload",
    "download",
    "weather",
    "uptime",
    "calendar",
    "mail",
    "sync",
    "backup",
    "restore",
    "clean",
    "cache",
    "docker",
    "kube",
    "pod",
    "logs",
    "tail",
    "stats",
    "network",
    "wifi",
    "ports",
    "process",
    "kill",
    "timer",
]
ODD_NAMES = ["a.b*c", "x+y(z)", "dots...", "[set]", "back\\slash", "new\nline", "ÉTÉ", "straße"]
TYPED = [
    "show me the last 5 commits",
    "git log",
    "commit history",
    "disk usage of my home",
    "find notes about deploy",
    "remove the latest backup",
    "what changed since yesterday",
    "ss",
    "gst",
    "a.b*c",
    "x+y",
    "straße été",
    "tool_3_1",
]


def corpus(size: int, seed: int, *, newlines: bool = False) -> list[tuple]:
    """Entries with shared contexts (skills), repeated names and descriptions, odd
    characters; a name with a line break only when ``newlines`` (names are then searched
    one by one instead of all at once)."""
    rng = random.Random(seed)
    odd = ODD_NAMES if newlines else [n for n in ODD_NAMES if "\n" not in n]
    entries = []
    for skill in range(size // 5):
        context = f"skill-{skill} " + " ".join(rng.choices(WORDS, k=rng.randint(0, 12)))
        for tool in range(5):
            words = rng.sample(WORDS, rng.randint(1, 3))
            name = "_".join(words) if rng.random() < 0.9 else rng.choice(odd)
            if rng.random() < 0.1:
                name = f"tool_{tool}_{skill % 6}"
            description = " ".join(rng.choices(WORDS, k=rng.randint(0, 14)))
            if rng.random() < 0.2:
                description = description.title() + ". Use when: " + rng.choice(WORDS) + "s"
            elif rng.random() < 0.05:
                description = context  # the same text as a description and as a context
            entries.append((f"{skill}.{tool}", name, description, context))
    entries.append(("plain", "plain_entry", "no context here"))
    return entries


def queries(seed: int) -> list[str]:
    """Each typed query letter by letter, then backspaced; plus random word soups."""
    rng = random.Random(seed)
    out = []
    for text in TYPED:
        out += [text[:n] for n in range(1, len(text) + 1)]
        out += [text[:n] for n in range(len(text) - 1, 0, -3)]
    for _ in range(60):
        words = rng.choices([*WORDS, "s", "co", "xq", "5", "the", "me"], k=rng.randint(1, 4))
        out.append(" ".join(w[: rng.randint(1, len(w))] for w in words))
    return out


def same(index: FuzzyIndex, entries, query: str, limit, require_all: bool) -> None:
    got = [(m.item, m.name, m.score) for m in index.rank(query, limit, require_all=require_all)]
    assert got == reference_rank(entries, query, limit, require_all=require_all), query


@pytest.mark.parametrize(
    ("seed", "newlines", "prepared"), [(1, False, False), (1, False, True), (2, True, True)]
)
def test_ranks_like_the_plain_ranker_while_typing(
    seed: int, newlines: bool, prepared: bool
) -> None:
    """Entry by entry, and (``prepared``) through the index's word postings."""
    raw = corpus(600, seed, newlines=newlines)
    assert any("\n" in entry[1] for entry in raw) == newlines
    entries = reference_entries(raw)
    index = FuzzyIndex(raw)  # one index: scores kept from every earlier query
    if prepared:
        index.prepare()
    for query in queries(seed):
        same(index, entries, query, 12, True)
        same(index, entries, query, None, True)
        same(index, entries, query, 12, False)


def fresh(raw: list[tuple], prepared: bool) -> FuzzyIndex:
    index = FuzzyIndex(raw)
    if prepared:
        index.prepare()
    return index


@pytest.mark.parametrize("prepared", [False, True])
def test_ranks_like_the_plain_ranker_from_a_fresh_index(prepared: bool) -> None:
    raw = corpus(300, 3)
    entries = reference_entries(raw)
    for query in queries(3)[::7]:
        same(fresh(raw, prepared), entries, query, 12, True)
        same(fresh(raw, prepared), entries, query, None, False)


def test_ranks_the_bundled_tools_like_the_plain_ranker() -> None:
    tools = Engine(EngineOptions(include_user=False)).library.tools()
    raw = [
        (t, t.tool.name, t.tool.description, f"{t.skill.name} {t.skill.description}") for t in tools
    ]
    entries = reference_entries(raw)
    index = FuzzyIndex.for_tools(tools)
    for query in queries(4):
        same(index, entries, query, 5, False)
        same(index, entries, query, 12, True)


@pytest.mark.parametrize("prepared", [False, True])
def test_a_patched_index_ranks_like_the_plain_ranker(prepared: bool) -> None:
    """Half the skills replaced (new objects, other texts): the patched index ranks its
    tools exactly as the plain ranker ranks them; a prepared index hands its word
    postings on, patched, and they equal postings made afresh."""
    from gibberish.skills.model import ToolDefinition
    from tests.assistant.builders import skill
    from tests.assistant.test_fuzzy import pairs

    def skills(seed: int) -> list:
        raw = corpus(200, seed)[:-1]  # five tools a skill, sharing a context
        return [
            skill(f"s{k}", raw[k][3], [ToolDefinition(n, d) for _, n, d, _ in raw[k : k + 5]])
            for k in range(0, len(raw), 5)
        ]

    before, after = skills(5), skills(6)
    kept = [s if k % 2 else after[k] for k, s in enumerate(before)]
    index = FuzzyIndex.for_tools(pairs(*before))
    if prepared:
        index.prepare()
    for query in queries(5)[::5]:
        index.rank(query, 12)
    tools = pairs(*kept)
    patched = index.patched(tools)
    assert patched.prepared == prepared
    if prepared:
        made = FuzzyIndex.for_tools(tools)
        made.prepare()
        assert postings(patched) == postings(made)
    raw = [
        (t, t.tool.name, t.tool.description, f"{t.skill.name} {t.skill.description}") for t in tools
    ]
    entries = reference_entries(raw)
    for query in queries(6)[::3]:
        same(patched, entries, query, 12, True)
        same(patched, entries, query, None, False)


def postings(index: FuzzyIndex) -> list[dict[str, set[int]]]:
    words = index._words
    columns = (words.names, words.firsts, words.wholes, words.descs, words.ctxs)
    return [{word: set(entries) for word, entries in column.items()} for column in columns]
