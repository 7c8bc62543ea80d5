"""The launcher window, for desktops without a tray: the one window of the everyday loop.

Its main surface is the command bar itself (embedded, ``CommandBar(embedded=True)``):
search, a tool's form, the approval and the output, exactly as the hotkey's window shows
them. The tray menu's entries (mode, skills, problems, install, settings, quit) are one
*Menu* button away — the very menu the tray would show. The entries are also kept, by
object name, in an index that is never shown (``trigger(name)``, ``names()``), so tests
and automation drive the window the same way they drive the tray menu. Closing the
window quits gibberish, because without a tray there would be nothing left to bring it
back.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from pathlib import Path

from PySide6.QtCore import QMimeData, Qt, Signal
from PySide6.QtGui import QCloseEvent, QDragEnterEvent, QDropEvent, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QMenu,
    QPushButton,
    QToolButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from gibberish.ui import accessibility, icons
from gibberish.ui.formatting import plain_tooltip
from gibberish.ui.listen.listening_row import ListeningRow
from gibberish.ui.menu.model import Kind, MenuItem
from gibberish.ui.widgets import MARGIN, SPACING, banner, help_label, set_tone, with_mnemonic

NAME_ROLE = Qt.ItemDataRole.UserRole
TOP_BUTTONS = ("ask",)


class _Tree(QTreeWidget):
    """Enter on a row triggers it (double click does too); on a section it opens or closes it."""

    activated_item = Signal(QTreeWidgetItem)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        item = self.currentItem()
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and item is not None:
            if item.childCount():  # a section: Enter opens or closes it
                item.setExpanded(not item.isExpanded())
            else:
                self.activated_item.emit(item)
            return
        super().keyPressEvent(event)


class LauncherWindow(QWidget):
    """A window version of the tray menu."""

    closed = Signal()
    dropped = Signal(str)  # a folder, archive or URL dropped on the window: install it

    def __init__(
        self,
        reason: str | None = None,
        parent: QWidget | None = None,
        *,
        menu: QMenu | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("launcher-window")
        self.setWindowTitle("gibberish")
        self.setWindowIcon(icons.app_icon())
        self.setAcceptDrops(True)
        self._triggers: dict[str, Callable[[], object]] = {}
        self._buttons: dict[str, QPushButton] = {}
        self._mnemonics: set[str] = set()

        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING)

        layout.addWidget(self._make_reason_row(reason))

        self.top_row = QHBoxLayout()  # the entries' index: never shown
        self.top_row.setSpacing(SPACING)
        from gibberish.ui.command_bar.bar import CommandBar

        self.bar = CommandBar(self, embedded=True)
        # The list scrolls in the window (never taller than the screen): a scroll bar shows it.
        self.bar.results.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        layout.addWidget(self.bar, 1)
        self._reason = bool(reason)
        self.bar.steps.changed.connect(self._step_changed)

        self._restoring = False
        self.tree = self._make_tree()

        self.listening = ListeningRow()
        layout.addWidget(self.listening)

        self.status = help_label("")
        self.status.setObjectName("launcher-status")
        self.status.hide()

        self.bottom_row = QHBoxLayout()  # the entries' index: never shown
        self.bottom_row.setSpacing(SPACING)
        row = QHBoxLayout()
        self.menu_button = self._make_menu_button(menu)
        row.addWidget(self.menu_button)
        row.addWidget(self.status, 1)
        layout.addLayout(row)
        self.resize(640, 520)

    def _make_reason_row(self, reason: str | None) -> QWidget:
        """Why there is no tray on this desktop, in a banner the person can hide."""
        self.reason_row = QWidget()
        reason_layout = QHBoxLayout(self.reason_row)
        reason_layout.setContentsMargins(0, 0, 0, 0)
        self.reason_label = banner((reason or "").replace("`", ""), kind="info")
        self.reason_label.setObjectName("launcher-reason")
        reason_layout.addWidget(self.reason_label, 1)
        dismiss = QToolButton()
        dismiss.setText("✕")
        dismiss.setToolTip("Hide this message")
        accessibility.name(dismiss, "Hide this message")
        dismiss.setAutoRaise(True)
        dismiss.clicked.connect(self._dismiss)
        reason_layout.addWidget(dismiss, 0, Qt.AlignmentFlag.AlignTop)
        self.reason_row.setVisible(bool(reason))
        return self.reason_row

    def _make_tree(self) -> _Tree:
        """The skills and tools as a tree: kept as the menu's index, never shown."""
        tree = _Tree()
        tree.setObjectName("launcher-tree")
        accessibility.name(tree, "Skills and tools")
        tree.setHeaderHidden(True)
        tree.setUniformRowHeights(True)
        tree.setIndentation(18)
        tree.setRootIsDecorated(True)
        tree.itemExpanded.connect(self._remember_expanded)
        tree.itemCollapsed.connect(self._remember_expanded)
        tree.itemActivated.connect(self._activate)
        tree.activated_item.connect(self._activate)
        tree.hide()
        return tree

    def _make_menu_button(self, menu: QMenu | None) -> QToolButton:
        """*Menu*: the tray's menu (mode, skills, problems, installing, settings, quit)."""
        button = QToolButton()
        button.setObjectName("launcher-menu")
        button.setText("☰ &Menu")
        button.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        button.setToolTip("Mode, skills, problems, installing, settings and quitting (Alt+M)")
        if menu is not None:
            button.setMenu(menu)
        return button

    def _dismiss(self) -> None:
        self._reason = False
        self.reason_row.hide()

    def _step_changed(self) -> None:
        """A form, approval or output gets the whole window: the note about the tray
        waits above the search."""
        self.reason_row.setVisible(self._reason and not self.bar.steps.active)
        self._fit_screen()

    def showEvent(self, event: QShowEvent) -> None:
        """Never taller or wider than the screen it opens on (the Menu button stays)."""
        self._fit_screen(40, 60)
        super().showEvent(event)

    def _fit_screen(self, spare_width: int = 0, spare_height: int = 0) -> None:
        """Inside the screen's free area, frame included: when a step comes or goes, the
        step scrolls in the window rather than growing it past the screen's bottom."""
        area = self.screen().availableGeometry()
        frame = self.frameGeometry().size() - self.size()
        width = min(self.width(), area.width() - max(spare_width, frame.width()))
        height = min(self.height(), area.height() - max(spare_height, frame.height()))
        if (width, height) != (self.width(), self.height()):
            self.resize(width, height)

    # ------------------------------------------------------------------ content
    def set_items(self, items: Sequence[MenuItem]) -> None:
        """Show ``items`` (from ``menu.build_menu``), keeping which rows were expanded."""
        expanded = {row.data(0, NAME_ROLE) for row in self._rows() if row.isExpanded()}
        first_build = self.tree.topLevelItemCount() == 0
        self._restoring = True  # rebuilding expands rows: not the person's choice
        self.tree.clear()
        self._triggers.clear()
        for button in self._buttons.values():
            button.setParent(None)
            button.deleteLater()
        self._buttons.clear()
        self._mnemonics = set()
        self._clear_layout(self.top_row)
        self._clear_layout(self.bottom_row)

        skills = 0
        for item in items:
            if item.kind == Kind.SEPARATOR:
                continue
            if item.kind == Kind.ACTION:
                self._add_button(item)
                continue
            node = self._add_node(self.tree.invisibleRootItem(), item)
            if item.name.startswith("skill:"):
                skills += 1
            if item.name in expanded:
                node.setExpanded(True)
        if first_build:
            saved = load_expanded()
            for node in self._rows():
                name = str(node.data(0, NAME_ROLE))
                if saved is not None:
                    node.setExpanded(name in saved)
                elif skills <= 6 and name.startswith("skill:"):
                    node.setExpanded(True)
        self._restoring = False
        self.bottom_row.insertStretch(0, 1)

    def _rows(self) -> list[QTreeWidgetItem]:
        """The top-level rows."""
        rows = (self.tree.topLevelItem(i) for i in range(self.tree.topLevelItemCount()))
        return [row for row in rows if row is not None]

    def _add_node(self, parent: QTreeWidgetItem, item: MenuItem) -> QTreeWidgetItem:
        node = QTreeWidgetItem(parent, [item.text])
        node.setData(0, NAME_ROLE, item.name)
        if item.tooltip:
            node.setToolTip(0, plain_tooltip(item.tooltip))
        if item.icon is not None:
            node.setIcon(0, item.icon)
        if not item.enabled:
            node.setFlags(node.flags() & ~Qt.ItemFlag.ItemIsEnabled)
        if item.checkable:
            node.setText(0, ("●  " if item.checked else "○  ") + item.text)
        if item.kind == Kind.MENU:
            font = node.font(0)
            font.setBold(item.name in ("mode",) or item.name.startswith("skill:"))
            node.setFont(0, font)
            for child in item.items():
                if child.kind != Kind.SEPARATOR:
                    self._add_node(node, child)
        elif item.trigger is not None:
            self._triggers[item.name] = item.trigger
        return node

    def _add_button(self, item: MenuItem) -> None:
        button = QPushButton(with_mnemonic(item.text.replace("&", "&&"), self._mnemonics))
        button.setObjectName(item.name)
        button.setToolTip(plain_tooltip(item.tooltip))
        button.setEnabled(item.enabled)
        button.setAutoDefault(False)
        if item.trigger is not None:
            self._triggers[item.name] = item.trigger
            button.clicked.connect(self._button_clicked)
        self._buttons[item.name] = button
        if item.name in TOP_BUTTONS:
            self.top_row.addWidget(button, 1)
        else:
            self.bottom_row.addWidget(button)

    @staticmethod
    def _clear_layout(layout: QHBoxLayout) -> None:
        while layout.count():
            taken = layout.takeAt(0)
            widget = taken.widget() if taken is not None else None
            if widget is not None:
                widget.setParent(None)

    # ------------------------------------------------------------------ actions
    def names(self) -> list[str]:
        """Object names of every entry shown (rows and buttons)."""
        found: list[str] = list(self._buttons)

        def walk(node: QTreeWidgetItem) -> None:
            for i in range(node.childCount()):
                child = node.child(i)
                if child is not None:
                    found.append(str(child.data(0, NAME_ROLE)))
                    walk(child)

        walk(self.tree.invisibleRootItem())
        return found

    def find_item(self, name: str) -> QTreeWidgetItem | None:
        matches = [
            item
            for item in self.tree.findItems(
                "*", Qt.MatchFlag.MatchWildcard | Qt.MatchFlag.MatchRecursive
            )
            if item.data(0, NAME_ROLE) == name
        ]
        return matches[0] if matches else None

    def trigger(self, name: str) -> bool:
        """Fire the entry called ``name``; False when there is none or it is disabled."""
        button = self._buttons.get(name)
        if button is not None:
            if not button.isEnabled():
                return False
            button.click()
            return True
        fn = self._triggers.get(name)
        if fn is None:
            return False
        fn()
        return True

    def _button_clicked(self) -> None:
        button = self.sender()
        fn = self._triggers.get(button.objectName()) if button is not None else None
        if fn is not None:
            fn()

    def _activate(self, node: QTreeWidgetItem) -> None:
        fn = self._triggers.get(str(node.data(0, NAME_ROLE)))
        if fn is not None and node.flags() & Qt.ItemFlag.ItemIsEnabled:
            fn()

    def _remember_expanded(self, _item: QTreeWidgetItem) -> None:
        if self._restoring:
            return
        names = [str(row.data(0, NAME_ROLE)) for row in self._rows() if row.isExpanded()]
        save_expanded(names)

    def show_status(self, title: str, body: str, *, failed: bool = False) -> None:
        """Where the tray would show a notification."""
        self.status.setText(f"{title} — {body}")
        set_tone(self.status, "error" if failed else None)
        self.status.show()

    # ------------------------------------------------------------------ drops
    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if dropped_source(event.mimeData()):
            event.acceptProposedAction()

    def dropEvent(self, event: QDropEvent) -> None:
        source = dropped_source(event.mimeData())
        if source:
            event.acceptProposedAction()
            self.dropped.emit(source)

    def closeEvent(self, event: QCloseEvent) -> None:
        event.accept()
        self.closed.emit()


def dropped_source(mime: QMimeData) -> str:
    """The first local path or http(s)/git URL in a drop, or "" when there is none."""
    for url in mime.urls() if mime.hasUrls() else []:
        if url.isLocalFile():
            return url.toLocalFile()
        if url.scheme() in ("http", "https"):
            return url.toString()
    text = mime.text().strip() if mime.hasText() else ""
    if text.startswith(("http://", "https://", "file://", "git+", "github:")) and "\n" not in text:
        return text
    return ""


def _expanded_file() -> Path:
    from gibberish import paths

    return paths.state_dir() / "launcher.json"


def load_expanded() -> set[str] | None:
    """The rows the person left open last time; None when never saved (or unreadable)."""
    try:
        data = json.loads(_expanded_file().read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    rows = data.get("expanded") if isinstance(data, dict) else None
    return {str(r) for r in rows} if isinstance(rows, list) else None


def save_expanded(names: list[str]) -> None:
    from gibberish.fileio import atomic_write_bytes

    with contextlib.suppress(OSError):  # a convenience: never in the way
        atomic_write_bytes(_expanded_file(), json.dumps({"expanded": names}).encode("utf-8"))
