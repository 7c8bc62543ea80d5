"""Context blocks: sections, the budgeted feed, pins, other agents' folders, the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.assistant.context_blocks import (
    Attached,
    ContextBlock,
    Zone,
    build_feed,
    split_sections,
)
from gibberish.assistant.context_folders import context_dir, import_candidate, replaces, scan
from gibberish.assistant.context_store import PinStore
from gibberish.cli import cli
from tests.assistant.fakeserver import Text

BODY = """# Release notes

Write for the people who upgrade.

## Structure

Start with breaking changes, then features, then fixes.

```md
# not a section
```

## Tone

Plain words, short sentences.
"""

GUIDE = f"""---
name: release-notes
description: How to write release notes. Use when drafting release notes.
---

{BODY}"""


def block(name: str = "release-notes", body: str = BODY) -> ContextBlock:
    return ContextBlock(name, "desc", body, "/somewhere", "user")


def test_sections_split_at_headings_outside_fences() -> None:
    parts = split_sections(BODY)
    assert [p.split("\n", 1)[0] for p in parts] == ["# Release notes", "## Structure", "## Tone"]
    assert "# not a section" in parts[1]


def test_feed_keeps_everything_when_it_fits() -> None:
    feed = build_feed([Attached(block(), Zone.PINNED)], "anything", budget=1000)
    assert feed.text == f'<context name="release-notes">\n{BODY.strip()}\n</context>'
    assert feed.omitted == {}


def test_feed_cuts_whole_sections_least_relevant_first() -> None:
    full = build_feed([Attached(block(), Zone.PINNED)], "", budget=1000).tokens
    feed = build_feed([Attached(block(), Zone.PINNED)], "tone of words", budget=full - 20)
    assert feed.included == {"release-notes": [0, 2]}
    assert feed.omitted == {"release-notes": ["## Structure"]}
    assert "## Tone\n\nPlain words, short sentences." in feed.text
    assert "breaking" not in feed.text and feed.tokens <= full - 20
    other = build_feed([Attached(block(), Zone.PINNED)], "breaking changes", budget=full - 8)
    assert other.included == {"release-notes": [0, 1]}


def test_feed_never_cuts_inside_a_section() -> None:
    for budget in range(1, 120):
        feed = build_feed([Attached(block(), Zone.REQUEST)], "tone", budget=budget)
        assert feed.tokens <= budget
        for kept in feed.included.get("release-notes", []):
            assert split_sections(BODY)[kept] in feed.text


def test_pinned_wins_over_request_when_only_one_fits() -> None:
    a, b = block("a", "# A\n\nalpha text"), block("b", "# B\n\nbeta text")
    one = build_feed([Attached(a, Zone.PINNED)], "", 1000).tokens
    feed = build_feed([Attached(b, Zone.REQUEST), Attached(a, Zone.PINNED)], "", one + 2)
    assert list(feed.included) == ["a"]


def test_pins_are_saved_atomically_and_a_broken_file_is_reported(tmp_path: Path) -> None:
    store = PinStore(tmp_path / "context.json")
    assert store.pin("a") and store.pin("b") and not store.pin("a")
    assert PinStore(tmp_path / "context.json").names() == ["a", "b"]
    assert store.unpin("a") and not store.unpin("a")
    assert json.loads((tmp_path / "context.json").read_text()) == {"pinned": ["b"]}
    assert [p.name for p in tmp_path.iterdir()] == ["context.json"]  # no temp file left
    (tmp_path / "context.json").write_text("{broken", encoding="utf-8")
    assert store.names() == [] and "cannot be read" in (store.problem or "")
    assert store.pin("c") and store.names() == ["c"]


@pytest.fixture
def claude_skills() -> Path:
    root = Path.home() / ".claude" / "skills"
    (root / "release-notes").mkdir(parents=True)
    (root / "release-notes" / "SKILL.md").write_text(GUIDE, encoding="utf-8")
    (root / "broken").mkdir()
    (root / "broken" / "SKILL.md").write_text("no frontmatter\n", encoding="utf-8")
    return root


def test_scan_offers_instruction_skills_with_tokens_and_imports_untrusted(
    claude_skills: Path, tmp_path: Path
) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("secret", encoding="utf-8")
    os.symlink(secret, claude_skills / "release-notes" / "leak.txt")
    found = {c.name: c for c in scan()}
    assert found["release-notes"].problem == "" and found["release-notes"].tokens > 10
    assert found["release-notes"].agent == "claude"
    assert "E-" in found["broken"].problem
    imported = import_candidate(found["release-notes"])
    assert imported.trust == "untrusted" and str(claude_skills) in imported.source
    copied = context_dir() / "release-notes"
    assert (copied / ".gibberish-source.json").is_file()
    assert not (copied / "leak.txt").exists()
    again = {c.name: c for c in scan()}["release-notes"]
    assert again.problem == "" and replaces("release-notes")  # importing again replaces it
    import_candidate(again)
    assert (copied / "SKILL.md").is_file() and not (copied / "leak.txt").exists()


def test_pinned_block_changes_what_prompt_shows(claude_skills: Path) -> None:
    runner = CliRunner()
    base = ["--no-user-skills", "--no-bundled"]
    before = runner.invoke(cli, [*base, "prompt", "--request", "write notes"])
    assert "<context" not in before.output
    assert runner.invoke(cli, ["context", "scan", "--import", "release-notes"]).exit_code == 0
    pinned = runner.invoke(cli, [*base, "context", "pin", "release-notes"])
    assert pinned.exit_code == 0, pinned.output
    listed = runner.invoke(cli, [*base, "context", "list"])
    assert "*    release-notes" in listed.output
    after = runner.invoke(cli, [*base, "prompt", "--request", "write notes"])
    assert '<start_of_turn>user\n<context name="release-notes">\n# Release notes' in after.output
    assert after.output.count("write notes") == 1
    small = runner.invoke(cli, [*base, "prompt", "--request", "tone", "--context-budget", "40"])
    assert "## Tone" in small.output and "## Structure" not in small.output
    assert runner.invoke(cli, ["context", "unpin", "release-notes"]).exit_code == 0
    missing = runner.invoke(cli, [*base, "prompt", "--context", "nosuch"])
    assert missing.exit_code == 1 and "No context block named 'nosuch'" in missing.output


def test_ask_attaches_a_block_for_one_request(claude_skills: Path, model_server, tmp_path) -> None:
    skills = tmp_path / "skills" / "echoer"
    skills.mkdir(parents=True)
    (skills / "SKILL.md").write_text(
        "---\nname: echoer\nversion: 1.0.0\ndescription: Echo.\n---\n\n### say\n\nSay it.\n\n"
        "#### Parameters\n\n| Name | Type | Required | Description |\n|---|---|---|---|\n"
        "| words | string | yes | Words |\n\n#### Command\n\n```bash\necho {{words}}\n```\n",
        encoding="utf-8",
    )
    runner = CliRunner()
    runner.invoke(cli, ["context", "scan", "--import", "release-notes"])
    model_server.queue(
        Text("<start_function_call>call:say{words:<escape>hi<escape>}<end_function_call>")
    )
    base = ["--no-user-skills", "--no-bundled", "--skills-dir", str(skills.parent)]
    result = runner.invoke(
        cli,
        [
            *base,
            "ask",
            "say hi",
            "--endpoint",
            model_server.url,
            "--dry-run",
            "--context",
            "release-notes",
        ],
    )
    assert result.exit_code == 0, result.output
    [request] = model_server.requests
    assert '<context name="release-notes">' in request.body["prompt"]
