from __future__ import annotations

from gibberish.assistant.budget import (
    estimate_tokens,
    functiongemma_cost,
    rank_by_relevance,
    relevance,
    select_tools,
)
from gibberish.assistant.functiongemma import render_declaration, render_prompt
from gibberish.assistant.manifest import render_plain_manifest, tool_schema, tool_schemas
from gibberish.assistant.naming import ToolCatalog
from gibberish.skills.model import Mode, ToolDefinition
from tests.assistant.builders import P, param, skill


def test_openai_tool_schema_has_descriptions_defaults_and_required(catalog):
    schemas = {s["function"]["name"]: s for s in tool_schemas(catalog)}
    assert schemas["git_log"] == {
        "type": "function",
        "function": {
            "name": "git_log",
            "description": "Show recent commit history.",
            "parameters": {
                "type": "object",
                "properties": {
                    "count": {
                        "type": "integer",
                        "description": "Number of commits (default: 10)",
                        "default": 10,
                    }
                },
            },
        },
    }
    assert schemas["summarize_url"]["function"]["parameters"] == {
        "type": "object",
        "properties": {"url": {"type": "string", "description": "The URL to summarize"}},
        "required": ["url"],
    }
    assert schemas["git_status"]["function"]["parameters"] == {"type": "object", "properties": {}}


def test_array_schema_has_items():
    t = ToolDefinition("t", "d", (param("files", P.ARRAY, True, "Files", default=("a",)),))
    exposed = ToolCatalog.from_skills([skill("s", "", [t])]).tools[0]
    assert tool_schema(exposed)["function"]["parameters"]["properties"]["files"] == {
        "type": "array",
        "items": {"type": "string"},
        "description": "Files (default: a)",
        "default": ["a"],
    }


def test_plain_text_manifest(catalog):
    assert render_plain_manifest(catalog, native=[("typer", "Type text at cursor")]) == (
        "You are a model that can do function calling with the following functions:\n"
        "\n"
        "[Native Tools]\n"
        "- typer: Type text at cursor\n"
        "\n"
        "[Skills]\n"
        "- git_status: Show the current git status with short format.\n"
        "- git_log: Show recent commit history.\n"
        "- git_diff: Show uncommitted changes.\n"
        "- summarize_url: Fetch and summarize a webpage.\n"
        "- deploy_preview: Deploy a preview build to Vercel.\n"
    )
    assert "[Native Tools]" not in render_plain_manifest(catalog)


def test_token_estimate():
    assert estimate_tokens("") == 0
    assert estimate_tokens("abcd") == 1
    assert estimate_tokens("abcde") == 2


def test_relevance_prefers_name_words_then_descriptions(catalog):
    ranked = rank_by_relevance("show the git commit history", list(catalog))
    assert ranked[0][1].name == "git_log"
    by_name = {t.name: score for score, t in ranked}
    # git (name, 2) + show (text, 1) + commit (text, 1) + history (text, 1)
    assert by_name["git_log"] == 5.0
    assert relevance("ship it", catalog.resolve("deploy_preview")) == 1.0  # skill description
    assert relevance("ship it", catalog.resolve("git_status")) == 0.0


def test_budget_takes_whole_declarations_by_relevance(catalog):
    tools = list(catalog)
    request = "summarize this url"
    overhead = estimate_tokens(render_prompt((), request))
    summarize = catalog.resolve("summarize_url")
    budget = overhead + functiongemma_cost(summarize) + 5
    sel = select_tools(tools, request, budget)
    assert [t.name for t in sel.tools] == ["summarize_url"]
    assert sel.tokens <= budget
    prompt = render_prompt(sel.tools, request)
    assert estimate_tokens(prompt) <= budget
    # nothing about the omitted tools, and no declaration is cut
    for t in sel.omitted:
        assert t.name not in prompt
    assert prompt.count("<start_function_declaration>") == prompt.count(
        "<end_function_declaration>"
    )
    assert render_declaration(summarize) in prompt


def test_budget_skips_a_big_declaration_for_smaller_ones():
    big = ToolDefinition("deploy_everything", "deploy " + "x" * 2000)
    small = ToolDefinition("deploy_small", "deploy small")
    other = ToolDefinition("status", "status")
    catalog = ToolCatalog.from_skills([skill("s", "", [small, big, other])])
    first = select_tools(list(catalog), "deploy everything", 10_000)
    assert [t.name for t in first.tools] == ["deploy_everything", "deploy_small", "status"]
    sel = select_tools(list(catalog), "deploy small", 200)
    assert [t.name for t in sel.tools] == ["deploy_small", "status"]
    assert [t.name for t in sel.omitted] == ["deploy_everything"]


def test_most_relevant_tool_always_included():
    big = ToolDefinition("huge", "h" * 4000)
    catalog = ToolCatalog.from_skills([skill("s", "", [big])])
    sel = select_tools(list(catalog), "huge", 10)
    assert [t.name for t in sel.tools] == ["huge"]


def test_mode_filter_in_selection(catalog):
    sel = select_tools(list(catalog), "deploy", mode=Mode.WRITER)
    assert "deploy_preview" not in {t.name for t in sel.tools}
    sel = select_tools(list(catalog), "deploy", mode=Mode.DEV)
    assert sel.tools[0].name == "deploy_preview"
