"""One-command restore: a lock (the person's own skills.lock, or a project's
gibberish.lock) restores everything it lists on a clean home folder — the agents each
skill was synced to and how (copy or link) included — refuses tampered content, and
treats sources inside the project as the project's own (no --allow-outside)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from gibberish import paths
from gibberish.install.project import read_lock, user_lock_path
from gibberish.trust.fingerprint import fingerprint
from tests.interop.builders import git_repo, needs_git, skill_text, write_skill, zip_with
from tests.manager.conftest import bare_repo


def _clean_home(monkeypatch: pytest.MonkeyPatch, root: Path) -> Path:
    """A new machine: a fresh HOME and XDG folders, nothing installed or synced."""
    for var, sub in (
        ("HOME", "home"),
        ("XDG_CONFIG_HOME", "config"),
        ("XDG_DATA_HOME", "data"),
        ("XDG_STATE_HOME", "state"),
        ("XDG_CACHE_HOME", "cache"),
    ):
        (root / sub).mkdir(parents=True)
        monkeypatch.setenv(var, str(root / sub))
    return root / "home"


def _agents(home: Path) -> None:
    (home / ".claude").mkdir()
    (home / ".gemini").mkdir()
    paths.config_file().parent.mkdir(parents=True, exist_ok=True)
    paths.config_file().write_text('[sync]\ntargets = ["claude-code", "gemini-cli"]\n')


@needs_git
def test_the_user_lock_restores_everything_on_a_clean_home(tmp_path, gib, monkeypatch) -> None:
    home = Path(os.environ["HOME"])
    _agents(home)
    folder = write_skill(tmp_path / "src", "from-folder")
    archive = zip_with(
        tmp_path / "a.zip", [("from-zip/SKILL.md", skill_text("from-zip").encode(), 0)]
    )
    work = git_repo(tmp_path / "w", {"from-git/SKILL.md": skill_text("from-git")})
    bare = bare_repo(work, tmp_path / "b.git")
    assert gib("install", str(folder), "-y", "--sync").exit_code == 0
    assert gib("install", str(archive), "-y", "--no-sync").exit_code == 0
    assert gib("install", f"file://{bare}#main", "-y", "--no-sync").exit_code == 0
    assert gib("disable", "from-zip").exit_code == 0
    linked = gib("sync", "claude-code", "--link", "--skill", "from-git")  # the lock follows
    assert linked.exit_code == 0, linked.output
    lock = read_lock(user_lock_path().parent, user_lock_path())
    assert lock["from-git"]["synced"] == [{"target": "claude-code", "how": "link"}]
    assert {p["target"] for p in lock["from-folder"]["synced"]} == {"claude-code", "gemini-cli"}
    before = {n: fingerprint(paths.user_skills_dir() / n).digest for n in lock}
    saved = user_lock_path().read_bytes()

    new_home = _clean_home(monkeypatch, tmp_path / "machine-2")
    user_lock_path().parent.mkdir(parents=True)
    user_lock_path().write_bytes(saved)
    (new_home / ".claude").mkdir()
    (new_home / ".gemini").mkdir()
    result = gib("install", "-y")
    assert result.exit_code == 0, result.output
    assert "Restored" in result.output
    skills = paths.user_skills_dir()
    assert {n: fingerprint(skills / n).digest for n in lock} == before
    link = new_home / ".claude" / "skills" / "from-git"
    assert link.is_symlink() and Path(os.readlink(link)) == skills / "from-git"
    for agent in (".claude", ".gemini"):
        copy = new_home / agent / "skills" / "from-folder" / "SKILL.md"
        assert copy.is_file() and not copy.parent.is_symlink()
    assert not (new_home / ".claude" / "skills" / "from-zip").exists()  # it stays off
    assert "from-zip" in gib("skills", "list").output
    again = gib("install", "-y")
    assert again.exit_code == 0 and "Up to date" in again.output


def test_a_tampered_source_is_refused_on_restore(tmp_path, gib, monkeypatch) -> None:
    archive = zip_with(tmp_path / "a.zip", [("zipped/SKILL.md", skill_text("zipped").encode(), 0)])
    assert gib("install", str(archive), "-y").exit_code == 0
    saved = user_lock_path().read_bytes()
    _clean_home(monkeypatch, tmp_path / "m2")
    user_lock_path().parent.mkdir(parents=True)
    user_lock_path().write_bytes(saved)
    zip_with(archive, [("zipped/SKILL.md", skill_text("zipped", command="echo evil").encode(), 0)])
    result = gib("install", "-y")
    assert result.exit_code == 1 and "pinned to" in result.output
    assert not (paths.user_skills_dir() / "zipped").exists()


def test_restore_from_a_named_lock_and_without_a_terminal(tmp_path, gib, monkeypatch) -> None:
    folder = write_skill(tmp_path / "src", "alpha")
    assert gib("install", str(folder), "-y").exit_code == 0
    kept = tmp_path / "kept.lock"
    shutil.copy(user_lock_path(), kept)
    _clean_home(monkeypatch, tmp_path / "m2")
    asked = gib("install", "--lock", str(kept))
    assert (
        asked.exit_code == 1 and "--yes" in asked.output and "?" not in asked.output.split("\n")[-2]
    )
    done = gib("install", "--lock", str(kept), "-y")
    assert done.exit_code == 0, done.output
    assert (paths.user_skills_dir() / "alpha" / "SKILL.md").is_file()


def test_nothing_to_restore_says_what_to_do(gib) -> None:
    result = gib("install")
    assert result.exit_code == 1 and "--lock" in result.output and "Traceback" not in result.output


def test_a_project_source_inside_the_project_is_its_own(tmp_path, gib, monkeypatch) -> None:
    project = tmp_path / "proj"
    vendored = write_skill(project / "vendor", "house-style")
    (project / "gibberish.toml").write_text("")
    result = gib("install", str(vendored), "--project", str(project), "-y")
    assert result.exit_code == 0, result.output
    assert read_lock(project)["house-style"]["source"] == "./vendor/house-style"
    clone = tmp_path / "elsewhere" / "proj"
    shutil.copytree(project, clone, ignore=shutil.ignore_patterns(".gibberish"))
    _clean_home(monkeypatch, tmp_path / "m2")
    monkeypatch.chdir(clone)
    result = gib("install", "-y")  # no --allow-outside: the source is the project's own
    assert result.exit_code == 0, result.output
    installed = clone / ".gibberish" / "skills" / "house-style"
    assert fingerprint(installed).digest == read_lock(clone)["house-style"]["fingerprint"]
