"""The parse cache: a second library reads only what changed, and a bad cache costs a parse.

Each test builds a library, lets it save its cache, and then builds a *new* library over
the same folders, as the next process would. ``Counter`` wraps the parser's two entry
points the library calls, so a test states how many SKILL.md files were read and parsed.
"""

from __future__ import annotations

import io
import logging
import os
import pickle
import shutil
import time
from pathlib import Path

import pytest

from gibberish import __version__
from gibberish.skills import cache as cache_module
from gibberish.skills import library as library_module
from gibberish.skills.cache import ParseCache
from gibberish.skills.library import SkillLibrary, SkillSource
from gibberish.skills.model import Trust
from tests.skills.fixtures.skillkit import cached_library, make_skill, tool_block

NAMES = ("alpha", "beta", "gamma")


class Counter:
    """Counts the SKILL.md files read and parsed by every library in the test."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.reads: list[str] = []
        self.parses: list[str] = []
        read, parse = library_module.read_skill_bytes, library_module.parse_skill_bytes

        def counted_read(path, *args, **kwargs):
            self.reads.append(Path(path).parent.name)
            return read(path, *args, **kwargs)

        def counted_parse(*args, **kwargs):
            self.parses.append(kwargs["expected_name"])
            return parse(*args, **kwargs)

        monkeypatch.setattr(library_module, "read_skill_bytes", counted_read)
        monkeypatch.setattr(library_module, "parse_skill_bytes", counted_parse)

    def reset(self) -> None:
        self.reads.clear()
        self.parses.clear()


@pytest.fixture
def counter(monkeypatch: pytest.MonkeyPatch) -> Counter:
    return Counter(monkeypatch)


RACY = {"window_ns": library_module.RACY_WINDOW_NS}
"""The racy window the libraries of a test are built with (``settled`` makes it 0)."""


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files count as settled at once (no 2 s racy window), so a warm start reads nothing."""
    monkeypatch.setitem(RACY, "window_ns", 0)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "skills"
    for name in NAMES:
        make_skill(folder, name, tools=[tool_block(f"{name}_tool", "Do it.", f"echo {name}")])
    return folder


def new_library(root: Path) -> SkillLibrary:
    """A library over ``root`` as a new process would build it (its cache file on disk)."""
    return cached_library(root, racy_window_ns=RACY["window_ns"])


def commands(library: SkillLibrary) -> dict[str, str]:
    return {s.name: " ".join(s.tools[0].command.source.split()) for s in library.skills()}


def rewrite(root: Path, name: str, command: str) -> None:
    make_skill(root, name, tools=[tool_block(f"{name}_tool", "Do it.", command)])


def test_a_warm_start_reads_and_parses_nothing(root, counter, settled) -> None:
    first = new_library(root)
    assert sorted(counter.parses) == sorted(NAMES)
    assert ParseCache.for_sources(first.sources, first.profile).path.is_file()
    counter.reset()
    second = new_library(root)
    assert counter.reads == [] and counter.parses == []
    assert second.skills() == first.skills()
    assert commands(second) == {n: f"echo {n}" for n in NAMES}


def test_racy_files_are_read_again_but_not_parsed(root, counter) -> None:
    new_library(root)  # just written: every file is within the racy window
    counter.reset()
    new_library(root)
    assert sorted(counter.reads) == sorted(NAMES) and counter.parses == []


def test_an_edit_is_parsed_and_only_it(root, counter, settled) -> None:
    new_library(root)
    rewrite(root, "beta", "echo BETA")  # same size: only the stat tells
    counter.reset()
    second = new_library(root)
    assert counter.parses == ["beta"]
    assert commands(second)["beta"] == "echo BETA"


def test_an_edit_with_the_mtime_put_back_is_still_seen(root, counter, settled) -> None:
    new_library(root)
    skill_md = root / "gamma" / "SKILL.md"
    before = skill_md.stat()
    rewrite(root, "gamma", "echo GAMMA")
    os.utime(skill_md, ns=(before.st_atime_ns, before.st_mtime_ns))  # mtime goes backwards
    counter.reset()
    second = new_library(root)
    assert counter.parses == ["gamma"]
    assert commands(second)["gamma"] == "echo GAMMA"


def test_a_clock_behind_the_files_rereads_them_by_content(root, counter, settled) -> None:
    future = time.time_ns() + 3600 * 10**9
    for name in NAMES:
        os.utime(root / name / "SKILL.md", ns=(future, future))
    new_library(root)
    counter.reset()
    RACY["window_ns"] = library_module.RACY_WINDOW_NS  # the real window (monkeypatch restores it)
    second = new_library(root)
    assert sorted(counter.reads) == sorted(NAMES) and counter.parses == []
    assert commands(second) == {n: f"echo {n}" for n in NAMES}


def test_a_touch_without_change_keeps_the_same_skill(root, counter, settled) -> None:
    first = new_library(root)
    os.utime(root / "alpha" / "SKILL.md")
    counter.reset()
    second = new_library(root)
    assert counter.parses == ["alpha"]
    assert second.skills() == first.skills()


def test_a_deleted_skill_is_gone_and_leaves_the_cache(root, counter, settled) -> None:
    new_library(root)
    shutil.rmtree(root / "alpha")
    counter.reset()
    second = new_library(root)
    assert [s.name for s in second.skills()] == ["beta", "gamma"] and counter.parses == []
    cache = ParseCache.for_sources(second.sources, second.profile)
    cache.get(str(root / "beta"), time.time_ns(), 0)
    assert cache._entries is not None and str(root / "alpha") not in cache._entries


def test_a_renamed_skill_is_parsed_under_its_new_name(root, counter, settled) -> None:
    new_library(root)
    (root / "alpha").rename(root / "delta")
    rewrite(root, "delta", "echo alpha")  # its name must follow the folder's
    counter.reset()
    second = new_library(root)
    assert counter.parses == ["delta"]
    assert sorted(commands(second)) == ["beta", "delta", "gamma"]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda path: path.write_bytes(b"not a pickle at all"), id="garbage"),
        pytest.param(lambda path: path.write_bytes(path.read_bytes()[:200]), id="truncated"),
        pytest.param(lambda path: path.write_bytes(b""), id="empty"),
        pytest.param(lambda path: path.write_bytes(pickle.dumps({"x": 1})), id="wrong-shape"),
    ],
)
def test_a_corrupted_cache_is_rebuilt_with_a_log_line(
    root, counter, settled, caplog, damage
) -> None:
    first = new_library(root)
    path = ParseCache.for_sources(first.sources, first.profile).path
    damage(path)
    counter.reset()
    with caplog.at_level(logging.WARNING, logger="gibberish.skills.cache"):
        second = new_library(root)
    assert sorted(counter.parses) == sorted(NAMES)
    assert second.skills() == first.skills()
    assert any(
        str(path) in r.getMessage() and "rebuilding" in r.getMessage() for r in caplog.records
    )
    counter.reset()
    new_library(root)
    assert counter.parses == []  # rebuilt


def test_a_cache_written_by_another_version_is_ignored(
    root, counter, settled, monkeypatch, caplog
) -> None:
    monkeypatch.setattr(cache_module, "__version__", "0.0.0-other")
    new_library(root)
    monkeypatch.setattr(cache_module, "__version__", __version__)
    counter.reset()
    with caplog.at_level(logging.INFO, logger="gibberish.skills.cache"):
        new_library(root)
    assert sorted(counter.parses) == sorted(NAMES)
    assert any("other code" in r.getMessage() for r in caplog.records)


def test_a_deleted_cache_is_simply_rebuilt(root, counter, settled) -> None:
    first = new_library(root)
    ParseCache.for_sources(first.sources, first.profile).path.unlink()
    counter.reset()
    assert new_library(root).skills() == first.skills()
    assert sorted(counter.parses) == sorted(NAMES)


class _Payload:
    def __reduce__(self):
        return (os.mkdir, (self.target,))

    def __init__(self, target: str) -> None:
        self.target = target


def test_a_cache_that_would_run_code_is_refused(root, counter, settled, tmp_path, caplog) -> None:
    first = new_library(root)
    path = ParseCache.for_sources(first.sources, first.profile).path
    marker = tmp_path / "pwned"
    path.write_bytes(pickle.dumps((cache_module.code_stamp(), {"x": _Payload(str(marker))})))
    counter.reset()
    with caplog.at_level(logging.WARNING, logger="gibberish.skills.cache"):
        second = new_library(root)
    assert not marker.exists()
    assert second.skills() == first.skills() and sorted(counter.parses) == sorted(NAMES)
    assert any("not part of a parsed skill" in r.getMessage() for r in caplog.records)


def test_a_cache_others_can_write_is_not_read(root, counter, settled) -> None:
    first = new_library(root)
    path = ParseCache.for_sources(first.sources, first.profile).path
    assert path.stat().st_mode & 0o077 == 0 and path.parent.stat().st_mode & 0o077 == 0
    path.chmod(0o666)
    counter.reset()
    new_library(root)
    assert sorted(counter.parses) == sorted(NAMES)


def test_each_set_of_sources_has_its_own_cache(root, tmp_path) -> None:
    user = [SkillSource(root, Trust.USER)]
    both = [*user, SkillSource(tmp_path / "more", Trust.USER)]
    profile = library_module.Profile.GIBBERISH
    assert ParseCache.for_sources(user, profile).path != ParseCache.for_sources(both, profile).path


def test_a_refresh_never_writes_the_cache(root, settled) -> None:
    library = new_library(root)
    path = ParseCache.for_sources(library.sources, library.profile).path
    before = path.stat().st_mtime_ns, path.stat().st_ino
    rewrite(root, "alpha", "echo ALPHA")
    assert library.refresh().changed == ("alpha",)
    assert (path.stat().st_mtime_ns, path.stat().st_ino) == before


def test_the_bundled_skills_come_back_from_the_cache_equal(settled) -> None:
    """Every model class the bundled skills use is restored field for field."""
    from tests.conftest import BUNDLED_SKILLS

    parsed = new_library(BUNDLED_SKILLS).skills()
    cached = new_library(BUNDLED_SKILLS).skills()
    assert [s.name for s in cached] == [s.name for s in parsed] and parsed
    for fresh, restored in zip(parsed, cached, strict=True):
        assert restored == fresh and restored is not fresh


def test_a_saved_object_with_a_field_missing_rebuilds_the_cache(
    root, counter, settled, caplog
) -> None:
    first = new_library(root)
    path = ParseCache.for_sources(first.sources, first.profile).path
    stored = ParseCache(path)._read()
    assert stored
    skill_class = type(first.skills()[0])  # (tools are stored by stored_tool.py)
    whole = skill_class.__reduce__
    try:
        skill_class.__reduce__ = lambda self: (type(self), whole(self)[1][:-1])
        path.unlink()
        assert ParseCache(path).save(stored)
    finally:
        skill_class.__reduce__ = whole
    counter.reset()
    with caplog.at_level(logging.WARNING, logger="gibberish.skills.cache"):
        second = new_library(root)
    assert sorted(counter.parses) == sorted(NAMES)
    assert commands(second) == commands(first)
    assert "unreadable" in caplog.text


def _getattr_pickle(name: str) -> bytes:
    """``getattr(Trust, name)``: how Python 3.11.2 pickles an enum member, or a crafted cache."""
    raw = name.encode()
    return (
        b"\x80\x02cbuiltins\ngetattr\ncgibberish.skills.model\nTrust\nX"
        + len(raw).to_bytes(4, "little")
        + raw
        + b"\x86R."
    )


def test_a_cache_reaches_enum_members_through_getattr_and_nothing_else() -> None:
    from gibberish.skills.cache import _ModelUnpickler

    assert _ModelUnpickler(io.BytesIO(_getattr_pickle("USER"))).load() is Trust.USER
    for name in ("__class__", "__init__", "__members__", "_missing_", "mro", "user"):
        with pytest.raises(pickle.UnpicklingError):
            _ModelUnpickler(io.BytesIO(_getattr_pickle(name))).load()
