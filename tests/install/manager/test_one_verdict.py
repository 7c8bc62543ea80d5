"""``skills check``, ``compile`` and ``install`` give one verdict on the same folder.

A public Agent Skill whose ``name`` differs from its folder is accepted everywhere with
a warning; a folder without SKILL.md is an error for ``check`` as for ``install``; a
file SKILL.md names in another case is found, a missing one is a warning everywhere.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gibberish.skills.named_files import find_named, missing_named
from tests.helpers.builders import git_repo, needs_git, zip_with
from tests.install.manager.conftest import bare_repo

VERCEL_SHAPED = """---
name: vercel-react-best-practices
description: React performance guidelines from Vercel. Use when writing React code.
license: MIT
---

# React best practices

Read AGENTS.md for the full rules.
"""
PDF_SHAPED = """---
name: pdf
description: Work with PDF files. Use when the user has a PDF.
---

# PDF

For advanced features see REFERENCE.md. To fill forms, read [the forms guide](FORMS.md).
"""


def _vercel(root: Path) -> Path:
    folder = root / "react-best-practices"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(VERCEL_SHAPED)
    (folder / "AGENTS.md").write_text("# Rules\n")
    return folder


@pytest.mark.parametrize("profile", ["gibberish", "agentskills"])
def test_name_differing_from_folder_is_a_warning_for_check(tmp_path, gib, profile) -> None:
    folder = _vercel(tmp_path)
    result = gib("skills", "check", "--profile", profile, str(folder))
    assert result.exit_code == 0, result.output
    assert "W-NAME-MISMATCH" in result.output and "0 errors, 1 warning" in result.output


def test_the_same_folder_compiles_and_installs_with_the_warning(tmp_path, gib, user_skills) -> None:
    folder = _vercel(tmp_path)
    compiled = gib("compile", str(folder), "--out", str(tmp_path / "out"))
    assert compiled.exit_code == 0, compiled.output
    installed = gib("install", str(folder), "-y")
    assert installed.exit_code == 0, installed.output
    assert "W-NAME-MISMATCH" in installed.output
    assert (user_skills / "vercel-react-best-practices" / "AGENTS.md").is_file()


def test_archive_and_git_sources_give_the_same_verdict(tmp_path, gib, user_skills) -> None:
    archive = zip_with(
        tmp_path / "r.zip",
        [("skills/react-best-practices/SKILL.md", VERCEL_SHAPED.encode(), 0),
         ("skills/react-best-practices/AGENTS.md", b"# Rules\n", 0)],
    )  # fmt: skip
    result = gib("install", str(archive), "-y")
    assert result.exit_code == 0 and "W-NAME-MISMATCH" in result.output


@needs_git
def test_git_source_gives_the_same_verdict(tmp_path, gib, user_skills) -> None:
    work = git_repo(
        tmp_path / "w",
        {"react-best-practices/SKILL.md": VERCEL_SHAPED, "react-best-practices/AGENTS.md": "x\n"},
    )
    bare = bare_repo(work, tmp_path / "b.git")
    result = gib("install", f"file://{bare}#main", "-y")
    assert result.exit_code == 0, result.output
    assert "W-NAME-MISMATCH" in result.output


def test_folder_without_skill_md_is_an_error_for_check_too(tmp_path, gib) -> None:
    empty = tmp_path / "nothing-here"
    (empty / "sub").mkdir(parents=True)
    (empty / "README.md").write_text("hello\n")
    checked = gib("skills", "check", str(empty))
    assert checked.exit_code == 1
    assert "E-NO-SKILL-FILE" in checked.output and "no SKILL.md" in checked.output
    assert json.loads(gib("skills", "check", "--json", str(empty)).output)["ok"] is False
    installed = gib("install", str(empty), "-y")
    assert installed.exit_code == 1 and "no SKILL.md" in installed.output


def test_named_files_are_found_in_any_case(tmp_path, gib, user_skills) -> None:
    folder = tmp_path / "pdf"
    folder.mkdir()
    (folder / "SKILL.md").write_text(PDF_SHAPED)
    (folder / "reference.md").write_text("# Reference\nthe advanced part\n")
    (folder / "forms.md").write_text("# Forms\nhow to fill forms\n")
    compiled = gib("compile", str(folder), "--stdout")
    assert compiled.exit_code == 0, compiled.output
    assert "the advanced part" in compiled.output and "how to fill forms" in compiled.output
    assert "W-NAMED-FILE-MISSING" not in compiled.output
    checked = gib("skills", "check", "--profile", "agentskills", str(folder))
    assert "0 warnings" in checked.output, checked.output


def test_a_missing_named_file_is_a_warning_everywhere(tmp_path, gib, user_skills) -> None:
    folder = tmp_path / "pdf"
    folder.mkdir()
    (folder / "SKILL.md").write_text(PDF_SHAPED)
    (folder / "reference.md").write_text("# Reference\n")
    for args in (
        ("skills", "check", "--profile", "agentskills", str(folder)),
        ("compile", str(folder), "--stdout"),
        ("install", str(folder), "-y"),
    ):
        result = gib(*args)
        assert result.exit_code == 0, (args, result.output)
        assert "W-NAMED-FILE-MISSING" in result.output and "FORMS.md" in result.output, args


def test_case_matching_never_guesses_or_leaves_the_folder(tmp_path) -> None:
    skill = tmp_path / "s"
    skill.mkdir()
    (skill / "Notes.md").write_text("a")
    (skill / "notes.md").write_text("b")
    (skill / "Guide.MD").write_text("c")
    (tmp_path / "OUTSIDE.md").write_text("secret")
    assert find_named(str(skill), "", "NOTES.md") is None  # two would fit: none is taken
    assert find_named(str(skill), "", "notes.md") == "notes.md"  # exact wins
    assert find_named(str(skill), "", "guide.md") == "Guide.MD"
    assert find_named(str(skill), "", "../outside.md") is None
    (skill / "link.md").symlink_to(tmp_path / "OUTSIDE.md")
    assert find_named(str(skill), "", "LINK.md") is None
    assert missing_named(str(skill), "See [up](../OUTSIDE.md) and [x](link.md)") == [
        "../OUTSIDE.md",
        "link.md",
    ]


LENIENT = """---
name: pdf-like
description: Work with PDF files: read, merge and split them.
---

# PDF
"""


@pytest.mark.parametrize("where", ["top", "nested"])
def test_a_frontmatter_read_leniently_installs_under_its_own_name(
    tmp_path, gib, user_skills, where
) -> None:
    """An unquoted ``: `` in a value is read leniently (W-YAML-LENIENT) by the loader; the
    install names the folder after that same ``name``, never after its staging folder."""
    root = tmp_path / "src"
    folder = root / "pdf-like" if where == "top" else root / "skills" / "pdf-like"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(LENIENT, encoding="utf-8")
    result = gib("install", str(folder if where == "top" else root), "-y")
    assert result.exit_code == 0, result.output
    assert "W-YAML-LENIENT" in result.output
    assert "W-NAME-MISMATCH" not in result.output
    assert [p.name for p in user_skills.iterdir() if p.is_dir()] == ["pdf-like"]
