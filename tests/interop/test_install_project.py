"""``gibberish update`` and ``installed --check``, and the project manifest and lock round trip."""

from __future__ import annotations

import json
import time
import tomllib
from pathlib import Path

from gibberish.app import Engine, EngineOptions
from tests.interop.builders import commit_files, files_under, git, git_repo, needs_git, skill_text

pytestmark = needs_git


def _everything(root: Path) -> dict[str, bytes]:
    """Every file, hidden ones included (provenance too), for byte-for-byte comparison."""
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def test_update_shows_changes_and_needs_approval_again(
    tmp_path, gib, user_skills, terminal
) -> None:
    repo = git_repo(tmp_path / "repo", {"pdf/SKILL.md": skill_text("pdf", command="echo v1")})
    assert gib("install", f"file://{repo}#main:pdf", "--yes").exit_code == 0
    engine = Engine(EngineOptions(include_bundled=False))
    prepared = engine.runs.prepare("pdf.hello")
    engine.trust.approve_prepared(prepared)
    assert "up to date" in gib("update", "pdf", "--yes").output
    assert "no" in gib("installed", "--check").output.splitlines()[1]
    commit_files(
        repo,
        {"pdf/SKILL.md": skill_text("pdf", command="echo v2"), "pdf/new.sh": "#!/bin/sh\n"},
        "v2",
    )
    assert "yes" in gib("installed", "--check").output.splitlines()[1]
    result = gib("update", "pdf", input="n\n")
    assert "~ SKILL.md" in result.output and "+ new.sh" in result.output
    assert "command ~ hello: echo v1  →  echo v2" in result.output
    assert "not updated" in result.output
    assert "echo v1" in (user_skills / "pdf" / "SKILL.md").read_text()
    result = gib("update", "--yes")
    assert "updated; its next run asks for approval again" in result.output
    assert "echo v2" in (user_skills / "pdf" / "SKILL.md").read_text()
    engine = Engine(EngineOptions(include_bundled=False))
    decision = engine.runs.prepare("pdf.hello").decision
    assert decision.changed_files and "SKILL.md" in decision.changed_files.modified
    record = json.loads((user_skills / "pdf" / ".gibberish-source.json").read_text())
    assert record["resolved"] == git(repo, "rev-parse", "HEAD")


def test_project_manifest_and_lock_round_trip(tmp_path, gib) -> None:
    repo = git_repo(
        tmp_path / "repo",
        {
            "skills/pdf/SKILL.md": skill_text(
                "pdf",
                extra="dependencies:\n  skills:\n    - source: "
                + f"file://{tmp_path}/repo#main:skills/csv\n      name: csv\n",
            ),
            "skills/csv/SKILL.md": skill_text("csv"),
        },
    )
    project = tmp_path / "project"
    project.mkdir()
    result = gib("install", f"file://{repo}#main:skills/pdf", "--project", str(project), "--yes")
    assert result.exit_code == 0, result.output
    skills = project / ".gibberish" / "skills"
    assert sorted(p.name for p in skills.iterdir()) == ["csv", "pdf"]
    manifest = tomllib.loads((project / "gibberish.toml").read_text())
    assert manifest["skills"] == {"pdf": f"file://{repo}#main:skills/pdf"}
    lock = tomllib.loads((project / "gibberish.lock").read_text())
    first = git(repo, "rev-parse", "HEAD")
    assert lock["skills"]["pdf"]["resolved"] == first and lock["skills"]["csv"]["resolved"] == first
    installed = _everything(skills)

    # the repository moves on; the lock keeps the project where it was
    commit_files(repo, {"skills/pdf/SKILL.md": skill_text("pdf", command="echo moved")}, "moved")
    clone = tmp_path / "clone"
    clone.mkdir()
    for name in ("gibberish.toml", "gibberish.lock"):
        (clone / name).write_bytes((project / name).read_bytes())
    started = int(time.time())
    while int(time.time()) == started:  # a later second, so time stamps would differ
        time.sleep(0.02)
    # the repository is a folder on this computer, outside the clone: agreed to explicitly
    result = gib("install", "--project", str(clone), "--yes", "--allow-outside")
    assert result.exit_code == 0, result.output
    assert (
        _everything(clone / ".gibberish" / "skills") == installed
    )  # byte-identical, provenance too
    assert "Up to date" in gib("install", "--project", str(clone)).output

    # a lock whose pinned content no longer matches is refused, nothing half-installed
    lock_text = (
        (clone / "gibberish.lock")
        .read_text()
        .replace(lock["skills"]["pdf"]["fingerprint"], "0" * 64)
    )
    other = tmp_path / "other"
    other.mkdir()
    (other / "gibberish.toml").write_bytes((project / "gibberish.toml").read_bytes())
    (other / "gibberish.lock").write_text(lock_text)
    result = gib("install", "--project", str(other), "--yes", "--allow-outside")
    assert result.exit_code == 1 and "different content than was locked" in result.output
    assert not (other / ".gibberish" / "skills" / "pdf").exists()


def test_project_uninstall_updates_manifest_and_lock(tmp_path, gib) -> None:
    repo = git_repo(tmp_path / "repo", {"a/SKILL.md": skill_text("a")})
    project = tmp_path / "p"
    project.mkdir()
    assert (
        gib("install", f"file://{repo}#main:a", "--project", str(project), "--yes").exit_code == 0
    )
    assert gib("uninstall", "a", "--project", str(project)).exit_code == 0
    assert tomllib.loads((project / "gibberish.toml").read_text())["skills"] == {}
    assert tomllib.loads((project / "gibberish.lock").read_text())["skills"] == {}
    assert files_under(project / ".gibberish" / "skills") == {}


def test_project_skills_load_when_the_context_folder_is_inside_the_project(tmp_path, gib) -> None:
    repo = git_repo(tmp_path / "repo", {"a/SKILL.md": skill_text("projonly")})
    project = tmp_path / "p"
    (project / "src" / "deep").mkdir(parents=True)
    assert (
        gib("install", f"file://{repo}#main:a", "--project", str(project), "--yes").exit_code == 0
    )
    engine = Engine(EngineOptions(include_bundled=False))
    assert "projonly" not in {s.name for s in engine.library.skills()}
    assert engine.library.follow_project(project / "src" / "deep") is True
    skill = engine.library.require("projonly")
    assert skill.trust.value == "untrusted"
    assert engine.library.follow_project(project / "src") is False  # same project: nothing reloads
    assert engine.library.follow_project(tmp_path) is True
    assert "projonly" not in {s.name for s in engine.library.skills()}


def test_the_focused_apps_folder_brings_in_the_project_skills(tmp_path, gib) -> None:
    from gibberish.trust.context import FocusInfo
    from gibberish.trust.modes import ModeDetector

    repo = git_repo(tmp_path / "repo", {"a/SKILL.md": skill_text("projonly")})
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    assert (
        gib("install", f"file://{repo}#main:a", "--project", str(project), "--yes").exit_code == 0
    )

    class Focus:
        cwd = project / "src"

        def focused(self) -> FocusInfo:
            return FocusInfo(pid=1, app="kitty", cwd=self.cwd)

    class Quiet:
        def in_use(self) -> bool:
            return False

    focus = Focus()
    detector = ModeDetector(focus=focus, microphone=Quiet(), process_names=set)
    engine = Engine(EngineOptions(include_bundled=False), detector=detector)
    engine.follow_focus(engine.mode_context())  # an explicit call: the query changes nothing
    assert "projonly" in {s.name for s in engine.library.skills()}
    focus.cwd = tmp_path
    engine.follow_focus(engine.mode_context())
    assert "projonly" not in {s.name for s in engine.library.skills()}
