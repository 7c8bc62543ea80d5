"""``gibberish skills check`` reports every problem that makes the library refuse a skill."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.skills.library import MAX_TREE_ENTRIES, SkillLibrary, SkillSource
from gibberish.skills.model import Trust
from tests.skills.fixtures.skillkit import write_skill
from tests.skills.test_check_agrees import HOSTILE


def _too_many_files(folder: Path) -> None:
    """More entries than the library walks (a skill folder of 25,000 files, scaled down)."""
    for i in range(MAX_TREE_ENTRIES + 1):
        (folder / f"f{i}").touch()


CASES = {**HOSTILE, "more entries than the limit": _too_many_files}


@pytest.mark.parametrize("make", CASES.values(), ids=list(CASES))
@pytest.mark.parametrize("target", ["folder", "SKILL.md"])
def test_check_fails_where_the_loader_refuses(
    tmp_path: Path, make: Callable[[Path], None], target: str
) -> None:
    folder = write_skill(tmp_path, "demo").parent
    make(folder)
    library = SkillLibrary([SkillSource(tmp_path, Trust.USER)])
    library.load()
    assert library.get("demo") is None or not library.get("demo").ok  # the loader refuses it
    path = folder if target == "folder" else folder / "SKILL.md"
    result = CliRunner().invoke(
        cli, ["skills", "check", "--json", str(path)], catch_exceptions=False
    )
    report = json.loads(result.output)
    assert result.exit_code == 1 and report["errors"] >= 1, result.output
