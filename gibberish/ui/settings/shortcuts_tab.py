"""The settings dialog's *Shortcuts* tab: what works on this desktop and how to set it up.

With the desktop portal it lists the shortcuts and the keys the desktop gave them, and
*Change keys…* opens the desktop's own dialog (portal version 2+). Without it, it shows
the exact steps to bind ``gibberish listen`` by hand on this desktop (press only: no hold
to talk). Either way the pinned tools — one shortcut each, through the portal — are
edited here as ``skill.tool`` names.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from msgspec import Struct, field
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QGroupBox,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
)

from gibberish.settings import is_tool_ref
from gibberish.ui.widgets import help_label

TOOLS_HELP = (
    "Ticked tools come first in the command bar, and each gets a key of its own where the "
    "desktop hands out keys (it asks you which)."
)


class ShortcutStatus(Struct, frozen=True):
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
        tools: Sequence[tuple[str, str, str]] = (),
    ) -> None:
        super().__init__("Global shortcuts")
        self.setObjectName("settings-shortcuts")
        self._configure = configure
        column = QVBoxLayout(self)
        column.addWidget(self._summary(status))
        if not status.portal and status.manual:
            self.manual = help_label(status.manual)
            self.manual.setObjectName("settings-shortcuts-manual")
            self.manual.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            self.manual.hide()
            show = QPushButton("Show how to bind a key &by hand")
            show.setObjectName("settings-shortcuts-show-manual")
            show.setCheckable(True)
            show.toggled.connect(self.manual.setVisible)
            column.addWidget(show)
            column.addWidget(self.manual)
        if status.portal:
            self.change_keys = QPushButton("Change &keys…")
            self.change_keys.setObjectName("settings-shortcuts-change")
            self.change_keys.setEnabled(status.version >= 2 and configure is not None)
            self.change_keys.clicked.connect(self._change_keys)
            column.addWidget(self.change_keys)
            if status.version < 2:
                column.addWidget(help_label("Change the keys in the desktop's keyboard settings."))
        self.pinned = QLineEdit(" ".join(pinned))  # the ids, as config.toml keeps them
        self.pinned.setObjectName("settings-shortcuts-tools")
        self.pinned.setAccessibleName("Pinned tools, by id")
        self.pinned.hide()
        column.addWidget(self.pinned)
        self.search = QLineEdit()
        self.search.setObjectName("settings-pinned-search")
        self.search.setPlaceholderText("Find a tool to pin…")
        self.search.setClearButtonEnabled(True)
        pinned_label = QLabel("Pinned &tools")
        pinned_label.setBuddy(self.search)
        column.addWidget(pinned_label)
        column.addWidget(self.search)
        self.tool_list = self._tool_list(status, pinned, tools)
        self.tool_list.itemChanged.connect(self._ticked)
        self.search.textChanged.connect(self._filter)
        column.addWidget(self.tool_list)
        column.addWidget(help_label(TOOLS_HELP))
        self.message = help_label("")
        self.message.setObjectName("settings-shortcuts-message")
        column.addWidget(self.message)

    @staticmethod
    def _tool_list(
        status: ShortcutStatus, pinned: tuple[str, ...], tools: Sequence[tuple[str, str, str]]
    ) -> QListWidget:
        """Every tool by its title (with the key it got), ticked when pinned."""
        tool_list = QListWidget()
        tool_list.setObjectName("settings-pinned-list")
        tool_list.setAccessibleName("Tools; ticked ones are pinned")
        tool_list.setMaximumHeight(150)
        keys = {i.removeprefix("tool:"): k for i, k in status.triggers.items()}
        for ref, name, description in tools:
            title = name.replace("_", " ").capitalize()
            key = keys.get(ref, "")
            item = QListWidgetItem(f"{title} — {key}" if key else title)
            item.setData(Qt.ItemDataRole.UserRole, ref)
            item.setToolTip(description)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked if ref in pinned else Qt.CheckState.Unchecked)
            tool_list.addItem(item)
        return tool_list

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
            problem = status.problem or "This desktop has no global shortcuts portal."
            problem = problem.replace("`", "").replace(" instead: see Settings → Shortcuts.", ".")
            lines = [problem]
        label = help_label("\n".join(line for line in lines if line))
        label.setObjectName("settings-shortcuts-summary")
        return label

    def _filter(self, text: str) -> None:
        words = text.lower().split()
        for row in range(self.tool_list.count()):
            item = self.tool_list.item(row)
            seen = f"{item.text()} {item.toolTip()}".lower()
            item.setHidden(not all(w in seen for w in words))

    def _ticked(self, item: QListWidgetItem) -> None:
        """A tick pins the tool (it joins the ids kept), no tick unpins it."""
        ref = str(item.data(Qt.ItemDataRole.UserRole))
        words = [w for w in self.pinned.text().replace(",", " ").split() if w != ref]
        if item.checkState() == Qt.CheckState.Checked:
            words.append(ref)
        self.pinned.setText(" ".join(words))

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
            self.message.setText(f"Not tools gibberish knows, left out: {' '.join(wrong)}")
        return tuple(seen)
