"""The tray menu is kept, not rebuilt: opens reuse every entry, a change replaces only its own."""

from __future__ import annotations

import threading
from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from gibberish.skills.model import Mode
from gibberish.ui.controller import Controller
from gibberish.ui.menu.model import Kind, MenuItem, separator
from gibberish.ui.menu.view import EAGER_ENTRIES, MenuView
from tests.ui.conftest import tool_block, wait_for_result, write_skill


def open_menu(controller: Controller) -> QMenu:
    controller.menu.aboutToShow.emit()
    return controller.menu


def entries(menu: QMenu) -> dict[str, QAction]:
    """Top-level actions by object name (separators included)."""
    return {a.objectName(): a for a in menu.actions()}


def submenu_actions(menu: QMenu, name: str) -> list[QAction]:
    sub = menu.findChild(QMenu, name)
    assert sub is not None, f"no submenu {name!r}"
    sub.aboutToShow.emit()
    return sub.actions()


def same_objects(before: dict[str, QAction], after: dict[str, QAction]) -> set[str]:
    return {name for name, action in after.items() if before.get(name) is action}


def test_opening_twice_keeps_every_action(controller: Controller) -> None:
    menu = open_menu(controller)
    first = entries(menu)
    tools = submenu_actions(menu, "skill:hello")
    made = controller.menu_view.created
    menu = open_menu(controller)
    again = entries(menu)
    assert list(again) == list(first)
    assert same_objects(first, again) == set(first)  # the very same QAction objects
    assert submenu_actions(menu, "skill:hello") == tools
    assert all(a is b for a, b in zip(submenu_actions(menu, "skill:hello"), tools, strict=True))
    assert controller.menu_view.created == made


def test_a_skill_submenu_is_empty_until_it_is_about_to_show(controller: Controller) -> None:
    menu = QMenu()
    view = MenuView(menu)
    view.update(controller.menus.items())
    sub = menu.findChild(QMenu, "skill:kinds")
    assert sub.actions() == []
    sub.aboutToShow.emit()
    assert [a.objectName() for a in sub.actions()] == [
        "tool:kinds.all_types",
        "turn-off-separator:kinds",
        "turn-off:kinds",
    ]
    filled = sub.actions()
    sub.aboutToShow.emit()  # a second show fills nothing again
    assert sub.actions() == filled and sub.actions()[0] is filled[0]


def test_editing_one_skill_replaces_only_its_submenu(
    controller: Controller, skills_dir: Path
) -> None:
    menu = open_menu(controller)
    before = entries(menu)
    kinds_tools = submenu_actions(menu, "skill:kinds")
    submenu_actions(menu, "skill:hello")
    made, removed = controller.menu_view.created, controller.menu_view.removed

    skill_md = skills_dir / "hello" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("Print a friendly greeting.", "Greet."))
    controller.reload()
    after = entries(open_menu(controller))

    assert list(after) == list(before)
    assert same_objects(before, after) == set(before) - {"skill:hello"}
    assert controller.menu_view.created - made == 1
    assert controller.menu_view.removed - removed == 1
    hello = submenu_actions(menu, "skill:hello")
    assert hello[0].toolTip() == "Greet.\nhello.say_hello"
    assert submenu_actions(menu, "skill:kinds")[0] is kinds_tools[0]
    assert len(menu.findChildren(QMenu, "skill:hello")) == 1  # the old one is gone


def test_an_edit_the_menu_does_not_show_keeps_the_submenu(
    controller: Controller, skills_dir: Path
) -> None:
    menu = open_menu(controller)
    before = entries(menu)
    skill_md = skills_dir / "hello" / "SKILL.md"
    skill_md.write_text(skill_md.read_text() + "\nMore prose after the tools.\n")
    old = controller.engine.library.get("hello")
    controller.reload()
    assert controller.engine.library.get("hello") is not old  # the library did change
    assert same_objects(before, entries(open_menu(controller))) == set(before)


def test_a_mode_change_adds_and_removes_only_the_skills_it_concerns(
    controller: Controller, skills_dir: Path
) -> None:
    write_skill(skills_dir, "meet", [tool_block("minutes", "Take minutes.", "echo minutes")])
    skill_md = skills_dir / "meet" / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("---\n", "---\nmodes:\n  - Meeting\n", 1))
    controller.reload()
    before = entries(open_menu(controller))
    assert "skill:meet" not in before
    controller.set_mode(Mode.MEETING)
    after = entries(open_menu(controller))
    assert "skill:meet" in after
    assert same_objects(before, after) == set(before) - {"mode"}  # the mode's text changed


def test_a_finished_run_replaces_only_recent_runs(qtbot, controller: Controller) -> None:
    before = entries(open_menu(controller))
    session = controller.launch("hello.say_hello")
    wait_for_result(qtbot, session)
    after = entries(open_menu(controller))
    assert same_objects(before, after) == set(before) - {"recent"}
    assert after["recent"].isEnabled()


def test_a_diff_keeps_reorders_adds_and_removes_entries() -> None:
    def items(*names: str) -> list[MenuItem]:
        return [
            separator(n) if n.startswith("-") else MenuItem(n, n.upper(), tooltip=n) for n in names
        ]

    menu = QMenu()
    view = MenuView(menu)
    view.update(items("a", "b", "-sep", "c", "d"))
    first = entries(menu)
    view.update(items("d", "b", "e", "-sep", "a"))
    after = entries(menu)
    assert [a.objectName() for a in menu.actions()] == ["d", "b", "e", "-sep", "a"]
    assert same_objects(first, after) == {"a", "b", "d", "-sep"}
    assert menu.findChild(QAction, "c") is None  # removed and unparented
    assert after["-sep"].isSeparator()


def test_many_new_entries_are_made_on_idle_turns_in_order(qtbot) -> None:
    names = [f"skill:s{i:03d}" for i in range(EAGER_ENTRIES + 150)]
    items = [MenuItem("head", "Head")] + [
        MenuItem(n, n, kind=Kind.MENU, children=lambda: [], key=n) for n in names
    ]
    items.append(MenuItem("quit", "Quit"))
    menu = QMenu()
    view = MenuView(menu)
    view.update([items[0], items[-1]])  # the menu before the skills loaded
    view.update(items, budget_s=0.0)
    made_now = [a.objectName() for a in menu.actions()]
    assert made_now == ["head", *names[:EAGER_ENTRIES], "quit"]  # the rest wait for idle...
    assert view.filling
    qtbot.waitUntil(lambda: not view.filling)
    assert [a.objectName() for a in menu.actions()] == [i.name for i in items]  # ...in place
    view.update(items)  # an open: nothing left to make
    assert view.created == len(items)


def test_an_open_makes_every_entry_at_once() -> None:
    items = [MenuItem(f"e{i}", f"E{i}") for i in range(EAGER_ENTRIES * 2)]
    menu = QMenu()
    MenuView(menu).update(items)
    assert len(menu.actions()) == len(items)


def test_reload_runs_off_the_gui_thread_and_applies_on_it(
    qtbot, controller: Controller, skills_dir: Path, monkeypatch
) -> None:
    gui = threading.get_ident()
    seen: dict[str, int] = {}
    engine = controller.engine
    reload = engine.library.reload

    def recording_reload():
        seen["reload"] = threading.get_ident()
        return reload()

    apply = controller.watcher.apply

    def recording_apply(paths):
        seen["apply"] = threading.get_ident()
        return apply(paths)

    monkeypatch.setattr(engine.library, "reload", recording_reload)
    monkeypatch.setattr(controller.watcher, "apply", recording_apply)
    write_skill(skills_dir, "fresh", [tool_block("ping", "Say pong.", "echo pong")])
    with qtbot.waitSignal(controller.reloader.done, timeout=5000) as done:
        controller.reload_in_background()
    assert seen["reload"] != gui
    assert done.args[0].thread != gui  # the watch list was made there too
    assert seen["apply"] == gui
    assert str(skills_dir / "fresh" / "SKILL.md") in controller.watcher.watched()
    assert "skill:fresh" in entries(controller.menu)  # applied before any open


def test_reload_requests_during_a_reload_become_one_more(
    qtbot, controller: Controller, monkeypatch
) -> None:
    engine = controller.engine
    reload = engine.library.reload
    gate = threading.Event()
    calls: list[int] = []

    def slow_reload():
        calls.append(1)
        gate.wait(5)
        return reload()

    monkeypatch.setattr(engine.library, "reload", slow_reload)
    controller.reload_in_background()
    qtbot.waitUntil(lambda: len(calls) == 1)
    for _ in range(3):
        controller.reload_in_background()
    gate.set()
    qtbot.waitUntil(lambda: len(calls) == 2 and not controller.reloader.busy)
    with qtbot.assertNotEmitted(controller.reloader.done, wait=200):
        pass
    assert len(calls) == 2


def test_a_failing_background_reload_is_reported_and_the_next_one_works(
    qtbot, controller: Controller, skills_dir: Path, monkeypatch
) -> None:
    reported: list[BaseException] = []
    monkeypatch.setattr(
        "gibberish.ui.errors.report_exception", lambda exc, where="": reported.append(exc)
    )
    engine = controller.engine
    reload = engine.library.reload

    def broken():
        raise OSError("disk on fire")

    monkeypatch.setattr(engine.library, "reload", broken)
    with qtbot.waitSignal(controller.reloader.done, timeout=5000):
        controller.reload_in_background()
    assert [str(e) for e in reported] == ["disk on fire"]
    monkeypatch.setattr(engine.library, "reload", reload)
    write_skill(skills_dir, "fresh", [tool_block("ping", "Say pong.", "echo pong")])
    with qtbot.waitSignal(controller.reloader.done, timeout=5000):
        controller.reload_in_background()
    assert "skill:fresh" in entries(open_menu(controller))


def test_a_long_watch_list_is_added_a_batch_per_turn(qtbot, tmp_path: Path) -> None:
    from gibberish.ui.watcher import ADD_BATCH, SkillsWatcher

    for i in range(ADD_BATCH + 50):
        (tmp_path / f"s{i:03d}").mkdir()
    wanted = {str(tmp_path / f"s{i:03d}") for i in range(ADD_BATCH + 50)}
    watcher = SkillsWatcher()
    try:
        watcher.apply(wanted)
        assert len(watcher.watched()) == ADD_BATCH and watcher.adding
        qtbot.waitUntil(lambda: watcher.watched() == wanted)
        watcher.apply(wanted - {str(tmp_path / "s000")})  # and stale ones go at once
        assert str(tmp_path / "s000") not in watcher.watched()
    finally:
        watcher.stop()


def test_the_menu_cache_follows_a_reload_off_the_gui_thread_and_its_writer_ends(
    qtbot, controller: Controller, skills_dir: Path
) -> None:
    from gibberish.ui.menu import cache as menu_cache

    def cached_names() -> list[str]:
        loaded = menu_cache.load()
        return [s.name for s in loaded[0].skills()] if loaded else []

    def writer_alive() -> bool:
        return any(t.name == "gibberish-menu-cache" for t in threading.enumerate())

    open_menu(controller)
    assert "hello" in cached_names()  # the first write is made at once
    write_skill(skills_dir, "fresh", [tool_block("ping", "Say pong.", "echo pong")])
    controller.reload()
    assert "fresh" not in cached_names() and writer_alive()  # written a moment later
    qtbot.waitUntil(lambda: "fresh" in cached_names(), timeout=5000)
    qtbot.waitUntil(lambda: not writer_alive(), timeout=5000)
