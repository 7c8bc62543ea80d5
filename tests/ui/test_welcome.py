"""The welcome step in a window taller than it needs (the launcher window without a tray):
its text stays together and the Copy button stays beside the command."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from gibberish.ui.command_bar.welcome import Welcome, key_help


def test_the_welcome_keeps_together_in_a_tall_window(qtbot) -> None:
    welcome = Welcome(key_help("gnome", ["/opt/gibberish/bin/gibberish"]), None, lambda _ref: None)
    qtbot.addWidget(welcome)
    welcome.resize(600, 900)
    welcome.show()
    qtbot.waitExposed(welcome)

    def box(name: str):
        widget = welcome.findChild(QWidget, name)
        assert widget is not None, name
        return widget.geometry()

    title, key, command, copy, start = (
        box(n)
        for n in (
            "welcome-title",
            "welcome-key",
            "welcome-command",
            "welcome-copy",
            "welcome-start",
        )
    )
    assert start.bottom() < welcome.height() / 2  # no gaps spread over the window
    assert command.top() - key.bottom() < 30 and key.top() - title.bottom() < 120
    assert copy.top() < command.bottom() and command.top() < copy.bottom()  # side by side
