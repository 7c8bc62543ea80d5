"""Working directory: the git root of the context folder, else home. No git is run."""

from __future__ import annotations

from pathlib import Path

from gibberish.runner import working_directory


def test_none_means_home(tmp_path):
    assert working_directory(None, home=tmp_path) == tmp_path


def test_default_home_is_the_users(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path))
    assert working_directory(None) == tmp_path


def test_git_root_of_a_nested_folder(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    nested = repo / "src" / "pkg"
    nested.mkdir(parents=True)
    assert working_directory(nested, home=tmp_path / "home") == repo


def test_git_file_counts_as_a_root(tmp_path):
    worktree = tmp_path / "worktree"
    worktree.mkdir()
    (worktree / ".git").write_text("gitdir: /elsewhere/.git/worktrees/wt\n")
    (worktree / "docs").mkdir()
    assert working_directory(worktree / "docs", home=tmp_path) == worktree


def test_nearest_root_wins(tmp_path):
    outer = tmp_path / "outer"
    inner = outer / "vendor" / "inner"
    (outer / ".git").mkdir(parents=True)
    (inner / ".git").mkdir(parents=True)
    (inner / "lib").mkdir()
    assert working_directory(inner / "lib", home=tmp_path) == inner


def test_no_repository_means_home(tmp_path):
    folder = tmp_path / "plain" / "folder"
    folder.mkdir(parents=True)
    home = tmp_path / "home"
    # tmp_path itself is not inside a repository on any sane test machine
    assert working_directory(folder, home=home) in (home, *_repos_above(folder))


def test_missing_context_means_home(tmp_path):
    assert working_directory(tmp_path / "gone", home=tmp_path) == tmp_path


def test_a_file_as_context_uses_its_folder(tmp_path):
    repo = tmp_path / "repo"
    (repo / ".git").mkdir(parents=True)
    file = repo / "README.md"
    file.write_text("hi")
    assert working_directory(file, home=tmp_path) == repo


def _repos_above(folder: Path) -> list[Path]:
    return [p for p in folder.parents if (p / ".git").exists()]
