"""Links said out loud: a link inside a skill is shown at install (kept only when it
stays inside and leads somewhere), a loop or a link to nothing is left out with a note,
and ``sync`` copies what install kept or names what it left out."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gibberish import paths
from tests.interop.builders import git, needs_git, skill_text, tar_info, tar_with
from tests.manager.conftest import bare_repo


def _linked_folder(root: Path) -> Path:
    folder = root / "linky"
    (folder / "docs").mkdir(parents=True)
    (folder / "SKILL.md").write_text(skill_text("linky"))
    (folder / "docs" / "guide.md").write_text("the guide\n")
    os.symlink("docs/guide.md", folder / "GUIDE.md")  # a file inside: kept
    os.symlink("docs", folder / "manual")  # a folder inside: kept, not synced
    os.symlink("loop-b", folder / "loop-a")  # a loop: left out
    os.symlink("loop-a", folder / "loop-b")
    os.symlink("nowhere.md", folder / "dangling.md")  # nothing: left out
    return folder


def _check_installed(result, user_skills: Path) -> None:
    assert result.exit_code == 0, result.output
    out = result.output
    assert "GUIDE.md → docs/guide.md" in out and "manual → docs" in out
    assert "loop-a (a link in a loop; left out)" in out
    assert "dangling.md (a link to nothing; left out)" in out
    installed = user_skills / "linky"
    assert os.readlink(installed / "GUIDE.md") == "docs/guide.md"
    assert not os.path.lexists(installed / "loop-a") and not os.path.lexists(installed / "loop-b")
    assert not os.path.lexists(installed / "dangling.md")


def test_folder_source_links_are_reported(tmp_path, gib, user_skills) -> None:
    _check_installed(gib("install", str(_linked_folder(tmp_path)), "-y"), user_skills)


def test_archive_source_links_are_reported(tmp_path, gib, user_skills) -> None:
    archive = tar_with(
        tmp_path / "l.tar.gz",
        [
            ("linky/SKILL.md", skill_text("linky").encode()),
            ("linky/docs/guide.md", b"the guide\n"),
            tar_info("linky/GUIDE.md", b"2", linkname="docs/guide.md"),
            tar_info("linky/manual", b"2", linkname="docs"),
            tar_info("linky/loop-a", b"2", linkname="loop-b"),
            tar_info("linky/loop-b", b"2", linkname="loop-a"),
            tar_info("linky/dangling.md", b"2", linkname="nowhere.md"),
        ],
    )
    _check_installed(gib("install", str(archive), "-y"), user_skills)


@needs_git
def test_git_source_links_are_reported(tmp_path, gib, user_skills) -> None:
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q", "-b", "main")
    _linked_folder(work)
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "links")
    bare = bare_repo(work, tmp_path / "b.git")
    _check_installed(gib("install", f"file://{bare}#main:linky", "-y"), user_skills)


def test_links_leading_outside_are_refused_as_before(tmp_path, gib, user_skills) -> None:
    folder = tmp_path / "out"
    folder.mkdir()
    (folder / "SKILL.md").write_text(skill_text("out"))
    os.symlink("/etc/passwd", folder / "passwd")
    result = gib("install", str(folder), "-y")
    assert result.exit_code == 1 and "absolute path" in result.output
    assert not (user_skills / "out").exists()


def test_sync_copies_what_install_kept_and_names_what_it_left_out(
    tmp_path, gib, user_skills
) -> None:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[sync]\ntargets = ["claude-code"]\n')
    assert gib("install", str(_linked_folder(tmp_path)), "-y").exit_code == 0
    result = gib("sync")
    assert result.exit_code == 0, result.output
    copy = home / ".claude" / "skills" / "linky"
    assert (copy / "GUIDE.md").read_text() == "the guide\n"  # the file it points to
    assert (copy / "docs" / "guide.md").is_file()
    assert not os.path.lexists(copy / "manual")
    assert "skip-link" in result.output and "a link to a folder" in result.output


@pytest.mark.parametrize("target", ["../../etc", "nowhere", "self"])
def test_sync_names_links_it_cannot_copy_in_your_own_skills(tmp_path, gib, target) -> None:
    home = Path(os.environ["HOME"])
    (home / ".claude").mkdir()
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[sync]\ntargets = ["claude-code"]\n')
    mine = paths.user_skills_dir() / "mine"
    mine.mkdir(parents=True)
    (mine / "SKILL.md").write_text(skill_text("mine"))
    os.symlink(target, mine / "self" if target == "self" else mine / "odd")
    result = gib("sync")
    said = result.output + (result.stderr if target == "../../etc" else "")
    assert ("not copied" if target == "../../etc" else "skip-link") in said, said
