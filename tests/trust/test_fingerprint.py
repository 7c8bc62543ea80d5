from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gibberish.trust import fingerprint as fp_module
from gibberish.trust.decision import ChangedFiles
from gibberish.trust.fingerprint import PROVENANCE_FILE, Fingerprint, fingerprint, what_changed

from .conftest import write_skill


def test_fingerprint_lists_every_file_with_its_sha256(skill_dir: Path) -> None:
    fp = fingerprint(skill_dir)
    assert sorted(fp.files) == ["SKILL.md", "scripts/run.sh"]
    assert all(len(h) == 64 for h in fp.files.values())
    assert len(fp.digest) == 64


def test_fingerprint_is_stable_across_calls_and_processes(skill_dir: Path) -> None:
    first = fingerprint(skill_dir)
    assert fingerprint(skill_dir) == first
    code = "import sys; from gibberish.trust.fingerprint import fingerprint; "
    code += "print(fingerprint(sys.argv[1]).digest)"
    other = subprocess.run(
        [sys.executable, "-c", code, str(skill_dir)],
        capture_output=True,
        text=True,
        check=True,
        timeout=30,
    )
    assert other.stdout.strip() == first.digest


def test_fingerprint_does_not_depend_on_creation_order_or_location(tmp_path: Path) -> None:
    a = tmp_path / "a" / "demo"
    b = tmp_path / "b" / "demo"
    for folder, order in ((a, ["x", "y", "z"]), (b, ["z", "y", "x"])):
        folder.mkdir(parents=True)
        for name in order:
            (folder / name).write_text(name)
    assert fingerprint(a) == fingerprint(b)


def test_changing_skill_md_changes_the_fingerprint_and_names_only_it(skill_dir: Path) -> None:
    before = fingerprint(skill_dir)
    (skill_dir / "SKILL.md").write_text((skill_dir / "SKILL.md").read_text() + "\nmore\n")
    after = fingerprint(skill_dir)
    assert after.digest != before.digest
    assert what_changed(before.files, after.files) == ChangedFiles(modified=("SKILL.md",))


def test_changing_only_a_script_changes_the_fingerprint_and_names_only_it(skill_dir: Path) -> None:
    before = fingerprint(skill_dir)
    (skill_dir / "scripts" / "run.sh").write_text("#!/bin/sh\nrm -rf ~\n")
    after = fingerprint(skill_dir)
    assert after.digest != before.digest
    changed = what_changed(before.files, after.files)
    assert changed == ChangedFiles(modified=("scripts/run.sh",))
    assert changed.lines() == ["~ scripts/run.sh"]


def test_added_and_removed_files_are_reported(skill_dir: Path) -> None:
    before = fingerprint(skill_dir)
    (skill_dir / "scripts" / "extra.py").write_text("print(1)\n")
    (skill_dir / "scripts" / "run.sh").unlink()
    after = fingerprint(skill_dir)
    assert after.digest != before.digest
    assert what_changed(before.files, after.files) == ChangedFiles(
        added=("scripts/extra.py",), removed=("scripts/run.sh",)
    )


def test_an_empty_file_and_an_empty_folder_count(skill_dir: Path) -> None:
    before = fingerprint(skill_dir)
    (skill_dir / "empty").touch()
    assert fingerprint(skill_dir).digest != before.digest


def test_renaming_a_file_changes_the_fingerprint(skill_dir: Path) -> None:
    before = fingerprint(skill_dir)
    (skill_dir / "scripts" / "run.sh").rename(skill_dir / "scripts" / "go.sh")
    after = fingerprint(skill_dir)
    assert after.digest != before.digest
    assert what_changed(before.files, after.files) == ChangedFiles(
        added=("scripts/go.sh",), removed=("scripts/run.sh",)
    )


def test_swapping_a_symlink_inside_the_skill_is_detected(skill_dir: Path) -> None:
    scripts = skill_dir / "scripts"
    (scripts / "safe.sh").write_text("echo safe\n")
    (scripts / "evil.sh").write_text("echo evil\n")
    link = scripts / "current.sh"
    link.symlink_to("safe.sh")
    before = fingerprint(skill_dir)
    link.unlink()
    link.symlink_to("evil.sh")
    after = fingerprint(skill_dir)
    assert after.digest != before.digest
    assert what_changed(before.files, after.files) == ChangedFiles(modified=("scripts/current.sh",))


def test_editing_a_symlinks_target_changes_the_links_entry_too(skill_dir: Path) -> None:
    (skill_dir / "scripts" / "current.sh").symlink_to("run.sh")
    before = fingerprint(skill_dir)
    (skill_dir / "scripts" / "run.sh").write_text("echo changed\n")
    changed = what_changed(before.files, fingerprint(skill_dir).files)
    assert changed.modified == ("scripts/current.sh", "scripts/run.sh")


def test_a_symlink_leaving_the_folder_is_hashed_by_its_target_text_only(
    tmp_path: Path, skill_dir: Path
) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text("echo one\n")
    (skill_dir / "scripts" / "ext.sh").symlink_to(outside)
    before = fingerprint(skill_dir)
    outside.write_text("echo two\n")  # not read: the fingerprint stays the same
    assert fingerprint(skill_dir) == before
    other = tmp_path / "other.sh"
    other.write_text("echo one\n")
    (skill_dir / "scripts" / "ext.sh").unlink()
    (skill_dir / "scripts" / "ext.sh").symlink_to(other)
    assert fingerprint(skill_dir).digest != before.digest


def test_nothing_outside_the_folder_is_ever_opened(
    tmp_path: Path, skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "outside.sh"
    outside.write_text("echo\n")
    (skill_dir / "leak").symlink_to(outside)
    (skill_dir / "inner").symlink_to("SKILL.md")
    opened: list[str] = []
    real = fp_module._hash_file

    def spy(path: str) -> str:
        opened.append(os.path.realpath(path))
        return real(path)

    monkeypatch.setattr(fp_module, "_hash_file", spy)
    fingerprint(skill_dir)
    root = os.path.realpath(skill_dir) + os.sep
    assert opened and all(p.startswith(root) for p in opened)
    assert str(outside.resolve()) not in opened


def test_dangling_and_directory_symlinks_and_loops_do_not_break_it(skill_dir: Path) -> None:
    (skill_dir / "dangling").symlink_to("nowhere")
    (skill_dir / "dirlink").symlink_to("scripts")
    (skill_dir / "loop").symlink_to("loop")
    fp = fingerprint(skill_dir)
    assert {"dangling", "dirlink", "loop"} <= set(fp.files)
    # the folder behind "dirlink" is not walked twice
    assert not any(p.startswith("dirlink/") for p in fp.files)


def test_a_fifo_is_recorded_but_never_opened(skill_dir: Path) -> None:
    os.mkfifo(skill_dir / "pipe")
    fp = fingerprint(skill_dir)  # opening the fifo would block forever
    assert "pipe" in fp.files


def test_unreadable_file_still_gives_a_fingerprint_that_changes_when_fixed(
    skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = fp_module._hash_file

    def denied(path: str) -> str:
        if path.endswith("run.sh"):
            raise PermissionError(13, "Permission denied")
        return real(path)

    monkeypatch.setattr(fp_module, "_hash_file", denied)
    locked = fingerprint(skill_dir)
    monkeypatch.undo()
    assert "scripts/run.sh" in locked.files
    assert fingerprint(skill_dir).digest != locked.digest


def test_pycache_git_and_provenance_are_skipped(skill_dir: Path) -> None:
    before = fingerprint(skill_dir)
    (skill_dir / "scripts" / "__pycache__").mkdir()
    (skill_dir / "scripts" / "__pycache__" / "x.cpython-311.pyc").write_bytes(b"\0")
    (skill_dir / ".git").mkdir()
    (skill_dir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (skill_dir / PROVENANCE_FILE).write_text('{"source": "https://example.org"}')
    assert fingerprint(skill_dir) == before
    # ...but a provenance-named file deeper down is an ordinary file
    (skill_dir / "scripts" / PROVENANCE_FILE).write_text("{}")
    assert fingerprint(skill_dir) != before


def test_non_utf8_file_names_are_handled(skill_dir: Path) -> None:
    name = os.fsdecode(b"caf\xe9.txt")
    (skill_dir / name).write_text("x")
    fp = fingerprint(skill_dir)
    assert name in fp.files


def test_a_missing_folder_raises_oserror(tmp_path: Path) -> None:
    with pytest.raises(OSError):
        fingerprint(tmp_path / "nope")


def test_fingerprint_is_frozen_and_hashable(skill_dir: Path) -> None:
    fp = fingerprint(skill_dir)
    with pytest.raises(TypeError):
        fp.files["x"] = "y"  # type: ignore[index]
    assert {fp: 1}[fingerprint(skill_dir)] == 1
    assert Fingerprint("a" * 64, {"x": "y"}).files == {"x": "y"}


def test_copied_skill_has_the_same_fingerprint(tmp_path: Path) -> None:
    original = write_skill(tmp_path / "one")
    copy = tmp_path / "two" / "demo"
    shutil.copytree(original, copy, symlinks=True)
    assert fingerprint(copy) == fingerprint(original)
