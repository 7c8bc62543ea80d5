from __future__ import annotations

import time

from gibberish.assistant.fuzzy import FuzzyIndex
from gibberish.assistant.naming import ToolCatalog
from gibberish.skills.model import ToolDefinition
from tests.assistant.builders import skill


def names(matches):
    return [m.name for m in matches]


def test_exact_prefix_word_and_subsequence(catalog):
    index = FuzzyIndex.for_tools(catalog)
    assert names(index.rank("git_log"))[0] == "git_log"
    assert index.rank("git_log")[0].score == 1.0
    assert names(index.rank("git"))[:3] == ["git_diff", "git_log", "git_status"]
    assert names(index.rank("log")) == ["git_log"]
    assert names(index.rank("gst"))[0] == "git_status"  # letters in order
    assert names(index.rank("dep prev")) == ["deploy_preview"]


def test_every_typed_word_must_match_in_command_bar_mode(catalog):
    index = FuzzyIndex.for_tools(catalog)
    assert index.rank("git zzz") == []
    assert index.rank("") == []
    assert names(index.rank("vercel")) == ["deploy_preview"]  # description word


def test_scores_are_sorted_and_in_range(catalog):
    matches = FuzzyIndex.for_tools(catalog).rank("s", limit=None)
    scores = [m.score for m in matches]
    assert scores == sorted(scores, reverse=True)
    assert all(0 < s <= 1 for s in scores)


def test_natural_language_mode_ranks_the_request(catalog):
    index = FuzzyIndex.for_tools(catalog)
    ranked = index.rank("please summarize this article for me", require_all=False)
    assert names(ranked)[0] == "summarize_url"
    ranked = index.rank("show the commits history", require_all=False)
    assert names(ranked)[0] == "git_log"


def test_generic_entries():
    index = FuzzyIndex([(1, "open_browser", "Open a web page"), (2, "close", "Close a window")])
    top = index.rank("browser")[0]
    assert (top.item, top.name) == (1, "open_browser")


def test_a_thousand_tools_rank_quickly():
    tools = [
        ToolDefinition(f"tool_{i}_{word}", f"Does {word} things number {i}")
        for i, word in enumerate(["status", "deploy", "search", "convert", "upload"] * 200)
    ]
    catalog = ToolCatalog.from_skills([skill("big", "A big skill", tools)])
    index = FuzzyIndex.for_tools(catalog)
    start = time.perf_counter()
    for query in ("d", "de", "dep", "depl", "deploy", "deploy 9"):
        index.rank(query)
    per_query = (time.perf_counter() - start) / 6
    assert per_query < 0.05, per_query
    assert index.rank("deploy 999") == []  # no tool has both
    assert names(index.rank("upload 999")) == ["tool_999_upload"]
