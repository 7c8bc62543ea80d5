"""Reading a skill folder a section at a time, and the paths it refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.skills import disclosure
from gibberish.skills.disclosure import DisclosureError

SKILL = """---
name: docs
description: Documentation helper. Use when writing docs.
---

# Docs

Intro text.

## Style

Use short words.

```markdown
# not a heading inside a fence
```

### Lists

Bullets for lists of three or more.

## Review

Ask a colleague.
"""


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "references").mkdir(parents=True)
    (root / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (root / "references" / "api.md").write_text(
        "---\ndescription: The API in brief\n---\n# API Guide\n\nCall it twice.\n", encoding="utf-8"
    )
    (root / ".git").mkdir()
    (root / ".git" / "HEAD").write_text("ref: main\n", encoding="utf-8")
    return root


def test_outline_lists_every_heading_with_levels_skill_md_first(skill: Path) -> None:
    got = [(h.file, h.level, h.title, h.line) for h in disclosure.outline(skill)]
    assert got == [
        ("SKILL.md", 1, "Docs", 6),
        ("SKILL.md", 2, "Style", 10),
        ("SKILL.md", 3, "Lists", 18),
        ("SKILL.md", 2, "Review", 22),
        ("references/api.md", 1, "API Guide", 4),
    ]


def test_show_returns_one_section_with_its_subsections(skill: Path) -> None:
    text = disclosure.show(skill, "style")
    assert text.startswith("## Style\n\nUse short words.")
    assert "### Lists" in text and "Review" not in text
    assert disclosure.show(skill, "API Guide") == "# API Guide\n\nCall it twice."


def test_show_cuts_at_max_lines_and_says_so(skill: Path) -> None:
    text = disclosure.show(skill, "Style", max_lines=2)
    assert text.split("\n")[:2] == ["## Style", ""]
    assert "more lines" in text.split("\n")[2]


def test_show_without_section_is_the_body_and_unknown_section_suggests(skill: Path) -> None:
    assert disclosure.show(skill).startswith("# Docs")
    with pytest.raises(DisclosureError) as caught:
        disclosure.show(skill, "Revew")
    assert caught.value.code == "E020" and "'Review'" in str(caught.value)


def test_open_reads_a_file_and_refuses_paths_outside(skill: Path, tmp_path: Path) -> None:
    assert "Call it twice" in disclosure.open_file(skill, "references/api.md")
    (tmp_path / "secret.txt").write_text("secret", encoding="utf-8")
    os.symlink(tmp_path / "secret.txt", skill / "link.txt")
    for path in ("../secret.txt", str(tmp_path / "secret.txt"), "link.txt", "references/../../x"):
        with pytest.raises(DisclosureError) as caught:
            disclosure.open_file(skill, path)
        assert caught.value.code == "E012", path
    os.unlink(skill / "link.txt")  # while it is there, the skill's files cannot be listed
    with pytest.raises(DisclosureError) as missing:
        disclosure.open_file(skill, "nope.md")
    assert missing.value.code == "E021"


def test_sources_lists_files_with_sizes_but_not_hidden_folders(skill: Path) -> None:
    files = {f.path: f.size for f in disclosure.sources(skill)}
    api = (skill / "references" / "api.md").stat().st_size
    assert files == {"SKILL.md": len(SKILL.encode()), "references/api.md": api}


def test_sources_refuses_a_symlink_that_leaves_the_folder(skill: Path, tmp_path: Path) -> None:
    os.symlink(tmp_path, skill / "escape")
    with pytest.raises(DisclosureError) as caught:
        disclosure.sources(skill)
    assert caught.value.code == "E012"


def test_search_ranks_sections_by_heading_then_text(skill: Path, tmp_path: Path) -> None:
    hits = disclosure.search([("docs", skill)], "lists bullets")
    assert [h.section.heading.title for h in hits][:1] == ["Lists"]
    assert (
        disclosure.search([("docs", skill), ("gone", tmp_path / "gone")], "review")[0].skill
        == "docs"
    )
    assert disclosure.search([("docs", skill)], "zebra") == []


def test_a_folder_without_skill_md_is_e010(tmp_path: Path) -> None:
    with pytest.raises(DisclosureError) as caught:
        disclosure.outline(tmp_path)
    assert caught.value.code == "E010"


def test_cli_fallback_commands_mirror_the_tools(skill: Path) -> None:
    runner = CliRunner()
    base = ["--no-bundled", "--no-user-skills", "--skills-dir", str(skill.parent)]
    out = runner.invoke(cli, [*base, "outline", "docs"])
    assert out.exit_code == 0 and "## Style" in out.output
    out = runner.invoke(cli, [*base, "show", "docs", "--section", "Review"])
    assert out.exit_code == 0 and out.output == "## Review\n\nAsk a colleague.\n"
    out = runner.invoke(cli, [*base, "open", "docs", "../docs/../../etc/passwd"])
    assert out.exit_code == 1 and "error[E012]" in out.output
    out = runner.invoke(cli, [*base, "show", "nosuch"])
    assert out.exit_code == 1 and "error[E001]" in out.output
    out = runner.invoke(cli, [*base, "sources", "docs", "--json"])
    assert out.exit_code == 0 and '"references/api.md"' in out.output
    out = runner.invoke(cli, [*base, "search", "colleague"])
    assert out.exit_code == 0 and "# Review" in out.output.replace("##", "#")


def test_open_describes_binary_files_and_cuts_large_ones(skill: Path) -> None:
    (skill / "blob.bin").write_bytes(b"\x00\x01\x02" * 10)
    assert disclosure.open_file(skill, "blob.bin") == "(blob.bin is a binary file of 30 bytes)"
    (skill / "big.txt").write_text("x" * 300, encoding="utf-8")
    text = disclosure.open_file(skill, "big.txt", max_bytes=100)
    assert text.startswith("x" * 100) and text.endswith("(cut at 100 bytes of 300)")
    (skill / "latin1.md").write_bytes(b"# Caf\xe9\n")
    assert disclosure.open_file(skill, "latin1.md") == "# Caf\ufffd\n"
    assert [h.title for h in disclosure.outline(skill) if h.file == "latin1.md"] == ["Caf\ufffd"]


# -- skills_open serves exactly what skills_sources lists (issue 37) --------------------

TOKEN_CONFIG = (
    '[remote "origin"]\n\turl = https://x-access-token:ghp_SECRET0123456789@github.com/o/r\n'
)


@pytest.fixture
def with_git_config(skill: Path) -> Path:
    (skill / ".git" / "config").write_text(TOKEN_CONFIG, encoding="utf-8")
    (skill / ".hg").mkdir()
    (skill / ".hg" / "hgrc").write_text("[paths]\ndefault = https://u:pw@h/r\n", encoding="utf-8")
    (skill / "references" / ".private").mkdir()
    (skill / "references" / ".private" / "notes.md").write_text("# hidden\n", encoding="utf-8")
    os.symlink("../SKILL.md", skill / "references" / "again.md")  # a link inside the folder
    return skill


@pytest.mark.parametrize(
    "path",
    [
        ".git/config",
        "./.git/config",
        ".git//config",
        "references/../.git/config",
        ".git/HEAD",
        ".hg/hgrc",
        "references/.private/notes.md",
        "references/again.md",
        "references",
        ".",
    ],
)
def test_open_refuses_what_sources_does_not_list(with_git_config: Path, path: str) -> None:
    listed = {f.path for f in disclosure.sources(with_git_config)}
    assert os.path.normpath(path) not in listed
    with pytest.raises(DisclosureError) as caught:
        disclosure.open_file(with_git_config, path)
    assert "ghp_SECRET" not in str(caught.value)


def test_open_serves_every_file_sources_lists(with_git_config: Path) -> None:
    for item in disclosure.sources(with_git_config):
        assert isinstance(disclosure.open_file(with_git_config, item.path), str)
    assert "Call it twice" in disclosure.open_file(with_git_config, "./references/api.md")
