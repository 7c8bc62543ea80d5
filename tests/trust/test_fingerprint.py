from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gibberish.trust import fingerprint as fp_module
from gibberish.trust.decision import ChangedFiles
from gibberish.trust.fingerprint import (
    MAX_DEPTH,
    MAX_ENTRIES,
    PROVENANCE_FILE,
    Fingerprint,
    FingerprintError,
    covers,
    fingerprint,
    what_changed,
)

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


def _deny_opening(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """Make ``name`` unreadable like an execute-only (0111) file; tests run as root."""
    real = os.open

    def guarded(path, flags, *args, **kwargs):
        if os.path.basename(os.fspath(path)) == name:
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path, flags, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)


def test_swapping_an_unreadable_file_changes_the_fingerprint(
    skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # L1: an execute-only binary was hashed as a bare "unreadable" marker, whatever it held
    tool = skill_dir / "scripts" / "tool"
    tool.write_bytes(b"\x7fELF approved binary")
    _deny_opening(monkeypatch, "tool")
    approved = fingerprint(skill_dir)
    assert "scripts/tool" in approved.files
    assert fingerprint(skill_dir) == approved  # stable while nothing changes

    # swapped for another binary (new file renamed over it)
    swap = skill_dir / "scripts" / "tool.new"
    swap.write_bytes(b"\x7fELF another binary!")
    swap.rename(tool)
    swapped = fingerprint(skill_dir)
    assert what_changed(approved.files, swapped.files) == ChangedFiles(modified=("scripts/tool",))

    # rewritten in place with a different size
    tool.write_bytes(b"\x7fELF a longer, rewritten binary")
    rewritten = fingerprint(skill_dir)
    assert rewritten.digest != swapped.digest

    # rewritten in place, same size, mtime set back: the ctime still moves
    before = tool.stat()
    time.sleep(0.05)
    tool.write_bytes(b"\x7fELF a longer, REWRITTEN binary")
    os.utime(tool, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert tool.stat().st_size == before.st_size
    assert fingerprint(skill_dir).digest != rewritten.digest


def test_a_symlink_to_an_unreadable_file_changes_when_the_file_is_swapped(
    skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    tool = skill_dir / "scripts" / "tool"
    tool.write_bytes(b"one")
    (skill_dir / "run-tool").symlink_to("scripts/tool")
    _deny_opening(monkeypatch, "tool")
    before = fingerprint(skill_dir)
    swap = skill_dir / "scripts" / "tool.new"
    swap.write_bytes(b"two, longer")
    swap.rename(tool)
    changed = what_changed(before.files, fingerprint(skill_dir).files)
    assert changed.modified == ("run-tool", "scripts/tool")


def test_only_the_top_level_git_folder_and_provenance_file_are_skipped(skill_dir: Path) -> None:
    before = fingerprint(skill_dir)
    (skill_dir / ".git").mkdir()
    (skill_dir / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    (skill_dir / PROVENANCE_FILE).write_text('{"source": "https://example.org"}')
    assert fingerprint(skill_dir) == before
    # ...but a provenance-named file deeper down is an ordinary file
    (skill_dir / "scripts" / PROVENANCE_FILE).write_text("{}")
    assert fingerprint(skill_dir) != before


def test_a_planted_pyc_in_pycache_changes_the_fingerprint(skill_dir: Path) -> None:
    # H2: python3 scripts/helper.py would import a planted unchecked-hash .pyc
    (skill_dir / "scripts" / "helper.py").write_text("import lib\n")
    (skill_dir / "scripts" / "lib.py").write_text("print('safe')\n")
    before = fingerprint(skill_dir)
    cache = skill_dir / "scripts" / "__pycache__"
    cache.mkdir()
    (cache / "lib.cpython-312.pyc").write_bytes(b"\xcb\r\r\n\x03\0\0\0evil")
    after = fingerprint(skill_dir)
    assert after.digest != before.digest
    assert what_changed(before.files, after.files) == ChangedFiles(
        added=("scripts/__pycache__/lib.cpython-312.pyc",)
    )
    (cache / "lib.cpython-312.pyc").write_bytes(b"\xcb\r\r\n\x03\0\0\0worse")
    assert fingerprint(skill_dir).digest != after.digest
    # a __pycache__ at the top of the skill counts too
    (skill_dir / "__pycache__").mkdir()
    (skill_dir / "__pycache__" / "x.pyc").write_bytes(b"\0")
    assert "__pycache__/x.pyc" in fingerprint(skill_dir).files


def test_a_git_folder_below_the_top_is_fingerprinted(skill_dir: Path) -> None:
    # H2: only the skill's own top-level .git is skipped; a nested one is just a folder
    nested = skill_dir / "scripts" / ".git"
    nested.mkdir()
    (nested / "run.sh").write_text("echo approved\n")
    before = fingerprint(skill_dir)
    assert "scripts/.git/run.sh" in before.files
    (nested / "run.sh").write_text("echo edited after approval\n")
    assert what_changed(before.files, fingerprint(skill_dir).files) == ChangedFiles(
        modified=("scripts/.git/run.sh",)
    )


def test_a_top_level_git_file_is_fingerprinted(skill_dir: Path) -> None:
    # a worktree's or submodule's ".git" is a file, which git does not rewrite on fetch
    (skill_dir / ".git").write_text("gitdir: ../repo/.git/worktrees/demo\n")
    assert ".git" in fingerprint(skill_dir).files


def test_covers_says_whether_a_path_is_fingerprinted(tmp_path: Path, skill_dir: Path) -> None:
    # H2: a program in the top-level .git could change after approval; the Engine asks this
    (skill_dir / ".git").mkdir()
    (skill_dir / ".git" / "run.sh").write_text("echo\n")
    (skill_dir / "scripts" / "__pycache__").mkdir()
    (skill_dir / "scripts" / "__pycache__" / "x.pyc").write_bytes(b"\0")
    (skill_dir / "scripts" / ".git").mkdir()
    (skill_dir / "scripts" / ".git" / "x.sh").write_text("echo\n")
    (skill_dir / PROVENANCE_FILE).write_text("{}")
    (skill_dir / "scripts" / "into-git.sh").symlink_to("../.git/run.sh")
    (skill_dir / "gitdir").symlink_to(".git")
    (tmp_path / "outside.sh").write_text("echo\n")

    assert covers(skill_dir, "./scripts/run.sh")
    assert covers(skill_dir, "SKILL.md")
    assert covers(skill_dir, skill_dir / "scripts" / "run.sh")
    assert covers(skill_dir, "scripts/__pycache__/x.pyc")
    assert covers(skill_dir, "scripts/.git/x.sh")
    assert not covers(skill_dir, "./.git/run.sh")
    assert not covers(skill_dir, ".git")
    assert not covers(skill_dir, "scripts/../.git/run.sh")
    assert not covers(skill_dir, "./scripts/into-git.sh")  # a link into .git
    assert not covers(skill_dir, "./gitdir/run.sh")
    assert not covers(skill_dir, PROVENANCE_FILE)
    assert not covers(skill_dir, "../outside.sh")
    assert not covers(skill_dir, tmp_path / "outside.sh")
    assert not covers(skill_dir, ".")


def test_nesting_deeper_than_recursion_allows_raises_fingerprint_error(tmp_path: Path) -> None:
    # M5: ~1,100 nested folders used to raise RecursionError out of the walk
    skill = write_skill(tmp_path / "skills")
    chain = [skill]
    for _ in range(1100):  # one by one: Path.mkdir(parents=True) would recurse too
        chain.append(chain[-1] / "d")
        chain[-1].mkdir()
    (chain[-1] / "f").write_text("x")
    try:
        with pytest.raises(FingerprintError) as raised:
            fingerprint(skill)
        assert isinstance(raised.value, OSError)
        assert f"more than {MAX_DEPTH} deep" in str(raised.value)
        assert str(skill) in str(raised.value)
    finally:
        # shutil.rmtree (pytest's clean-up) recurses as well: remove it bottom-up here
        (chain[-1] / "f").unlink()
        for folder in reversed(chain[1:]):
            folder.rmdir()


def test_nesting_up_to_the_limit_is_fine(tmp_path: Path) -> None:
    skill = write_skill(tmp_path / "skills")
    deepest = skill.joinpath(*(["d"] * MAX_DEPTH))
    deepest.mkdir(parents=True)
    (deepest / "f").write_text("x")
    fp = fingerprint(skill)
    assert "/".join(["d"] * MAX_DEPTH) + "/f" in fp.files
    (deepest / "d").mkdir()
    with pytest.raises(FingerprintError):
        fingerprint(skill)


def test_too_many_entries_raise_fingerprint_error(
    skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert MAX_ENTRIES == 20_000
    (skill_dir / ".git" / "objects").mkdir(parents=True)
    for i in range(20):  # the top-level .git is not walked, so it does not count
        (skill_dir / ".git" / "objects" / f"o{i}").write_text("x")
    # SKILL.md, scripts, .git, scripts/run.sh
    monkeypatch.setattr(fp_module, "MAX_ENTRIES", 4)
    fingerprint(skill_dir)
    (skill_dir / "scripts" / "one-more.sh").write_text("echo\n")
    with pytest.raises(FingerprintError, match="more than 4 files and folders"):
        fingerprint(skill_dir)


def test_an_unlistable_skill_folder_raises_oserror(
    skill_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = os.scandir

    def denied(path):
        if os.fspath(path) == os.fspath(skill_dir):
            raise PermissionError(13, "Permission denied", os.fspath(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", denied)
    with pytest.raises(PermissionError):
        fingerprint(skill_dir)


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
