"""The settings dialog's Shortcuts tab: per desktop what works, the pinned tools, and the
desktop's own dialog for the keys (through the portal double on a real dbus-daemon)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QPushButton

from gibberish.settings import Settings
from gibberish.ui.settings.dialog import SettingsDialog
from gibberish.ui.settings.shortcuts_tab import ShortcutStatus
from tests.desktop.portal_double import PortalDouble
from tests.desktop.sessionbus import have_dbus_daemon, session_bus
from tests.ui.conftest import make_controller


def test_pinned_tools_are_edited_and_hostile_names_left_out(qtbot) -> None:
    dialog = SettingsDialog(Settings(pinned_tools=("git.git_status",)))
    qtbot.addWidget(dialog)
    assert dialog.shortcuts.pinned.text() == "git.git_status"
    dialog.shortcuts.pinned.setText(
        "git.git_status, notes.add_note ../etc/passwd a.b.c git.git_status"
    )
    assert dialog.result_settings().pinned_tools == ("git.git_status", "notes.add_note")
    assert "../etc/passwd a.b.c" in dialog.shortcuts.message.text()


def test_without_the_portal_it_shows_this_desktops_steps(qtbot, monkeypatch, engine) -> None:
    monkeypatch.setenv("SWAYSOCK", "/nonexistent/sway.sock")
    ctl = make_controller(engine)
    status = ctl.shortcuts.status()
    assert status.portal is False and "bindsym Ctrl+Alt+v exec" in status.manual
    assert status.manual.rstrip().endswith("gibberish")
    dialog = SettingsDialog(engine.settings, shortcuts=status)
    qtbot.addWidget(dialog)
    summary = dialog.findChild(type(dialog.shortcuts.message), "settings-shortcuts-summary")
    assert "bindsym" not in summary.text()  # no lines to copy unless asked for
    manual = dialog.findChild(type(dialog.shortcuts.message), "settings-shortcuts-manual")
    assert manual.isHidden()
    dialog.findChild(QPushButton, "settings-shortcuts-show-manual").click()
    assert not manual.isHidden() and "bindsym" in manual.text()
    assert "see Settings → Shortcuts" not in summary.text()
    assert dialog.findChild(type(dialog.shortcuts.pinned), "settings-shortcuts-tools") is not None


@pytest.mark.skipif(not have_dbus_daemon(), reason="needs dbus-daemon (package dbus)")
@pytest.mark.parametrize("version", [1, 2])
def test_with_the_portal_it_lists_the_keys_and_opens_the_desktops_dialog(
    qtbot, tmp_path, engine, version
) -> None:
    with session_bus(tmp_path / "bus") as address:
        portal = PortalDouble(address, version=version)
        ctl = make_controller(engine, session_bus=address)
        ctl.start()
        try:
            qtbot.waitUntil(lambda: ctl.shortcuts.portal.bound is not None, timeout=15_000)
            status = ctl.shortcuts.status()
            assert status.portal and status.version == version
            assert status.triggers["listen-hold"] == "Ctrl+Alt+1"
            dialog = SettingsDialog(
                engine.settings, shortcuts=status, change_keys=ctl.shortcuts.change_keys
            )
            qtbot.addWidget(dialog)
            button = dialog.shortcuts.change_keys
            assert button.isEnabled() is (version >= 2)
            if version >= 2:
                button.click()
                assert "ConfigureShortcuts" in portal.calls
                assert "open" in dialog.shortcuts.message.text()
            else:
                assert "keyboard settings" in (ctl.shortcuts.change_keys() or "")
        finally:
            ctl.shutdown()
            portal.close()


def test_a_status_without_keys_yet(qtbot) -> None:
    status = ShortcutStatus(True, 2, {"listen-hold": "", "tool:git.git_status": "Meta+G"})
    dialog = SettingsDialog(Settings(), shortcuts=status, change_keys=lambda: None)
    qtbot.addWidget(dialog)
    summary = dialog.findChild(type(dialog.shortcuts.message), "settings-shortcuts-summary")
    assert "Listen while held: no key yet" in summary.text()
    assert "git.git_status: Meta+G" in summary.text()


def test_pinned_tools_are_ticked_in_a_searchable_list_not_typed(qtbot, engine) -> None:
    from PySide6.QtCore import Qt

    from gibberish.ui.settings.dialog import SettingsDialog

    tools = [(t.ref, t.tool.name, t.tool.description) for t in engine.library.tools()]
    dialog = SettingsDialog(engine.settings, tools=tools)
    qtbot.addWidget(dialog)
    box = dialog.shortcuts
    assert box.pinned.isHidden()  # the ids are kept, never typed
    box.search.setText("echo")
    shown = [box.tool_list.item(r) for r in range(box.tool_list.count())]
    visible = [i for i in shown if not i.isHidden()]
    assert [i.text() for i in visible] == ["Echo text"]  # a title, not hello.echo_text
    visible[0].setCheckState(Qt.CheckState.Checked)
    assert box.pinned_tools() == ("hello.echo_text",)
    visible[0].setCheckState(Qt.CheckState.Unchecked)
    assert box.pinned_tools() == ()
