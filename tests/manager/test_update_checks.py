"""``installed --check`` and ``update`` agree on what changed (issue: right update checks).

Folder, archive and git sources (a bare repository made here with real git): a check
is read-only and exits 3 when an update exists; an update applies exactly what the
check announced, per skill; skills a new commit did not touch are re-pinned to it.
"""

from __future__ import annotations

import json

from tests.interop.builders import commit_files, git, git_repo, needs_git, skill_text, zip_with
from tests.manager.conftest import bare_repo, push


def test_folder_source_change_is_found_by_check_and_update(tmp_path, gib, user_skills) -> None:
    source = tmp_path / "src" / "alpha"
    source.mkdir(parents=True)
    (source / "SKILL.md").write_text(skill_text("alpha"))
    assert gib("install", str(source), "-y").exit_code == 0
    checked = gib("installed", "--check")
    assert checked.exit_code == 0, checked.output
    assert "no" in checked.output.splitlines()[1]

    (source / "SKILL.md").write_text(skill_text("alpha", command="echo changed"))
    (source / "notes.md").write_text("new file\n")
    before = (user_skills / "alpha" / "SKILL.md").read_bytes()
    checked = gib("installed", "--check")
    assert checked.exit_code == 3, checked.output
    assert "yes" in checked.output.splitlines()[1]
    assert "~ SKILL.md" in checked.output and "+ notes.md" in checked.output
    assert (user_skills / "alpha" / "SKILL.md").read_bytes() == before  # read-only
    data = json.loads(gib("installed", "--check", "--json").output)
    assert data[0]["update_available"] is True and "+ notes.md" in data[0]["changes"]

    updated = gib("update", "alpha", "-y")
    assert updated.exit_code == 0, updated.output
    assert "~ SKILL.md" in updated.output and "+ notes.md" in updated.output
    assert "echo changed" in (user_skills / "alpha" / "SKILL.md").read_text()
    again = gib("installed", "--check")
    assert again.exit_code == 0 and "no" in again.output.splitlines()[1]


def test_archive_rebuilt_with_same_files_is_no_update(tmp_path, gib, user_skills) -> None:
    archive = tmp_path / "alpha.zip"
    zip_with(archive, [("alpha/SKILL.md", skill_text("alpha").encode(), 0)])
    assert gib("install", str(archive), "-y").exit_code == 0
    # the same files packed again with an extra entry order: a different archive hash
    zip_with(
        archive,
        [("alpha/", b"", 0o040755), ("alpha/SKILL.md", skill_text("alpha").encode(), 0)],
    )
    checked = gib("installed", "--check")
    assert checked.exit_code == 0, checked.output
    update = gib("update", "alpha", "-y")
    assert "up to date" in update.output and "ask for approval" not in update.output
    zip_with(archive, [("alpha/SKILL.md", skill_text("alpha", command="echo v2").encode(), 0)])
    checked = gib("installed", "--check")
    assert checked.exit_code == 3 and "~ SKILL.md" in checked.output
    assert gib("update", "alpha", "-y").exit_code == 0
    assert "echo v2" in (user_skills / "alpha" / "SKILL.md").read_text()
    assert gib("installed", "--check").exit_code == 0


@needs_git
def test_git_commit_touching_one_of_three_skills(tmp_path, gib, user_skills, state) -> None:
    work = git_repo(
        tmp_path / "work",
        {f"skills/{n}/SKILL.md": skill_text(n) for n in ("one", "two", "three")},
    )
    bare = bare_repo(work, tmp_path / "served.git")
    result = gib("install", f"file://{bare}#main", "-y")
    assert result.exit_code == 0, result.output
    first = git(work, "rev-parse", "HEAD")
    assert {n: e["resolved"] for n, e in state().items()} == dict.fromkeys(
        ("one", "two", "three"), first
    )

    second = commit_files(work, {"skills/two/SKILL.md": skill_text("two", command="echo 2")}, "two")
    push(work, bare)
    checked = gib("installed", "--check", "--json")
    assert checked.exit_code == 3
    answers = {row["name"]: row["update_available"] for row in json.loads(checked.output)}
    assert answers == {"one": False, "two": True, "three": False}

    updated = gib("update", "-y")
    assert updated.exit_code == 0, updated.output
    assert "two: " in updated.output and "~ SKILL.md" in updated.output
    assert "one: up to date (same files); pinned to" in updated.output
    entries = state()
    assert {n: e["resolved"] for n, e in entries.items()} == dict.fromkeys(
        ("one", "two", "three"), second
    )
    assert second in entries["one"]["pinned"]
    record = json.loads((user_skills / "one" / ".gibberish-source.json").read_text())
    assert record["resolved"] == second
    final = gib("installed", "--check")
    assert final.exit_code == 0, final.output
    assert "yes" not in final.output
