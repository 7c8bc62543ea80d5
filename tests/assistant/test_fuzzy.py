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


class Pair:
    """A tool of a skill, as the command bar holds it (``.skill`` and ``.tool``)."""

    def __init__(self, skill_, tool) -> None:
        self.skill, self.tool = skill_, tool


def pairs(*skills):
    return [Pair(s, t) for s in skills for t in s.tools]


def test_a_patched_index_finds_the_edited_text_and_never_the_old():
    notes = skill("notes", "Notes", [ToolDefinition("list_notes", "Lists the zebra notes")])
    other = skill("disk", "Disk", [ToolDefinition("disk_usage", "Shows used space")])
    index = FuzzyIndex.for_tools(pairs(notes, other))
    assert names(index.rank("zebra")) == ["list_notes"]
    assert names(index.rank("disk")) == ["disk_usage"]
    edited = skill("notes", "Notes", [ToolDefinition("list_memos", "Lists the okapi memos")])
    patched = index.patched(pairs(edited, other))
    assert patched.rank("zebra") == [] and patched.rank("list_notes") == []
    assert names(patched.rank("okapi")) == ["list_memos"]
    assert names(patched.rank("disk")) == ["disk_usage"]
    assert names(index.rank("zebra")) == ["list_notes"]  # the old index is left as it was


def test_a_patched_index_reuses_the_entries_of_unchanged_skills():
    notes = skill("notes", "Notes", [ToolDefinition("list_notes", "Lists the notes")])
    other = skill("disk", "Disk", [ToolDefinition("disk_usage", "Shows used space")])
    index = FuzzyIndex.for_tools(pairs(notes, other))
    edited = skill("notes", "Notes", [ToolDefinition("list_notes", "Lists the notes")])
    patched = index.patched(pairs(other, edited))
    assert patched._descs[0] is index._descs[1]  # unchanged: the very same prepared text
    assert patched._ctxs[0] is index._ctxs[1]
    assert patched._descs[1] is not index._descs[0]  # a new skill object: prepared anew
    assert patched._descs[1] == index._descs[0]
