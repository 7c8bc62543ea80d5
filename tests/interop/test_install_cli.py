"""``gibberish install`` end to end: every kind of source, the checklist, the questions,
provenance and trust, conflicts, hostile skills, and all-or-nothing installs."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gibberish.app import Engine, EngineOptions
from gibberish.install import transaction as install_module
from gibberish.skills.model import Trust
from gibberish.trust.decision import DecisionKind
from tests.interop.builders import (
    files_under,
    git_repo,
    loopback,
    needs_git,
    skill_text,
    tar_with,
    write_skill,
    zip_with,
)


def _tree(root: Path) -> dict[str, bytes]:
    return files_under(root) if root.exists() else {}


def test_folder_of_skills_offers_a_checklist(tmp_path, gib, user_skills, terminal) -> None:
    for name in ("alpha", "beta", "gamma"):
        write_skill(tmp_path / "src", name)
    result = gib("install", str(tmp_path / "src"), input="1,gamma\ny\n")
    assert result.exit_code == 0, result.output
    assert "This source holds 3 skills" in result.output
    assert "tools: hello" in result.output and "tokens" in result.output
    assert "hello: echo hi" in result.output  # the exact command, before the question
    assert sorted(p.name for p in user_skills.iterdir()) == ["alpha", "gamma"]
    record = json.loads((user_skills / "alpha" / ".gibberish-source.json").read_text())
    assert record["source"] == str(tmp_path / "src")
    assert record["installed_by"] == "user" and record["installed_at"] and record["fingerprint"]


def test_saying_no_installs_nothing(tmp_path, gib, user_skills, state_file, terminal) -> None:
    write_skill(tmp_path / "src", "alpha")
    result = gib("install", str(tmp_path / "src" / "alpha"), input="n\n")
    assert "Nothing installed" in result.output
    assert not (user_skills / "alpha").exists() and not state_file.exists()


def test_installed_skill_is_untrusted_asks_with_its_source_and_runs(
    tmp_path, gib, user_skills
) -> None:
    write_skill(tmp_path / "src", "alpha", command="echo installed-and-ran")
    zipped = tmp_path / "alpha.skill"
    zip_with(
        zipped,
        [("alpha/SKILL.md", skill_text("alpha", command="echo installed-and-ran").encode(), 0)],
    )
    assert gib("install", str(zipped), "--yes").exit_code == 0
    engine = Engine(EngineOptions(include_bundled=False))
    skill = engine.library.require("alpha")
    assert skill.trust is Trust.UNTRUSTED
    prepared = engine.runs.prepare("alpha.hello")
    assert prepared.decision.kind is DecisionKind.ASK
    assert f"Source: {zipped}" in (prepared.decision.banner or "")
    result = engine.runs.run(prepared, confirmed=True)
    assert result.envelope.success and "installed-and-ran" in result.envelope.output
    listing = gib("skills", "list", "--json")
    trust = {entry["name"]: entry["trust"] for entry in json.loads(listing.output)}
    assert trust["alpha"] == "untrusted"


@needs_git
def test_archive_url_and_git_sources(tmp_path, gib, user_skills) -> None:
    tarred = tar_with(tmp_path / "t.tar.gz", [("tarred/SKILL.md", skill_text("tarred").encode())])
    repo = git_repo(tmp_path / "repo", {"skills/fromgit/SKILL.md": skill_text("fromgit")})
    with loopback() as server:
        url = server.file("/t.tar.gz", tarred.read_bytes())
        assert gib("install", url, "--yes").exit_code == 0
    result = gib("install", f"file://{repo}#main:skills/fromgit", "--yes")
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in user_skills.iterdir()) == ["fromgit", "tarred"]
    record = json.loads((user_skills / "fromgit" / ".gibberish-source.json").read_text())
    assert len(record["resolved"]) == 40 and record["kind"] == "git"
    assert json.loads((user_skills / "tarred" / ".gibberish-source.json").read_text())[
        "resolved"
    ].startswith("sha256:")
    listing = gib("installed")
    assert "fromgit" in listing.output and record["resolved"][:19] in listing.output


@pytest.mark.parametrize(
    ("entries", "message"),
    [
        ([("README.md", b"hello", 0)], "no SKILL.md found"),
        (
            [
                ("a/SKILL.md", skill_text("same").encode(), 0),
                ("b/SKILL.md", skill_text("same").encode(), 0),
            ],
            "two skills are named “same”",
        ),
        (
            [("x/SKILL.md", b"---\nfoo: bar\nlist: [1, 2]\n---\n\nJust YAML.\n", 0)],
            "not a skill gibberish can install",
        ),
        ([("x/SKILL.md", b"no frontmatter at all\n", 0)], "not a skill gibberish can install"),
    ],
)
def test_archives_that_hold_no_usable_skill(tmp_path, gib, user_skills, entries, message) -> None:
    zipped = zip_with(tmp_path / "bad.zip", entries)
    result = gib("install", str(zipped), "--yes")
    assert result.exit_code == 1
    assert message in result.output
    assert "Traceback" not in result.output
    assert not user_skills.exists() or [p.name for p in user_skills.iterdir()] == []


def test_a_hostile_archive_is_refused_through_the_cli(tmp_path, gib, user_skills) -> None:
    zipped = zip_with(
        tmp_path / "slip.zip",
        [("ok/SKILL.md", skill_text("ok").encode(), 0), ("../../evil", b"x", 0)],
    )
    result = gib("install", str(zipped), "--yes")
    assert result.exit_code == 1 and "outside the archive" in result.output
    assert not (tmp_path / "evil").exists()
    assert not user_skills.exists() or list(user_skills.iterdir()) == []


def test_overwriting_your_own_skill_asks_and_no_keeps_it(
    tmp_path, gib, user_skills, terminal
) -> None:
    mine = write_skill(user_skills, "alpha", command="echo mine")
    write_skill(tmp_path / "src", "alpha", command="echo theirs")
    result = gib("install", str(tmp_path / "src" / "alpha"), "--yes", input="n\n")
    assert "would overwrite a skill of your own" in result.output
    assert result.exit_code == 1
    assert "echo mine" in (mine / "SKILL.md").read_text()
    assert not (mine / ".gibberish-source.json").exists()
    result = gib("install", str(tmp_path / "src" / "alpha"), "--yes", input="y\n")
    assert result.exit_code == 0
    assert "echo theirs" in (mine / "SKILL.md").read_text()


def test_a_bundled_name_asks_before_hiding_the_bundled_skill(
    tmp_path, gib, user_skills, terminal
) -> None:
    write_skill(tmp_path / "src", "git", command="echo not-the-real-git")
    result = gib("install", str(tmp_path / "src" / "git"), "--yes", input="n\n")
    assert "would hide the bundled skill" in result.output and result.exit_code == 1
    assert not (user_skills / "git").exists()
    assert gib("install", str(tmp_path / "src" / "git"), "--yes", "--replace").exit_code == 0
    assert (user_skills / "git" / ".gibberish-source.json").exists()


def test_a_failed_install_leaves_nothing_and_keeps_the_previous_version(
    tmp_path, gib, user_skills, state_file, monkeypatch
) -> None:
    for name in ("alpha", "beta"):
        write_skill(tmp_path / "v1", name, command="echo v1")
        write_skill(tmp_path / "v2", name, command="echo v2")
    assert gib("install", str(tmp_path / "v1"), "--yes").exit_code == 0
    before, state_before = _tree(user_skills), state_file.read_bytes()
    real_move = install_module.Installer._move_into_place

    def failing(self, item, backups):
        if item.name == "beta":  # alpha is already in place by now
            raise OSError(28, "No space left on device")
        return real_move(self, item, backups)

    monkeypatch.setattr(install_module.Installer, "_move_into_place", failing)
    result = gib("install", str(tmp_path / "v2"), "--yes", "--replace")
    assert result.exit_code != 0 and "No space left" in result.output
    assert _tree(user_skills) == before  # alpha (already moved) rolled back to v1
    assert state_file.read_bytes() == state_before
    assert sorted(p.name for p in user_skills.iterdir()) == ["alpha", "beta"]  # no staging left


def test_dependencies_are_installed_and_cycles_named(
    tmp_path, gib, user_skills, state_file
) -> None:
    deps = "dependencies:\n  skills:\n    - ../{0}\n"
    write_skill(
        tmp_path / "src",
        "app",
        extra=deps.format("lib")
        + "  mcp:\n    files:\n      command: npx\n      args: [-y, srv]\n      env: {A: b}\n",
    )
    write_skill(tmp_path / "src", "lib", extra=deps.format("base"))
    write_skill(tmp_path / "src", "base")
    result = gib("install", str(tmp_path / "src" / "app"), "--yes")
    assert result.exit_code == 0, result.output
    assert "needed by app" in result.output and "MCP server files" in result.output
    assert sorted(p.name for p in user_skills.iterdir()) == ["app", "base", "lib"]
    state = json.loads(state_file.read_text())
    assert state["skills"]["lib"]["installed_by"] == "app"
    assert state["skills"]["base"]["depended_by"] == ["lib"]
    assert state["mcp"]["files"] == {
        "command": "npx",
        "args": ["-y", "srv"],
        "env": {"A": "b"},
        "installed_by_skill": "app",
    }
    # cycles
    write_skill(tmp_path / "cyc", "one", extra=deps.format("two"))
    write_skill(tmp_path / "cyc", "two", extra=deps.format("three"))
    write_skill(tmp_path / "cyc", "three", extra=deps.format("one"))
    result = gib("install", str(tmp_path / "cyc" / "one"), "--yes")
    assert result.exit_code == 1
    assert "E-DEPENDENCY-CYCLE: one → two → three → one" in result.output
    assert not (user_skills / "one").exists() and not (user_skills / "two").exists()


def test_malformed_dependencies_are_refused(tmp_path, gib, user_skills) -> None:
    write_skill(tmp_path / "src", "bad", extra="dependencies:\n  mcp:\n    srv: {args: [x]}\n")
    result = gib("install", str(tmp_path / "src" / "bad"), "--yes")
    assert (
        result.exit_code == 1
        and "E-DEPENDENCY-INVALID" in result.output
        and "needs a `command:`" in result.output
    )


def test_uninstall_refuses_while_needed_and_offers_orphans(
    tmp_path, gib, user_skills, state_file, terminal
) -> None:
    deps = "dependencies:\n  skills:\n    - ../{0}\n"
    write_skill(tmp_path / "src", "app", extra=deps.format("lib"))
    write_skill(tmp_path / "src", "lib", extra=deps.format("base"))
    write_skill(tmp_path / "src", "base")
    mine = write_skill(user_skills, "mine")
    assert gib("install", str(tmp_path / "src" / "app"), "--yes").exit_code == 0
    result = gib("uninstall", "base")
    assert result.exit_code == 1 and "needed by lib" in result.output
    assert (user_skills / "base").exists()
    result = gib("uninstall", "mine")
    assert result.exit_code == 1 and "was not installed by gibberish" in result.output
    assert mine.exists()
    result = gib("uninstall", "app", input="y\n")
    assert result.exit_code == 0 and "Removed app, base, lib" in result.output
    assert sorted(p.name for p in user_skills.iterdir()) == ["mine"]
    assert json.loads(state_file.read_text())["skills"] == {}


def test_uninstall_force_and_keeping_orphans(tmp_path, gib, user_skills, terminal) -> None:
    write_skill(tmp_path / "src", "app", extra="dependencies:\n  skills:\n    - ../lib\n")
    write_skill(tmp_path / "src", "lib")
    assert gib("install", str(tmp_path / "src" / "app"), "--yes").exit_code == 0
    assert gib("uninstall", "lib", "--force").exit_code == 0
    assert not (user_skills / "lib").exists() and (user_skills / "app").exists()
    assert gib("install", str(tmp_path / "src" / "lib"), "--yes").exit_code == 0
    assert "needed by app" in gib("uninstall", "lib").output  # the link comes back
    write_skill(tmp_path / "src2", "tool", extra="dependencies:\n  skills:\n    - ../helper\n")
    write_skill(tmp_path / "src2", "helper")
    assert gib("install", str(tmp_path / "src2" / "tool"), "--yes").exit_code == 0
    result = gib("uninstall", "tool", input="n\n")
    assert "Kept helper" in result.output and (user_skills / "helper").exists()
    assert not (user_skills / "tool").exists()


def test_a_corrupted_state_file_is_kept_aside_and_rebuilt(
    tmp_path, gib, user_skills, state_file
) -> None:
    write_skill(
        tmp_path / "src",
        "app",
        extra="dependencies:\n  skills:\n    - source: ../lib\n      name: lib\n",
    )
    write_skill(tmp_path / "src", "lib")
    assert gib("install", str(tmp_path / "src" / "app"), "--yes").exit_code == 0
    state_file.write_text("{ this is not json")
    result = gib("installed")
    assert "app" in result.output and "lib" in result.output
    aside = list(state_file.parent.glob("installed.json.broken-*"))
    assert len(aside) == 1 and aside[0].read_text() == "{ this is not json"
    state = json.loads(state_file.read_text())
    assert state["skills"]["lib"]["depended_by"] == ["app"]
    assert gib("uninstall", "lib").exit_code == 1  # the rebuilt state still knows app needs it


def test_what_a_killed_install_left_behind_is_cleaned_up_later(tmp_path, gib, user_skills) -> None:
    stale = user_skills / ".gibberish-staging" / "gibberish-fetch-old"
    fresh = user_skills / ".gibberish-staging" / "gibberish-fetch-new"
    for folder in (stale, fresh):
        (folder / "staged").mkdir(parents=True)
    day_ago = time.time() - 2 * 24 * 3600
    os.utime(stale, (day_ago, day_ago))
    write_skill(tmp_path / "src", "alpha")
    assert gib("install", str(tmp_path / "src" / "alpha"), "--yes").exit_code == 0
    assert not stale.exists() and fresh.exists()  # a running install's folder is left alone
