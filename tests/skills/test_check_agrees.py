"""Checking one skill folder and loading it are one code path: whatever makes the
library refuse a skill is reported when that folder alone is checked."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import pytest

from gibberish.skills.library import SkillLibrary, SkillSource
from gibberish.skills.model import Severity, Trust
from tests.skills.fixtures.skillkit import write_skill


def _escaping_link(folder: Path) -> None:
    (folder / "scripts").mkdir()
    (folder / "scripts" / "secret").symlink_to("/etc/hostname")


def _link_loop(folder: Path) -> None:
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").symlink_to(folder / "other.md")
    (folder / "other.md").symlink_to(folder / "SKILL.md")


def _many_files(folder: Path) -> None:
    for i in range(30):
        (folder / f"f{i}").write_text("")


def _fifo(folder: Path) -> None:
    (folder / "SKILL.md").unlink()
    os.mkfifo(folder / "SKILL.md")


def _self_link(folder: Path) -> None:
    (folder / "SKILL.md").unlink()
    (folder / "SKILL.md").symlink_to(folder / "SKILL.md")


HOSTILE: dict[str, Callable[[Path], None]] = {
    "symlink out of the folder": _escaping_link,
    "SKILL.md in a symlink loop": _link_loop,
    "more entries than the limit": _many_files,
    "SKILL.md is a FIFO": _fifo,
    "SKILL.md links to itself": _self_link,
}


def _errors(skill) -> list[str]:
    return sorted(d.code for d in skill.diagnostics if d.severity is Severity.ERROR)


@pytest.mark.parametrize("make", HOSTILE.values(), ids=list(HOSTILE))
def test_checking_a_folder_reports_what_the_library_refuses(
    tmp_path: Path, make: Callable[[Path], None]
) -> None:
    folder = write_skill(tmp_path, "demo").parent
    make(folder)
    library = SkillLibrary([SkillSource(tmp_path, Trust.USER)], max_tree_entries=20)
    library.load()
    loaded = library.get("demo")
    assert loaded is not None and not loaded.ok
    checked = SkillLibrary([], max_tree_entries=20).load_folder(folder)
    assert not checked.ok
    assert _errors(checked) == _errors(loaded) != []
    assert checked.name == "demo"


def test_a_good_folder_checks_clean(tmp_path: Path) -> None:
    folder = write_skill(tmp_path, "demo").parent
    assert SkillLibrary([]).load_folder(folder).diagnostics == ()
