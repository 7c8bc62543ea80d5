"""Each menu runs its actions' triggers through one connection, exactly once per trigger.

``QMenu.triggered`` is emitted by the menu holding the action and again by every menu
above it; the menu's dispatcher must run the trigger once, whether the action is
triggered from code, clicked, chosen with the keyboard, in the top menu, a skill submenu
or a submenu of a submenu, and after entries were replaced by a diff.
"""

from __future__ import annotations

from collections import Counter

import pytest
from PySide6.QtCore import SIGNAL, Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QMenu

from gibberish.ui.menu.model import Kind, MenuItem, populate_qmenu
from gibberish.ui.menu.view import MenuView

pytestmark = pytest.mark.usefixtures("qapp")


def _items(ran: Counter, version: int = 1) -> list[MenuItem]:
    def action(name: str) -> MenuItem:
        return MenuItem(name, name.title(), trigger=lambda: ran.update([name]))

    nested = MenuItem("inner", "Inner", kind=Kind.MENU, children=[action("tool:deep")], key=1)
    return [
        action("top"),
        MenuItem(
            "skill:one",
            f"One {version}",
            kind=Kind.MENU,
            children=lambda: [action("tool:one.a"), action("tool:one.b"), nested],
            key=version,
        ),
    ]


def _find(menu: QMenu, name: str):
    for action in menu.findChildren(type(menu.menuAction())):
        if action.objectName() == name:
            return action
    raise AssertionError(f"no action {name!r}")


def _filled_view(ran: Counter) -> tuple[QMenu, MenuView]:
    menu = QMenu()
    view = MenuView(menu)
    view.update(_items(ran))
    sub = menu.findChild(QMenu, "skill:one")
    sub.aboutToShow.emit()
    menu.findChild(QMenu, "inner").aboutToShow.emit()
    return menu, view


def test_each_trigger_from_code_runs_once_at_every_depth() -> None:
    ran: Counter = Counter()
    menu, _view = _filled_view(ran)
    for name in ("top", "tool:one.a", "tool:one.b", "tool:deep"):
        _find(menu, name).trigger()
    assert ran == Counter({"top": 1, "tool:one.a": 1, "tool:one.b": 1, "tool:deep": 1})


def test_a_click_and_the_keyboard_run_a_tool_once() -> None:
    ran: Counter = Counter()
    menu, _view = _filled_view(ran)
    sub = menu.findChild(QMenu, "skill:one")
    target = _find(menu, "tool:one.b")
    sub.popup(menu.pos())
    QTest.qWaitForWindowExposed(sub)
    QTest.mouseClick(sub, Qt.MouseButton.LeftButton, pos=sub.actionGeometry(target).center())
    assert ran == Counter({"tool:one.b": 1})
    sub.popup(menu.pos())
    QTest.qWaitForWindowExposed(sub)
    sub.setActiveAction(_find(menu, "tool:one.a"))
    QTest.keyClick(sub, Qt.Key.Key_Return)
    assert ran == Counter({"tool:one.b": 1, "tool:one.a": 1})
    sub.hide()


def test_a_replaced_submenu_runs_its_new_triggers_once() -> None:
    ran: Counter = Counter()
    menu, view = _filled_view(ran)
    view.update(_items(ran, version=2))  # another key: the submenu is made again
    sub = menu.findChild(QMenu, "skill:one")
    assert sub.title() == "One 2"
    sub.aboutToShow.emit()
    _find(sub, "tool:one.a").trigger()
    assert ran == Counter({"tool:one.a": 1})


def test_no_action_has_a_connection_of_its_own() -> None:
    """Only the menu's own (Qt's) receiver listens to a tool's ``triggered``."""
    ran: Counter = Counter()
    menu, _view = _filled_view(ran)
    for name in ("top", "tool:one.a", "tool:deep"):
        assert _find(menu, name).receivers(SIGNAL("triggered(bool)")) == 1


def test_a_menu_populated_directly_dispatches_too() -> None:
    ran: Counter = Counter()
    menu = QMenu()
    populate_qmenu(menu, _items(ran), lazy=False)
    populate_qmenu(menu, _items(ran), lazy=False)  # again: still one connection
    _find(menu, "top").trigger()
    _find(menu, "tool:deep").trigger()
    assert ran == Counter({"top": 1, "tool:deep": 1})


def test_a_filled_submenu_lets_go_of_what_it_was_made_from() -> None:
    """The menu drawn from the menu cache before the load keeps its filled submenus when
    the loaded skills show the same; the stand-in skills they were made from must go."""
    import gc
    import weakref

    class StandIn:
        """What a lazy submenu's children are made from (a stand-in skill)."""

    stand_in = StandIn()
    gone = weakref.ref(stand_in)

    def item(source: object) -> MenuItem:
        children = lambda source=source: [MenuItem("tool:x.y", "Y", trigger=lambda: None)]  # noqa: E731
        return MenuItem("skill:x", "X", kind=Kind.MENU, children=children, key="same")

    menu = QMenu()
    view = MenuView(menu)
    view.update([item(stand_in)])
    menu.findChild(QMenu, "skill:x").aboutToShow.emit()
    view.update([item(object())])  # the loaded skill: an equal entry, kept
    del stand_in
    gc.collect()
    assert gone() is None
    assert [a.objectName() for a in menu.findChild(QMenu, "skill:x").actions()] == ["tool:x.y"]


def test_the_menu_cache_is_rewritten_only_when_it_changes(tmp_path) -> None:
    """What the process keeps to compare is a digest; equal snapshots are not rewritten,
    a changed one is, and a file deleted meanwhile is written again."""
    from types import SimpleNamespace

    from gibberish.ui.menu import cache as menu_cache

    def engine(description: str) -> SimpleNamespace:
        skill = SimpleNamespace(
            name="one",
            directory=tmp_path / "one",
            description=description,
            trust="user",
            modes=["Global"],
            ok=True,
            tools=[SimpleNamespace(name="go", description="Go.")],
        )
        library = SimpleNamespace(skills=lambda: [skill], problems=lambda: [])
        return SimpleNamespace(library=library, skills=library.skills, problems=library.problems)

    context = SimpleNamespace(mode="Global", automatic=True)
    path = tmp_path / "menu.cache"
    assert menu_cache.save(engine("first"), context, path)
    assert not menu_cache.save(engine("first"), context, path)
    assert menu_cache._last_written[path][0] > 0  # a length and a hash, not the snapshot
    assert not any(isinstance(v, bytes) for v in menu_cache._last_written[path])
    assert menu_cache.save(engine("second"), context, path)
    library, _context = menu_cache.load(path)
    assert [s.description for s in library.skills()] == ["second"]
    assert not menu_cache.save(engine("second"), context, path)  # load remembered it
    path.unlink()
    assert menu_cache.save(engine("second"), context, path)


def test_a_kept_entry_holds_the_texts_of_the_new_item_not_the_old(qtbot) -> None:
    """An entry kept because the new item shows the same keeps the new item's signature:
    the old one's strings (the menu cache's stand-in skills) are let go."""
    import gc
    import weakref

    class Text(str):
        """A string a weak reference can follow."""

    old_text = Text("A tool that does something")
    gone = weakref.ref(old_text)

    def item(text: str) -> MenuItem:
        return MenuItem("skill:x", "X", kind=Kind.MENU, children=lambda: [], key=("x", text))

    menu = QMenu()
    view = MenuView(menu)
    view.update([item(old_text)])
    kept = view.action("skill:x")
    view.update([item("".join(["A tool that does ", "something"]))])
    assert view.action("skill:x") is kept
    qtbot.waitUntil(lambda: not view.filling)  # the idle fill, which lets its item go
    del old_text
    gc.collect()
    assert gone() is None
