"""The Engine's facades: a query that changes nothing, and trust rules for every path."""

from __future__ import annotations

from pathlib import Path

from gibberish.app import Engine, EngineOptions
from gibberish.trust import approved_copies
from gibberish.trust.context import FocusInfo
from gibberish.trust.modes import ModeDetector

SKILL = """---
name: {name}
version: 1.0.0
description: A skill for the facade tests.
---

# {name}

### hello

Say hello.

#### Parameters

None.

#### Command

```bash
echo hello
```
"""


def _skill(folder: Path, name: str) -> Path:
    (folder / name).mkdir(parents=True)
    (folder / name / "SKILL.md").write_text(SKILL.format(name=name))
    return folder / name


class _Focus:
    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd

    def focused(self) -> FocusInfo:
        return FocusInfo(pid=1, app="foot", cwd=self.cwd)


def _engine_focused_on(root: Path, cwd: Path) -> Engine:
    options = EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    return Engine(options, detector=ModeDetector(focus=_Focus(cwd), process_names=lambda: set()))


def test_the_mode_query_does_not_replace_the_library(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    _skill(root, "mine")
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "gibberish.toml").write_text("")
    _skill(project / ".gibberish" / "skills", "theirs")
    engine = _engine_focused_on(root, project / "src")
    assert [s.name for s in engine.library.skills()] == ["mine"]
    library = engine.library.skill_library

    for _ in range(3):  # the tray asks on every menu opening
        context = engine.mode_context()
    assert engine.library.skill_library is library
    assert [s.name for s in engine.library.skills()] == ["mine"]

    assert engine.library.would_follow(context.focus.cwd)
    assert engine.follow_focus(context) is True  # the explicit call
    assert engine.library.skill_library is not library
    assert engine.library.skill_library._cache is not None  # loads through the parse cache
    assert sorted(s.name for s in engine.library.skills()) == ["mine", "theirs"]
    assert engine.follow_focus(context) is False
    assert not engine.library.would_follow(context.focus.cwd)


def test_every_approval_path_keeps_the_copy_and_revoke_and_reset_remove_it(
    root: Path, engine: Engine
) -> None:
    folder = _skill(root, "a")
    other = _skill(root, "b")

    engine.trust.approve_skill_by_name("a")  # the command line's `approvals approve`
    assert approved_copies.approved(folder) == {"SKILL.md": SKILL.format(name="a")}
    engine.trust.approve_prepared(engine.runs.prepare("b.hello"))  # "Trust this version"
    assert approved_copies.approved(other) is not None

    assert engine.trust.revoke("a") is True
    assert approved_copies.approved(folder) is None
    assert approved_copies.approved(other) is not None
    assert engine.trust.revoke("a") is False

    engine.trust.reset()
    assert approved_copies.approved(other) is None
    assert engine.trust.approvals.list() == []


def test_the_context_menu_rules_go_through_the_feed(root: Path, engine: Engine) -> None:
    feed = engine.feed
    feed.toggle_block("style")
    assert feed.session_context == {"style"} and feed.pinned() == []
    feed.pin_session()
    assert feed.session_context == set() and feed.pinned() == ["style"]
    feed.toggle_block("style")  # a pinned block is unpinned, not loaded
    assert feed.session_context == set() and feed.pinned() == []


def test_the_shims_reach_the_same_facades(root: Path, engine: Engine) -> None:
    _skill(root, "a")
    assert engine.library.skills() == engine.library.skills()
    assert engine.library.find_tool("a.hello") == engine.library.find_tool("a.hello")
    assert engine.trust.approvals is engine.trust.approvals
    assert engine.feed.session_context is engine.feed.session_context


def test_the_command_line_and_the_dialog_explain_from_the_prepared_run(
    root: Path, engine: Engine
) -> None:
    from gibberish.cli.run import describe

    _skill(root, "a")
    prepared = engine.runs.prepare("a.hello")
    assert prepared.asks_again == (
        "Once you trust this version, it runs without asking when you start it yourself; "
        "when a model or what was heard starts it, it asks every time. Any change to its "
        "files asks again."
    )
    assert prepared.also_runs and prepared.also_runs[0].endswith("— a program of the system")
    shown = describe(prepared)
    assert prepared.asks_again in shown
    assert all(line in shown for line in prepared.also_runs)
    assert prepared.asks_again is prepared.asks_again  # computed once
