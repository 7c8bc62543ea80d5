"""The installer's ``dependencies:`` field is known to the loader and kept in ``extra``."""

from __future__ import annotations

from gibberish.skills.frontmatter import check_fields
from gibberish.skills.model import Profile


def _check(data: dict):
    return check_fields(data, profile=Profile.AGENTSKILLS, file="SKILL.md")


def test_dependencies_are_kept_without_a_warning() -> None:
    deps = {"skills": ["github:o/r/a"], "mcp": {"docs": {"command": "docs-server"}}}
    front, diags = _check({"name": "a", "description": "d", "dependencies": deps})
    assert [d.code for d in diags] == []
    assert front.extra["dependencies"] == deps


def test_dependencies_that_are_not_a_mapping_are_an_error() -> None:
    front, diags = _check({"name": "a", "description": "d", "dependencies": "github:o/r"})
    assert [d.code for d in diags] == ["E-INVALID-FIELD"]
    assert "dependencies" not in front.extra
