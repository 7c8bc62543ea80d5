"""The tray menu and the launcher window: entries by object name, each one triggered."""

from __future__ import annotations

import shutil
from pathlib import Path

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QMenu

from gibberish.skills.model import Mode
from gibberish.ui.controller import Controller
from gibberish.ui.menu.view import MenuView
from tests.ui.conftest import (
    FakeApprovals,
    FakeForms,
    make_controller,
    wait_for_result,
    write_skill,
)

TOP_LEVEL = [
    "mode",
    "ask",
    "listen",
    "skill:hello",
    "skill:kinds",
    "skill:slow",
    "context",
    "problems",
    "recent",
    "open-skills-folder",
    "reload-skills",
    "install-skill",
    "export-plugin",
    "approvals",
    "settings",
    "quit",
]


def open_menu(controller: Controller) -> QMenu:
    controller.menu.aboutToShow.emit()
    return controller.menu


def action(menu: QMenu, name: str) -> QAction:
    found = menu.findChild(QAction, name)
    assert found is not None, f"no action {name!r}"
    return found


def open_submenu(menu: QMenu, name: str) -> QMenu:
    sub = menu.findChild(QMenu, name)
    assert sub is not None, f"no submenu {name!r}"
    sub.aboutToShow.emit()
    return sub


def test_top_level_entries_have_object_names(controller: Controller) -> None:
    menu = open_menu(controller)
    names = [a.objectName() for a in menu.actions() if not a.isSeparator()]
    assert names == TOP_LEVEL
    assert all(a.objectName() for a in menu.actions())


def test_skill_submenu_is_lazy_and_lists_tools_with_tooltips(controller: Controller) -> None:
    fresh = QMenu()
    MenuView(fresh).update(controller.menus.items())
    sub = fresh.findChild(QMenu, "skill:hello")
    assert sub.actions() == []  # not built until it is about to show (or an idle turn)
    sub.aboutToShow.emit()
    assert [a.objectName() for a in sub.actions()] == [
        "tool:hello.say_hello",
        "tool:hello.echo_text",
        "turn-off-separator:hello",
        "turn-off:hello",
    ]

    menu = open_menu(controller)
    skill = action(menu, "skill:hello")
    assert "Say hello" in skill.toolTip()
    assert not skill.icon().isNull()  # the trust badge
    sub = menu.findChild(QMenu, "skill:hello")
    open_submenu(menu, "skill:hello")
    tools = [a.objectName() for a in sub.actions()]
    assert tools == [
        "tool:hello.say_hello",
        "tool:hello.echo_text",
        "turn-off-separator:hello",
        "turn-off:hello",
    ]
    assert (
        action(menu, "tool:hello.echo_text").toolTip()
        == "Print the text you give it.\nhello.echo_text"
    )
    assert action(menu, "tool:hello.echo_text").text() == "Echo text"


def test_lazy_submenus_fill_on_idle_for_exported_menus(qtbot, controller: Controller) -> None:
    menu = open_menu(controller)
    sub = menu.findChild(QMenu, "skill:kinds")
    qtbot.waitUntil(lambda: len(sub.actions()) == 3)  # the tool, a line, *Turn off*


def test_triggering_a_tool_runs_it_and_shows_the_output(
    qtbot, controller: Controller, approvals
) -> None:
    menu = open_menu(controller)
    open_submenu(menu, "skill:hello")
    action(menu, "tool:hello.say_hello").trigger()
    (session,) = controller.runs.sessions.values()
    wait_for_result(qtbot, session)
    assert session.window.status == "succeeded"
    assert session.window.output_text().strip() == "hello from gibberish"
    # A read-only user skill that was never approved still asks first (first run).
    assert len(approvals.seen) == 1


def test_mode_radio_items_switch_the_mode(controller: Controller) -> None:
    menu = open_menu(controller)
    open_submenu(menu, "mode")
    assert action(menu, "mode-auto").isChecked()
    action(menu, "mode-dev").trigger()
    assert controller.engine.settings.auto_mode is False
    assert controller.engine.mode_context().mode is Mode.DEV
    menu = open_menu(controller)
    assert menu.findChild(QAction, "mode").text() == "Mode: Dev (manual)"
    open_submenu(menu, "mode")
    assert action(menu, "mode-dev").isChecked()
    action(menu, "mode-auto").trigger()
    assert controller.engine.settings.auto_mode is True


def test_skills_of_other_modes_are_hidden(tmp_path: Path, controller: Controller) -> None:
    skills = Path(controller.engine.options.extra_skills_dirs[0])
    write_skill(
        skills,
        "meet",
        [_echo_tool("minutes")],
        extra="modes: [Meeting]",
    )
    controller.reload()
    names = [a.objectName() for a in open_menu(controller).actions()]
    assert "skill:meet" not in names
    controller.set_mode(Mode.MEETING)
    names = [a.objectName() for a in open_menu(controller).actions()]
    assert "skill:meet" in names


def _echo_tool(name: str) -> str:
    from tests.ui.conftest import tool_block

    return tool_block(name, f"Tool {name}.", f"echo {name}")


def test_problems_lists_broken_skills_with_their_first_diagnostic(controller: Controller) -> None:
    skills = Path(controller.engine.options.extra_skills_dirs[0])
    broken = skills / "broken"
    broken.mkdir()
    (broken / "SKILL.md").write_text("---\nname: broken\n---\n\nno tools\n", encoding="utf-8")
    controller.reload()
    menu = open_menu(controller)
    problems = action(menu, "problems")
    assert problems.text() == "⚠ 1 skill has a problem"
    assert problems.isEnabled()
    open_submenu(menu, "problems")
    entry = action(menu, "problem:broken")
    assert entry.text().startswith("broken: ")
    entry.trigger()
    box = controller.dialogs.open["problem"]
    assert "broken" in box.windowTitle()


def test_recent_runs_lists_finished_runs_and_reopens_them(qtbot, controller: Controller) -> None:
    menu = open_menu(controller)
    assert not action(menu, "recent").isEnabled()
    session = controller.launch("hello.say_hello")
    wait_for_result(qtbot, session)
    menu = open_menu(controller)
    open_submenu(menu, "recent")
    entry = action(menu, "recent:0")
    assert entry.text().startswith("✓ Say hello — finished, ")  # the title, in words
    assert "hello.say_hello" not in entry.text()
    assert "hello.say_hello" in entry.toolTip()  # the id, for whoever looks for it
    entry.trigger()
    (window,) = controller.runs.windows
    assert "hello from gibberish" in window.output_text()


def test_system_actions(
    qtbot, controller: Controller, opened_urls, notifications, monkeypatch
) -> None:
    menu = open_menu(controller)
    action(menu, "open-skills-folder").trigger()
    (url,) = opened_urls
    assert url.toLocalFile().endswith("gibberish/skills")
    assert Path(url.toLocalFile()).is_dir()

    action(menu, "reload-skills").trigger()  # reloads on a worker thread
    qtbot.waitUntil(lambda: bool(notifications) and notifications[-1][0] == "Skills reloaded")

    action(menu, "approvals").trigger()
    assert controller.dialogs.open["approvals"].objectName() == "approvals-dialog"
    action(menu, "settings").trigger()
    assert controller.dialogs.open["settings"].objectName() == "settings-dialog"

    action(menu, "ask").trigger()
    assert controller.text.command_bar is not None and controller.text.command_bar.isVisible()

    quits = []
    monkeypatch.setattr("PySide6.QtWidgets.QApplication.quit", lambda *_: quits.append(True))
    action(menu, "quit").trigger()
    assert quits == [True]


def test_skill_deleted_while_the_menu_is_open(qtbot, controller: Controller) -> None:
    menu = open_menu(controller)
    open_submenu(menu, "skill:hello")
    tool = action(menu, "tool:hello.say_hello")
    shutil.rmtree(Path(controller.engine.options.extra_skills_dirs[0]) / "hello")
    tool.trigger()  # must not raise, must not run anything
    assert controller.runs.sessions == {}
    (window,) = controller.runs.windows
    assert window.status == "failed"
    assert "removed" in window._error.text()
    names = [a.objectName() for a in open_menu(controller).actions()]
    assert "skill:hello" not in names and "skill:kinds" in names


def test_launcher_window_has_the_same_content(qtbot, engine) -> None:
    ctl = make_controller(
        engine,
        tray=False,
        approvals=FakeApprovals(),
        forms=FakeForms({"text": "from the launcher"}),
    )
    ctl.start()
    try:
        launcher = ctl.surface.launcher
        assert launcher is not None and launcher.isVisible()
        assert "no system tray" in launcher.reason_label.text()
        names = launcher.names()
        for name in TOP_LEVEL:
            assert name in names
        assert "tool:hello.echo_text" in names and "mode-dev" in names
        assert launcher.trigger("tool:hello.echo_text")
        (session,) = ctl.runs.sessions.values()
        wait_for_result(qtbot, session)
        assert session.window.output_text().strip() == "from the launcher"
        assert launcher.trigger("mode-writer")
        assert ctl.engine.settings.mode == "Writer"
        assert not launcher.trigger("no-such-entry")
    finally:
        ctl.shutdown()


def test_no_tray_flag_forces_the_launcher(qtbot, engine) -> None:
    ctl = Controller(engine, tray_available=True)
    ctl.start(no_tray=True)
    try:
        assert ctl.surface.launcher is not None and ctl.surface.tray is None
        launcher = ctl.surface.launcher
        assert not launcher.reason_row.isVisibleTo(launcher)  # asked for: nothing to explain
        assert ctl.text.bar() is launcher.bar  # the launcher window is the one window
    finally:
        ctl.shutdown()


def test_launcher_lists_a_finished_run_under_recent_runs(qtbot, engine) -> None:
    ctl = make_controller(engine, tray=False, approvals=FakeApprovals())
    ctl.start()
    try:
        assert "recent:0" not in ctl.surface.launcher.names()
        session = ctl.launch("hello.say_hello")
        wait_for_result(qtbot, session)
        assert "recent:0" in ctl.surface.launcher.names()
        assert ctl.surface.launcher.trigger("recent:0")
        assert "hello from gibberish" in ctl.runs.windows[-1].output_text()
    finally:
        ctl.shutdown()
