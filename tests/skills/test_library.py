"""SkillLibrary: sources, precedence, path escapes, trust, incremental refresh."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from gibberish import paths
from gibberish.skills import library as library_module
from gibberish.skills.library import LibraryChanges, SkillLibrary, SkillSource
from gibberish.skills.model import Profile, Trust
from tests.skills.fixtures.skillkit import codes, front, only, skill_text, write_skill


def make_library(*roots: Path, trust: Trust = Trust.USER, **kwargs) -> SkillLibrary:
    return SkillLibrary([SkillSource(r, trust) for r in roots], **kwargs)


@pytest.fixture
def parse_calls(monkeypatch):
    """Names of the skills the library parsed."""
    calls: list[str] = []
    real = library_module.parse_skill_bytes

    def counting(data, problem=None, *, path, **kwargs):
        calls.append(Path(path).parent.name)
        return real(data, problem, path=path, **kwargs)

    monkeypatch.setattr(library_module, "parse_skill_bytes", counting)
    return calls


# --- loading -------------------------------------------------------------------------------


def test_empty_skills_folder(tmp_path):
    (tmp_path / "skills").mkdir()
    lib = make_library(tmp_path / "skills")
    assert lib.load() == LibraryChanges()
    assert not lib.load()
    assert lib.skills() == [] and lib.diagnostics() == [] and lib.problems() == []


def test_missing_skills_folder_is_fine(tmp_path):
    lib = make_library(tmp_path / "nope")
    lib.load()
    assert lib.skills() == [] and lib.diagnostics() == []


def test_source_that_is_a_file(tmp_path):
    (tmp_path / "file").write_text("x")
    lib = make_library(tmp_path / "file")
    lib.load()
    (diag,) = lib.diagnostics()
    assert diag.code == "E-UNREADABLE-DIR"
    assert diag.file == str(tmp_path / "file")


def test_unreadable_source_folder(tmp_path, monkeypatch):
    root = tmp_path / "skills"
    write_skill(root, "demo")
    real = os.scandir

    def deny(path="."):
        if os.fspath(path) == str(root):
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(library_module.os, "scandir", deny)
    lib = make_library(root)
    lib.load()
    (diag,) = lib.diagnostics()
    assert diag.code == "E-UNREADABLE-DIR"
    assert "Permission denied" in diag.message
    assert lib.skills() == []


def test_skills_are_sorted_and_returned_as_fresh_lists(tmp_path):
    for name in ("zeta", "alpha", "mid"):
        write_skill(tmp_path, name)
    lib = make_library(tmp_path)
    assert lib.load().added == ("alpha", "mid", "zeta")
    listing = lib.skills()
    assert [s.name for s in listing] == ["alpha", "mid", "zeta"]
    listing.clear()
    assert len(lib.skills()) == 3
    assert lib.get("mid").name == "mid"
    assert lib.get("missing") is None


def test_broken_skill_does_not_stop_its_siblings(tmp_path):
    write_skill(tmp_path, "good-one")
    write_skill(tmp_path, "broken", "---\nname: broken\nmodes: [\n---\n")
    write_skill(tmp_path, "binary", b"\x00\xff")
    write_skill(tmp_path, "good-two")
    lib = make_library(tmp_path)
    lib.load()
    assert [s.name for s in lib.skills()] == ["binary", "broken", "good-one", "good-two"]
    assert [s.name for s in lib.problems()] == ["binary", "broken"]
    assert lib.get("good-one").ok and lib.get("good-two").ok
    assert {d.code for d in lib.diagnostics()} >= {"E-YAML", "E-BINARY-FILE"}


def test_unreadable_skill_file_is_a_diagnostic(tmp_path):
    write_skill(tmp_path, "good")
    (tmp_path / "dir-skill" / "SKILL.md").mkdir(parents=True)
    lib = make_library(tmp_path)
    lib.load()
    assert "E-UNREADABLE" in codes(lib.get("dir-skill"))
    assert lib.get("good").ok


def test_folder_without_skill_md(tmp_path):
    write_skill(tmp_path, "good")
    (tmp_path / "wip").mkdir()
    (tmp_path / "wip" / "skill.md").write_text(skill_text("wip"))
    lib = make_library(tmp_path)
    lib.load()
    assert [s.name for s in lib.skills()] == ["good"]
    (diag,) = lib.diagnostics()
    assert diag.code == "W-NO-SKILL-FILE"
    assert diag.file == str(tmp_path / "wip")


def test_hidden_folders_and_loose_files_are_skipped(tmp_path):
    write_skill(tmp_path, ".git")
    (tmp_path / "README.md").write_text("hi")
    write_skill(tmp_path, "good")
    lib = make_library(tmp_path)
    lib.load()
    assert [s.name for s in lib.skills()] == ["good"]
    assert lib.diagnostics() == []


def test_profile_is_passed_to_the_parser(tmp_path):
    write_skill(tmp_path, "instr", front("instr", version=None) + "Just prose.\n")
    lib = make_library(tmp_path, profile=Profile.AGENTSKILLS)
    lib.load()
    assert lib.get("instr").ok
    gib = make_library(tmp_path)
    gib.load()
    # the gibberish library lists it as what it is: an instruction skill, not a problem
    assert gib.get("instr").ok and gib.get("instr").profile is Profile.AGENTSKILLS
    assert gib.problems() == []


def test_a_broken_instruction_skill_stays_a_problem(tmp_path):
    write_skill(tmp_path, "instr", "---\nname: instr\n---\n\nJust prose, no description.\n")
    gib = make_library(tmp_path)
    gib.load()
    assert {"E-MISSING-FIELD", "E-NO-TOOLS"} <= set(codes(gib.get("instr")))
    assert [s.name for s in gib.problems()] == ["instr"]


def test_a_name_differing_from_the_folder_is_a_warning_not_a_problem(tmp_path):
    write_skill(tmp_path, "instr", front("other", version=None) + "Just prose.\n")
    gib = make_library(tmp_path)
    gib.load()
    assert gib.get("instr").ok and "W-NAME-MISMATCH" in codes(gib.get("instr"))
    assert gib.problems() == []


# --- sources and precedence ----------------------------------------------------------------


def test_default_sources(tmp_path):
    extra = tmp_path / "extra"
    sources = SkillLibrary.default_sources(extra_dirs=[extra])
    assert sources == [
        SkillSource(paths.user_skills_dir(), Trust.USER),
        SkillSource(extra, Trust.USER),
        SkillSource(paths.bundled_skills_dir(), Trust.BUNDLED),
    ]
    assert SkillLibrary.default_sources(include_user=False, include_bundled=False) == []


def test_default_sources_drop_duplicates():
    sources = SkillLibrary.default_sources(extra_dirs=[paths.user_skills_dir()])
    assert [s.path for s in sources] == [paths.user_skills_dir(), paths.bundled_skills_dir()]


def test_user_skill_overrides_bundled(tmp_path, parse_calls):
    user, bundled = tmp_path / "user", tmp_path / "bundled"
    user_md = write_skill(user, "git")
    bundled_md = write_skill(bundled, "git")
    write_skill(bundled, "other")
    lib = SkillLibrary([SkillSource(user, Trust.USER), SkillSource(bundled, Trust.BUNDLED)])
    lib.load()
    git = lib.get("git")
    assert git.source_path == user_md and git.trust is Trust.USER
    assert lib.get("other").trust is Trust.BUNDLED
    (diag,) = lib.diagnostics()
    assert diag.code == "W-SKILL-OVERRIDDEN"
    assert str(user_md.parent) in diag.message and str(bundled_md.parent) in diag.message
    assert sorted(parse_calls) == ["git", "other"]  # the shadowed one is never parsed
    assert git.diagnostics == ()


def test_provenance_file_makes_a_skill_untrusted(tmp_path):
    write_skill(tmp_path, "imported")
    (tmp_path / "imported" / ".gibberish-source.json").write_text("{}")
    write_skill(tmp_path, "mine")
    lib = make_library(tmp_path, trust=Trust.BUNDLED)
    lib.load()
    assert lib.get("imported").trust is Trust.UNTRUSTED
    assert lib.get("mine").trust is Trust.BUNDLED


# --- path escapes --------------------------------------------------------------------------


def test_script_symlink_escaping_the_skill(tmp_path):
    root = tmp_path / "skills"
    write_skill(root, "evil")
    write_skill(root, "good")
    (root / "evil" / "scripts").mkdir()
    (root / "evil" / "scripts" / "x").symlink_to("/etc/passwd")
    lib = make_library(root)
    lib.load()
    evil = lib.get("evil")
    diag = only(evil, "E-PATH-ESCAPE")
    assert diag.file == str(root / "evil" / "scripts" / "x")
    assert "/etc/passwd" in diag.message
    assert not evil.ok
    assert lib.get("good").ok
    assert diag in lib.diagnostics()


def test_relative_symlink_escape_and_symlinked_dir(tmp_path):
    root = tmp_path / "skills"
    write_skill(root, "evil")
    (root / "evil" / "up").symlink_to("../..", target_is_directory=True)
    lib = make_library(root)
    lib.load()
    assert "E-PATH-ESCAPE" in codes(lib.get("evil"))


def test_skill_md_symlink_escape_in_library(tmp_path):
    root = tmp_path / "skills"
    (root / "evil").mkdir(parents=True)
    (tmp_path / "elsewhere.md").write_text(skill_text("evil"))
    (root / "evil" / "SKILL.md").symlink_to(tmp_path / "elsewhere.md")
    lib = make_library(root)
    lib.load()
    assert codes(lib.get("evil")) == ["E-PATH-ESCAPE"]


def test_symlinks_inside_the_skill_are_fine(tmp_path):
    root = tmp_path / "skills"
    write_skill(root, "demo")
    scripts = root / "demo" / "scripts"
    scripts.mkdir()
    (scripts / "run.sh").write_text("#!/bin/sh\n")
    (scripts / "alias.sh").symlink_to("run.sh")
    (root / "demo" / "bin").symlink_to("scripts", target_is_directory=True)
    lib = make_library(root)
    lib.load()
    assert lib.get("demo").diagnostics == ()


def test_symlinked_skill_folder_is_followed(tmp_path):
    real = tmp_path / "src" / "demo"
    write_skill(tmp_path / "src", "demo")
    (real / "scripts").mkdir()
    (real / "scripts" / "a.sh").write_text("echo\n")
    root = tmp_path / "skills"
    root.mkdir()
    (root / "demo").symlink_to(real, target_is_directory=True)
    lib = make_library(root)
    lib.load()
    skill = lib.get("demo")
    assert skill.ok and skill.diagnostics == ()
    assert skill.source_path == root / "demo" / "SKILL.md"


def test_huge_skill_tree_is_an_error(tmp_path, monkeypatch):
    write_skill(tmp_path, "demo")
    write_skill(tmp_path, "small")
    for i in range(10):
        (tmp_path / "demo" / f"f{i}").write_text("")
    lib = make_library(tmp_path, max_tree_entries=5)
    lib.load()
    skill = lib.get("demo")
    diag = only(skill, "E-SKILL-TREE-LARGE")
    assert diag.is_error and not skill.ok
    assert "more than 5 files" in diag.message
    assert "should hold only the skill" in diag.message
    assert diag.file == str(tmp_path / "demo")
    assert lib.get("small").ok


def test_escaping_link_past_the_entry_cap_never_loads(tmp_path, monkeypatch):
    """M2: past the cap the walk used to stop with a warning, so a link deeper in the
    tree was never looked at and the skill loaded."""
    write_skill(tmp_path / "skills", "demo")
    deep = tmp_path / "skills" / "demo" / "data" / "deeper"
    deep.mkdir(parents=True)
    for i in range(30):
        (tmp_path / "skills" / "demo" / "data" / f"f{i:02}").write_text("")
    (tmp_path / "secret").write_text("key")
    (deep / "zz-link").symlink_to(tmp_path / "secret")
    lib = make_library(tmp_path / "skills", max_tree_entries=20)
    lib.load()
    skill = lib.get("demo")
    assert not skill.ok
    assert "E-SKILL-TREE-LARGE" in codes(skill)


def test_tree_at_the_entry_cap_is_fine(tmp_path, monkeypatch):
    write_skill(tmp_path, "demo")
    for i in range(4):  # with SKILL.md: exactly 5 entries
        (tmp_path / "demo" / f"f{i}").write_text("")
    lib = make_library(tmp_path, max_tree_entries=5)
    lib.load()
    assert lib.get("demo").diagnostics == ()


def test_huge_folder_is_not_listed_in_full(tmp_path, monkeypatch):
    write_skill(tmp_path, "demo")
    for i in range(50):
        (tmp_path / "demo" / f"f{i}").write_text("")
    seen = []
    real = os.scandir

    class Counting:
        def __init__(self, path):
            self.it = real(path)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.it.close()

        def __iter__(self):
            return self

        def __next__(self):
            entry = next(self.it)
            seen.append(entry.name)
            return entry

    monkeypatch.setattr(library_module.os, "scandir", Counting)
    lib = make_library(tmp_path, max_tree_entries=5)
    lib.load()
    assert "E-SKILL-TREE-LARGE" in codes(lib.get("demo"))
    assert len(seen) == 1 + 6  # the source folder's one entry, then the skill's first six


# --- refresh -------------------------------------------------------------------------------


def test_refresh_before_load_loads(tmp_path):
    write_skill(tmp_path, "demo")
    lib = make_library(tmp_path)
    assert lib.refresh().added == ("demo",)


def test_refresh_without_changes_rereads_nothing(tmp_path, parse_calls):
    write_skill(tmp_path, "a")
    write_skill(tmp_path, "b")
    lib = make_library(tmp_path, racy_window_ns=0)
    lib.load()
    before = lib.get("a")
    parse_calls.clear()
    changes = lib.refresh()
    assert changes == LibraryChanges() and not changes
    assert parse_calls == []
    assert lib.get("a") is before


def test_refresh_reports_added_changed_removed(tmp_path, parse_calls):
    for name in ("keep", "edit", "gone"):
        write_skill(tmp_path, name)
    lib = make_library(tmp_path, racy_window_ns=0)
    lib.load()
    parse_calls.clear()
    edited = skill_text("edit").replace("A skill used in tests.", "Now edited.")
    write_skill(tmp_path, "edit", edited)
    write_skill(tmp_path, "new")
    (tmp_path / "gone" / "SKILL.md").unlink()
    (tmp_path / "gone").rmdir()
    changes = lib.refresh()
    assert changes == LibraryChanges(added=("new",), changed=("edit",), removed=("gone",))
    assert bool(changes)
    assert sorted(parse_calls) == ["edit", "new"]
    assert lib.get("edit").description == "Now edited."
    assert lib.get("gone") is None


def test_touch_without_content_change_is_not_a_change(tmp_path):
    path = write_skill(tmp_path, "demo")
    lib = make_library(tmp_path, racy_window_ns=0)
    lib.load()
    os.utime(path, ns=(1, 1))
    assert not lib.refresh()


def test_quick_same_size_edit_is_not_missed(tmp_path):
    # Written within the same clock tick as the load: the stat signature can be equal,
    # so the racy window must make refresh read the file again.
    path = write_skill(tmp_path, "demo")
    lib = make_library(tmp_path)
    lib.load()
    st = path.stat()
    path.write_text(path.read_text().replace("A skill used", "A skill USED"))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert lib.refresh().changed == ("demo",)
    assert lib.get("demo").description == "A skill USED in tests."


def test_new_escaping_symlink_in_a_subfolder_is_noticed(tmp_path):
    write_skill(tmp_path, "demo")
    (tmp_path / "demo" / "scripts").mkdir()
    lib = make_library(tmp_path, racy_window_ns=0)
    lib.load()
    assert lib.get("demo").ok
    (tmp_path / "demo" / "scripts" / "x").symlink_to("/etc/passwd")
    assert lib.refresh().changed == ("demo",)
    assert "E-PATH-ESCAPE" in codes(lib.get("demo"))


def test_refresh_notices_provenance_and_overrides(tmp_path):
    user, bundled = tmp_path / "user", tmp_path / "bundled"
    write_skill(bundled, "git")
    lib = SkillLibrary([SkillSource(user, Trust.USER), SkillSource(bundled, Trust.BUNDLED)])
    lib.load()
    assert lib.get("git").trust is Trust.BUNDLED
    write_skill(user, "git")
    assert lib.refresh().changed == ("git",)
    assert lib.get("git").trust is Trust.USER
    assert [d.code for d in lib.diagnostics()] == ["W-SKILL-OVERRIDDEN"]
    (user / "git" / ".gibberish-source.json").write_text("{}")
    assert lib.refresh().changed == ("git",)
    assert lib.get("git").trust is Trust.UNTRUSTED


def test_load_reparses_everything(tmp_path, parse_calls):
    write_skill(tmp_path, "a")
    lib = make_library(tmp_path, racy_window_ns=0)
    lib.load()
    assert not lib.load()
    assert parse_calls == ["a", "a"]


def test_concurrent_refresh_and_reads(tmp_path):
    for i in range(30):
        write_skill(tmp_path, f"s{i}")
    lib = make_library(tmp_path)
    lib.load()
    errors: list[BaseException] = []
    stop = threading.Event()

    def reader():
        try:
            while not stop.is_set():
                assert len(lib.skills()) in (30, 31)
                lib.diagnostics()
                lib.problems()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=reader) for _ in range(3)]
    for t in threads:
        t.start()
    for i in range(20):
        if i == 10:
            write_skill(tmp_path, "late")
        lib.refresh()
    stop.set()
    for t in threads:
        t.join()
    assert errors == []
    assert lib.get("late") is not None


def test_racy_entries_are_reread_even_when_stat_is_identical(tmp_path):
    # A file system whose timestamps did not move: only the racy rule helps.
    now = time.time_ns()

    def frozen_stat(path: str) -> SimpleNamespace:
        st = os.stat(path)
        return SimpleNamespace(st_ino=1, st_size=st.st_size, st_mtime_ns=now, st_ctime_ns=now)

    path = write_skill(tmp_path, "demo")
    lib = make_library(tmp_path, stat=frozen_stat)
    lib.load()
    path.write_text(path.read_text().replace("A skill used", "A skill USED"))
    assert lib.refresh().changed == ("demo",)
    calm = make_library(tmp_path, stat=frozen_stat, racy_window_ns=0)
    calm.load()
    path.write_text(path.read_text().replace("A skill USED", "A skill used"))
    assert not calm.refresh()  # identical stat and not racy: trusted (the point of the cache)


def test_racy_but_unchanged_skills_are_not_parsed_again(tmp_path, parse_calls):
    write_skill(tmp_path, "demo")  # just written: inside the racy window
    lib = make_library(tmp_path)
    lib.load()
    parse_calls.clear()
    assert not lib.refresh()
    assert not lib.refresh()
    assert parse_calls == []  # re-checked by content digest, not parsed


# --- one skill never stops the others ----------------------------------


def test_deeply_nested_frontmatter_does_not_stop_its_siblings(tmp_path):
    write_skill(tmp_path, "alpha")
    hostile = front("hostile", extra="metadata: " + "[" * 3000 + "]" * 3000) + "\n"
    write_skill(tmp_path, "hostile", hostile + skill_text("hostile").split("---\n", 2)[2])
    write_skill(tmp_path, "zulu")
    lib = make_library(tmp_path)
    lib.load()
    assert [s.name for s in lib.skills()] == ["alpha", "hostile", "zulu"]
    assert lib.get("alpha").ok and lib.get("zulu").ok
    assert codes(lib.get("hostile")) == ["E-YAML"]


def test_parser_exception_becomes_e_internal_on_that_skill(tmp_path, monkeypatch):
    write_skill(tmp_path, "alpha")
    write_skill(tmp_path, "boom")
    real = library_module.parse_skill_bytes

    def parse(data, problem=None, *, path, **kwargs):
        if Path(path).parent.name == "boom":
            raise RecursionError("maximum recursion depth exceeded while getting the repr")
        return real(data, problem, path=path, **kwargs)

    monkeypatch.setattr(library_module, "parse_skill_bytes", parse)
    lib = make_library(tmp_path)
    lib.load()
    assert lib.get("alpha").ok
    boom = lib.get("boom")
    diag = only(boom, "E-INTERNAL")
    assert diag.message == (
        "gibberish could not read this skill: RecursionError: maximum recursion depth "
        "exceeded while getting the repr; please report it."
    )
    assert diag.file == str(tmp_path / "boom" / "SKILL.md")
    assert not boom.ok
    monkeypatch.setattr(library_module, "parse_skill_bytes", real)
    assert lib.load().changed == ("boom",)
    assert lib.get("boom").ok


def test_any_exception_for_one_skill_is_contained(tmp_path, monkeypatch):
    write_skill(tmp_path, "alpha")
    write_skill(tmp_path, "boom")
    real = os.scandir

    def scandir(folder):
        if str(folder).endswith("boom"):
            raise ValueError("bad walk")
        return real(folder)

    monkeypatch.setattr(library_module.os, "scandir", scandir)
    lib = make_library(tmp_path)
    assert lib.load().added == ("alpha", "boom")
    assert lib.get("alpha").ok
    assert "ValueError: bad walk" in only(lib.get("boom"), "E-INTERNAL").message


# --- source_sha256 ---------------------------------------------------------------------


def test_loaded_skill_carries_the_sha256_of_its_file(tmp_path):
    path = write_skill(tmp_path, "demo")
    lib = make_library(tmp_path)
    lib.load()
    assert lib.get("demo").source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    path.write_bytes(path.read_bytes().replace(b"Say hello.", b"Say hi."))
    lib.refresh()
    assert lib.get("demo").source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
