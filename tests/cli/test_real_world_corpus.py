"""Hundreds of skills shaped like public collections: JSON output never breaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from tests.skills.fixtures.realworld import write_corpus

COUNT = 300


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("realworld")
    return root, write_corpus(root, COUNT)


@pytest.mark.parametrize("profile", ["agentskills", "gibberish"])
def test_check_json_over_the_corpus_is_always_valid(corpus, profile: str) -> None:
    root, names = corpus
    result = CliRunner().invoke(
        cli, ["skills", "check", "--profile", profile, "--json", str(root)], catch_exceptions=False
    )
    assert result.exit_code in (0, 1), result.output[-2000:]
    report = json.loads(result.stdout)
    assert sorted(s["path"].rsplit("/", 1)[-1] for s in report["skills"]) == sorted(names)
    assert report["errors"] == sum(
        d["severity"] == "error" for s in report["skills"] for d in s["diagnostics"]
    ) + sum(d["severity"] == "error" for d in report["diagnostics"])
    if profile == "agentskills":
        # Instruction skills written the way the collections write them load cleanly.
        assert sum(s["ok"] for s in report["skills"]) >= COUNT * 0.8


def test_list_and_show_json_over_the_corpus(corpus) -> None:
    root, _ = corpus
    args = ["--no-user-skills", "--no-bundled", "--skills-dir", str(root)]
    listed = CliRunner().invoke(cli, [*args, "skills", "list", "--json"], catch_exceptions=False)
    assert listed.exit_code == 0
    skills = json.loads(listed.stdout)
    assert len(skills) >= COUNT * 0.9
    for name in (s["name"] for s in skills[:: max(1, len(skills) // 20)]):
        shown = CliRunner().invoke(cli, [*args, "skills", "show", name, "--json"])
        assert shown.exit_code == 0 and json.loads(shown.stdout)["name"] == name
