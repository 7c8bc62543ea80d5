"""The settings dialog's *Shortcuts* tab: what works on this desktop and how to set it up.

With the desktop portal it lists the shortcuts and the keys the desktop gave them, and
*Change keys…* opens the desktop's own dialog (portal version 2+). Without it, it shows
the exact steps to bind ``gibberish listen`` by hand on this desktop (press only: no hold
to talk). Either way the pinned tools — one shortcut each, through the portal — are
edited here as ``skill.tool`` names.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from PySide6.QtWidgets import QGroupBox, QLabel, QLineEdit, QPushButton, QVBoxLayout

from gibberish.settings import is_tool_ref
from gibberish.ui.widgets import help_label

TOOLS_HELP = (
    "Tools that get a global shortcut each, as skill.tool separated by spaces (for example "
    "git.git_status). Through the desktop portal only; the desktop asks for the keys."
)


@dataclass(frozen=True)
class ShortcutStatus:
    """What the tray knows about its global shortcuts when the dialog opens."""

    portal: bool
    """Bound through the GlobalShortcuts portal."""
    version: int = 0
    triggers: dict[str, str] = field(default_factory=dict)
    """Shortcut id → the keys the desktop shows for it."""
    manual: str = ""
    """Without the portal: the steps to bind ``gibberish listen`` by hand here."""
    problem: str = ""


NAMES = {
    "command-bar": "Command bar",
    "listen-hold": "Listen while held",
    "listen-toggle": "Listen on / off",
}


class ShortcutsBox(QGroupBox):
    def __init__(
        self,
        status: ShortcutStatus,
        pinned: tuple[str, ...],
        configure: Callable[[], str | None] | None = None,
    ) -> None:
        super().__init__("Global shortcuts")
        self.setObjectName("settings-shortcuts")
        self._configure = configure
        column = QVBoxLayout(self)
        column.addWidget(self._summary(status))
        if status.portal:
            self.change_keys = QPushButton("Change &keys…")
            self.change_keys.setObjectName("settings-shortcuts-change")
            self.change_keys.setEnabled(status.version >= 2 and configure is not None)
            self.change_keys.clicked.connect(self._change_keys)
            column.addWidget(self.change_keys)
            if status.version < 2:
                column.addWidget(help_label("Change the keys in the desktop's keyboard settings."))
        self.pinned = QLineEdit(" ".join(pinned))
        self.pinned.setObjectName("settings-shortcuts-tools")
        self.pinned.setAccessibleName("Pinned tools")
        self.pinned.setPlaceholderText("git.git_status notes.add_note")
        label = QLabel("Pinned &tools")
        label.setBuddy(self.pinned)
        column.addWidget(label)
        column.addWidget(self.pinned)
        column.addWidget(help_label(TOOLS_HELP))
        self.message = help_label("")
        self.message.setObjectName("settings-shortcuts-message")
        column.addWidget(self.message)

    @staticmethod
    def _summary(status: ShortcutStatus) -> QLabel:
        if status.portal:
            lines = [
                f"Through the desktop portal (version {status.version}): hold the listen key "
                "to talk, release it to stop."
            ]
            for ident, keys in status.triggers.items():
                name = NAMES.get(ident, ident.removeprefix("tool:"))
                lines.append(f"• {name}: {keys or 'no key yet'}")
        else:
            lines = [status.problem or "This desktop has no global shortcuts portal."]
            lines.append(status.manual)
        label = help_label("\n".join(line for line in lines if line))
        label.setObjectName("settings-shortcuts-summary")
        return label

    def _change_keys(self) -> None:
        if self._configure is not None:
            self.message.setText(self._configure() or "")

    def pinned_tools(self) -> tuple[str, ...]:
        """The pinned tools typed, in order, without repeats; a word that is no
        ``skill.tool`` name is left out (and named in the message line)."""
        seen: list[str] = []
        wrong: list[str] = []
        for word in self.pinned.text().replace(",", " ").split():
            if not is_tool_ref(word):
                wrong.append(word)
            elif word not in seen:
                seen.append(word)
        if wrong:
            self.message.setText(f"Not skill.tool names, left out: {' '.join(wrong)}")
        return tuple(seen)
