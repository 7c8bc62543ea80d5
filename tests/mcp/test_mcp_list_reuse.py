"""``tools/list`` describes the tools once per catalog, and never serves a stale list."""

from __future__ import annotations

from pathlib import Path

import anyio

from gibberish.engine.core import Engine, EngineOptions
from gibberish.mcp.server import GibberishMCP
from gibberish.skills.model import Mode
from tests.helpers.skill_folders import ECHOER


def server(skills_dir: Path) -> GibberishMCP:
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills_dir,), include_user=False, include_bundled=False)
    )
    return GibberishMCP(engine, Mode.DEV, cwd=skills_dir)


def listed(mcp: GibberishMCP) -> dict[str, object]:
    return {tool.name: tool for tool in anyio.run(mcp.list_tools)}


def test_an_unchanged_library_is_described_once(skills_dir: Path) -> None:
    mcp = server(skills_dir)
    first, second = listed(mcp), listed(mcp)
    assert "say" in first and "skills_list" in first
    assert first.keys() == second.keys()
    assert all(first[name] is second[name] for name in first)


def test_an_edited_description_and_parameter_are_listed_at_once(skills_dir: Path) -> None:
    mcp = server(skills_dir)
    before = listed(mcp)["say"]
    edited = ECHOER.replace("Print the words back.", "Shout the words back.").replace(
        "| words | string | yes | What to print |",
        "| words | string | yes | What to print |\n| loud | boolean | no | Louder |",
    )
    (skills_dir / "echoer" / "SKILL.md").write_text(edited, encoding="utf-8")
    after = listed(mcp)["say"]
    assert "Print the words" in before.description
    assert "Shout the words" in after.description
    assert "loud" in after.input_schema["properties"]
    assert "loud" not in before.input_schema["properties"]


def test_a_removed_skill_is_gone_from_the_next_list(skills_dir: Path) -> None:
    mcp = server(skills_dir)
    assert "say" in listed(mcp)
    (skills_dir / "echoer" / "SKILL.md").unlink()
    (skills_dir / "echoer").rmdir()
    assert "say" not in listed(mcp)
