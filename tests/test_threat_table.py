"""docs/security.md's table of every surface names, on every row, a test that exists."""

from __future__ import annotations

import re

from tests.conftest import REPO_ROOT

HEADING = "## Every surface: what crosses it and the rule that holds"
TEST_REF = re.compile(r"`(tests/[\w/]+\.py)::(\w+)`")


def _rows() -> list[str]:
    text = (REPO_ROOT / "docs" / "security.md").read_text(encoding="utf-8")
    section = text.split(HEADING, 1)[1].split("\n## ", 1)[0]
    return [line for line in section.splitlines() if line.startswith("| ") and "---" not in line][
        1:
    ]


def test_every_surface_row_names_a_test_that_exists() -> None:
    rows = _rows()
    surfaces = {row.split("|")[1].strip() for row in rows}
    for needed in ("tray", "voice", "the web page (`gibberish web`)", "project folders", "`stub`"):
        assert needed in surfaces
    assert any("MCP server" in s for s in surfaces) and any("sync" in s for s in surfaces)
    assert any("install" in s for s in surfaces) and any("sandbox" in s for s in surfaces)
    for row in rows:
        refs = TEST_REF.findall(row)
        assert refs, f"no test named in: {row[:60]}"
        for path, name in refs:
            source = (REPO_ROOT / path).read_text(encoding="utf-8")
            assert re.search(rf"^def {name}\(", source, re.M), f"{path}::{name} does not exist"
