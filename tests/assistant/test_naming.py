from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from gibberish.assistant.naming import ToolCatalog, qualified_name, split_qualified
from gibberish.skills.model import Diagnostic, Mode, Severity, ToolDefinition
from tests.assistant.builders import skill


def test_unique_names_stay_plain(catalog):
    assert catalog.names() == [
        "git_status",
        "git_log",
        "git_diff",
        "summarize_url",
        "deploy_preview",
    ]
    found = catalog.resolve("git_log")
    assert found is not None
    assert (found.skill_name, found.tool_name) == ("git", "git_log")
    assert catalog.resolve("nope") is None


def test_shared_tool_names_are_qualified_and_map_back():
    a = skill("web-search", "", [ToolDefinition("search", "Search the web.")])
    b = skill("files", "", [ToolDefinition("search", "Search files."), ToolDefinition("ls", "")])
    catalog = ToolCatalog.from_skills([a, b])
    assert catalog.names() == ["web-search__search", "files__search", "ls"]
    hit = catalog.resolve("web-search__search")
    assert hit is not None and hit.skill is a and hit.tool.name == "search"
    assert catalog.resolve("search") is None  # ambiguous: never guessed
    # a plain tool may also be named in its qualified form
    assert catalog.resolve("files__ls") is catalog.resolve("ls")


def test_plain_name_that_equals_a_qualified_name_is_qualified_too():
    a = skill("git", "", [ToolDefinition("log", "")])
    b = skill("other", "", [ToolDefinition("log", ""), ToolDefinition("git__log", "")])
    catalog = ToolCatalog.from_skills([a, b])
    assert catalog.names() == ["git__log", "other__log", "other__git__log"]
    assert catalog.resolve("other__git__log").tool.name == "git__log"


def test_duplicate_skill_names_get_numbered():
    a = skill("dup", "", [ToolDefinition("t", "")])
    b = skill("dup", "", [ToolDefinition("t", "")])
    catalog = ToolCatalog.from_skills([a, b])
    assert catalog.names() == ["dup__t", "dup__t_2"]
    assert catalog.resolve("dup__t_2").skill is b


def test_long_qualified_names_fit_openai_limit():
    long_skill = "a" * 60
    name = qualified_name(long_skill, "tool_name")
    assert len(name) <= 64 and name.endswith("__tool_name")
    assert qualified_name("b" * 60, "tool_name") != name
    s1 = skill(long_skill, "", [ToolDefinition("tool_name", "")])
    s2 = skill("x", "", [ToolDefinition("tool_name", "")])
    catalog = ToolCatalog.from_skills([s1, s2])
    assert catalog.resolve(name).skill is s1


def test_mode_filter_and_broken_skills(example_skills):
    broken = skill(
        "broken",
        "",
        [ToolDefinition("x", "")],
        diagnostics=(Diagnostic(Severity.ERROR, "E-YAML", "bad"),),
    )
    dev = ToolCatalog.from_skills([*example_skills, broken], Mode.DEV)
    assert "deploy_preview" in dev and "x" not in dev
    writer = ToolCatalog.from_skills(example_skills, Mode.WRITER)
    assert "deploy_preview" not in writer and "git_status" in writer


skill_names = st.from_regex(r"[a-z0-9]{1,10}(-[a-z0-9]{1,10}){0,5}", fullmatch=True)
tool_names = st.from_regex(r"[a-z0-9_]{1,32}", fullmatch=True)


@given(skill_names, tool_names)
def test_qualified_names_round_trip(skill_name, tool_name):
    name = qualified_name(skill_name, tool_name)
    assert len(name) <= 64
    if len(skill_name) + 2 + len(tool_name) <= 64:
        assert split_qualified(name) == (skill_name, tool_name)
    s1 = skill(skill_name, "", [ToolDefinition(tool_name, "")])
    s2 = skill(skill_name + "-other", "", [ToolDefinition(tool_name, "")])
    catalog = ToolCatalog.from_skills([s1, s2])
    for exposed in catalog:
        assert catalog.resolve(exposed.name) is exposed
