"""*Export as a plugin…*: what ``gibberish plugin build`` does, in a window.

The person ticks skills in a searchable list (titles, with the description under each),
picks a folder (``~/gibberish-plugin`` unless they choose another), a plugin name (the
builder's own rule, explained in words while they type) and whether to add a
marketplace, then *Export*. The skills come from the Engine's library through the same
rule the CLI uses (:func:`gibberish.export.plugin.choices`); one another agent would
reject is shown greyed out with the reason.

The build runs on a worker thread. A folder that is not empty is replaced only when
everything in it is a plugin gibberish wrote there and nobody changed since, and only
after the person says so; a folder holding anything else is never replaced. An MCP
server a skill asks for is a program every person who installs the plugin would start,
so each one is listed with its full command and an unticked box, as sync does.
"""

from __future__ import annotations

import contextlib
import re
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QKeyEvent, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFrame,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gibberish.ui import accessibility, icons
from gibberish.ui.export.job import ExportJob, ExportOutcome, ExportRequest
from gibberish.ui.export.words import (
    DEFAULT_FOLDER,
    READERS,
    default_folder,
    folder_words,
    name_problem,
    suggested_name,
)
from gibberish.ui.formatting import human_title, plain_tooltip, plural
from gibberish.ui.placement import place
from gibberish.ui.widgets import (
    MARGIN,
    SPACING,
    banner,
    code_box,
    heading_label,
    help_label,
    keyboard_buttons,
    mnemonic_buttons,
    plain_box,
    set_tone,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from gibberish.export.mcp_config import McpServer
    from gibberish.export.plugin import BuiltPlugin, Choice, FolderInUse
    from gibberish.skills.model import SkillDefinition

NAME_ROLE = Qt.ItemDataRole.UserRole
_CODE = re.compile(r"^[EW]-[A-Z0-9-]+: ")
"""A diagnostic's code (``E-INVALID-NAME: …``): for tools, not for the person."""


class ExportDialog(QDialog):
    def __init__(
        self,
        candidates: list[Choice],
        parent: QWidget | None = None,
        *,
        open_url: Callable[[QUrl], object] = QDesktopServices.openUrl,
    ) -> None:
        super().__init__(parent)
        self._open_url = open_url
        self.setObjectName("export-dialog")
        self.setWindowTitle("Export as a plugin — gibberish")
        self.setWindowIcon(icons.app_icon())
        self.candidates = candidates
        self.skills: dict[str, SkillDefinition] = {c.skill.name: c.skill for c in candidates}
        self.servers: dict[str, QCheckBox] = {}
        self._server_rows: dict[str, QWidget] = {}
        self.job = ExportJob(self)
        self.job.finished.connect(self._finished)
        self.outcome: ExportOutcome | None = None
        self.question: QMessageBox | None = None
        self._name_edited = False
        self._placed = False
        self._build()
        self._fill_list()
        self._refresh()

    # ------------------------------------------------------------------ layout
    def _build(self) -> None:
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, MARGIN)
        outer.setSpacing(SPACING)
        scroll = QScrollArea()
        scroll.setObjectName("export-scroll")
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        scroll.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        accessibility.name(scroll, "What to export")
        body = QWidget()
        layout = QVBoxLayout(body)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, 0)
        layout.setSpacing(SPACING)
        layout.addWidget(
            help_label(
                "Put skills into one folder that other coding agents install as a plugin: "
                f"{READERS}. Your skills stay where they are; nothing is written until "
                "you choose Export."
            )
        )
        self._build_skills(layout)
        self._build_folder(layout)
        self._build_name(layout)
        self._build_servers(layout)
        self.status = help_label("")
        self.status.setObjectName("export-status")
        layout.addWidget(self.status)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)
        outer.addWidget(self._build_buttons())
        for field in (self.search, self.folder, self.name):
            field.installEventFilter(self)
        mnemonic_buttons(self)
        keyboard_buttons(self)
        self.resize(600, 620)

    def _build_skills(self, layout: QVBoxLayout) -> None:
        layout.addWidget(heading_label("Skills", scale=1.0))
        self.search = QLineEdit()
        self.search.setObjectName("export-search")
        self.search.setPlaceholderText("Search your skills")
        self.search.setClearButtonEnabled(True)
        accessibility.name(self.search, "Search your skills", "Shows only the skills that match")
        for button in self.search.findChildren(QToolButton):
            accessibility.name(button, "Clear the text")
        self.search.textChanged.connect(self._filter)
        layout.addWidget(self.search)
        self.list = QListWidget()
        self.list.setObjectName("export-skills")
        self.list.setMinimumHeight(96)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        accessibility.name(self.list, "Skills to export", "Tick the skills to put in the plugin")
        self.list.itemChanged.connect(self._refresh)
        layout.addWidget(self.list, 1)

    def _build_folder(self, layout: QVBoxLayout) -> None:
        layout.addWidget(heading_label("Folder", scale=1.0))
        row = QHBoxLayout()
        self.folder = QLineEdit(f"~/{DEFAULT_FOLDER}")
        self.folder.setObjectName("export-folder")
        accessibility.name(self.folder, "Folder", "The folder the plugin is written to")
        self.folder.textChanged.connect(self._folder_changed)
        row.addWidget(self.folder, 1)
        choose = QPushButton("Choose…")
        choose.setObjectName("export-choose-folder")
        choose.clicked.connect(self._pick_folder)
        row.addWidget(choose)
        layout.addLayout(row)
        self.folder_help = help_label("")
        self.folder_help.setObjectName("export-folder-help")
        layout.addWidget(self.folder_help)

    def _build_name(self, layout: QVBoxLayout) -> None:
        layout.addWidget(heading_label("Plugin name", scale=1.0))
        self.name = QLineEdit(suggested_name(default_folder()))
        self.name.setObjectName("export-name")
        accessibility.name(self.name, "Plugin name", "The name agents show for the plugin")
        self.name.textEdited.connect(self._name_typed)
        self.name.textChanged.connect(self._refresh)
        layout.addWidget(self.name)
        self.name_help = help_label("")
        self.name_help.setObjectName("export-name-help")
        layout.addWidget(self.name_help)
        self.marketplace = QCheckBox("Also write a marketplace, so Claude Code can add it by name")
        self.marketplace.setObjectName("export-marketplace")
        layout.addWidget(self.marketplace)

    def _build_servers(self, layout: QVBoxLayout) -> None:
        self.server_banner = banner(
            "These skills ask for MCP servers: programs every person who installs the "
            "plugin would start, outside any sandbox. Tick only the ones you have read "
            "and agree to; the others are left out."
        )
        layout.addWidget(self.server_banner)
        self.server_box = QVBoxLayout()
        layout.addLayout(self.server_box)

    def _build_buttons(self) -> QDialogButtonBox:
        buttons = QDialogButtonBox()
        buttons.setContentsMargins(MARGIN, 0, MARGIN, 0)
        self.open_button = buttons.addButton("Open folder", QDialogButtonBox.ButtonRole.ActionRole)
        self.open_button.setObjectName("export-open-folder")
        self.open_button.clicked.connect(self._open_folder)
        self.open_button.hide()
        self.export_button = buttons.addButton("Export", QDialogButtonBox.ButtonRole.AcceptRole)
        self.export_button.setObjectName("export-confirm")
        close = buttons.addButton("Close", QDialogButtonBox.ButtonRole.RejectRole)
        close.setObjectName("export-close")
        buttons.accepted.connect(self.export)
        buttons.rejected.connect(self.reject)
        return buttons

    def _fill_list(self) -> None:
        from gibberish.skills.model import Trust

        self.list.blockSignals(True)
        ordered = sorted(self.candidates, key=lambda c: human_title(c.skill.name).lower())
        for choice in ordered:
            skill = choice.skill
            description = " ".join(skill.description.split())
            item = QListWidgetItem(f"{human_title(skill.name)}\n    {description}")
            item.setData(NAME_ROLE, skill.name)
            item.setToolTip(plain_tooltip(description))
            if choice.problem:
                why = _CODE.sub("", choice.problem)
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsEnabled)
                item.setText(f"{human_title(skill.name)}\n    Other agents would refuse it: {why}")
                item.setToolTip(plain_tooltip(why))
            else:
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                own = skill.trust is Trust.USER  # written by the person, not received
                item.setCheckState(Qt.CheckState.Checked if own else Qt.CheckState.Unchecked)
            self.list.addItem(item)
        self.list.blockSignals(False)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter in a text field (the search, the folder, the name) never exports."""
        enter = (Qt.Key.Key_Return, Qt.Key.Key_Enter)
        if isinstance(event, QKeyEvent) and event.type() == QEvent.Type.KeyPress:
            return event.key() in enter or super().eventFilter(watched, event)
        return super().eventFilter(watched, event)

    def showEvent(self, event: QShowEvent) -> None:
        if not self._placed:
            self._placed = True
            place(self)
        super().showEvent(event)

    # ------------------------------------------------------------------ choosing
    def chosen(self) -> list[str]:
        return [
            self.list.item(i).data(NAME_ROLE)
            for i in range(self.list.count())
            if self.list.item(i).checkState() == Qt.CheckState.Checked
            and self.list.item(i).flags() & Qt.ItemFlag.ItemIsEnabled
        ]

    def _filter(self, text: str) -> None:
        words = text.lower().split()
        for i in range(self.list.count()):
            item = self.list.item(i)
            skill = self.skills[item.data(NAME_ROLE)]
            haystack = f"{human_title(skill.name)} {skill.name} {skill.description}".lower()
            item.setHidden(not all(w in haystack for w in words))

    def destination(self) -> Path:
        return Path(self.folder.text().strip()).expanduser()

    def _pick_folder(self) -> None:
        start = str(self.destination().parent)
        folder = QFileDialog.getExistingDirectory(self, "Folder for the plugin", start)
        if folder:
            self.folder.setText(folder)

    def _name_typed(self, _text: str) -> None:
        self._name_edited = True

    def _folder_changed(self, _text: str) -> None:
        if not self._name_edited and self.folder.text().strip():
            self.name.setText(suggested_name(self.destination()))
        self._refresh()

    def _refresh(self, *_args: object) -> None:
        """Say what the folder and the name mean, list the MCP servers to agree to, and
        enable Export once both are usable and a skill is ticked."""
        folder = self.folder.text().strip()
        name = self.name.text()
        problem = name_problem(name)
        if problem:
            self.name_help.setText(problem)
            set_tone(self.name_help, "error")
        else:
            help_text = "The name agents show for the plugin."
            if folder and name != self.destination().name:
                help_text += (
                    f" Gemini CLI wants the folder named the same: {name} "
                    f"(this one is named {self.destination().name})."
                )
            self.name_help.setText(help_text)
            set_tone(self.name_help, None)
        self.folder_help.setText(folder_words(folder, self.destination()))
        self._refresh_servers()
        ready = bool(self.chosen()) and not problem and bool(folder)
        self.export_button.setEnabled(ready and not self.job.busy)

    def _refresh_servers(self) -> None:
        from gibberish.export.plugin import servers_to_agree

        chosen = [self.skills[n] for n in self.chosen()]
        wanted = servers_to_agree(chosen)
        names = {s.name for s in wanted}
        for name in [n for n in self.servers if n not in names]:
            del self.servers[name]
            row = self._server_rows.pop(name)
            self.server_box.removeWidget(row)
            row.deleteLater()
        for server in wanted:
            if server.name not in self.servers:
                row = self._server_row(server, chosen)
                self._server_rows[server.name] = row
                self.server_box.addWidget(row)
        self.server_banner.setVisible(bool(wanted))

    def _server_row(self, server: McpServer, chosen: list[SkillDefinition]) -> QWidget:
        """An unticked box naming the server, its full command, and who asks for it."""
        row = QWidget()
        layout = QVBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(SPACING // 2)
        box = QCheckBox(f"Include the MCP server “{server.name}”")
        box.setObjectName(f"export-mcp-{server.name}")
        box.setChecked(False)
        self.servers[server.name] = box
        layout.addWidget(box)
        command = code_box(f"Agents would {server.describe()}", max_lines=4)
        command.setObjectName(f"export-mcp-command-{server.name}")
        layout.addWidget(command)
        askers = [
            human_title(s.name) for s in chosen if server.origin.startswith(str(s.source_path))
        ]
        who = f"the skill {', '.join(askers)}" if askers else server.origin
        layout.addWidget(help_label(f"Asked for by {who}."))
        return row

    def agreed(self) -> set[str]:
        return {name for name, box in self.servers.items() if box.isChecked()}

    # ------------------------------------------------------------------ exporting
    def export(self, *, replace: bool = False) -> None:
        """Build on a worker thread; the outcome arrives in ``_finished``."""
        from gibberish.export.plugin_manifests import PluginInfo

        if self.job.busy or not self.export_button.isEnabled():
            return
        request = ExportRequest(
            skills=[self.skills[n] for n in self.chosen()],
            out=self.destination(),
            info=PluginInfo(name=self.name.text()),
            agreed=frozenset(self.agreed()),
            marketplace=self.marketplace.isChecked(),
            replace_own=replace,
        )
        self.export_button.setEnabled(False)
        self.open_button.hide()
        self.status.setText(f"Exporting {plural(len(request.skills), 'skill')} to {request.out}…")
        set_tone(self.status, None)
        self.job.start(request)

    def _finished(self, outcome: ExportOutcome) -> None:
        self.outcome = outcome
        self._refresh()
        if outcome.built is not None:
            self._show_built(outcome.built)
        elif outcome.in_use is not None:
            self._folder_in_use(outcome.in_use)
        else:
            self.status.setText(outcome.error)
            set_tone(self.status, "error")

    def _folder_in_use(self, problem: FolderInUse) -> None:
        out = problem.out
        if problem.why == "not-folder":
            self.status.setText(f"{out} is a file or a link, not a folder. Choose a folder.")
        elif problem.ours:
            self.status.setText(f"{out} holds a plugin gibberish exported before.")
            self._ask_replace(out)
            return
        else:
            found = ", ".join(problem.foreign)
            self.status.setText(
                f"{out} already holds files gibberish did not write ({found}). gibberish "
                "never replaces them: choose a new or empty folder."
            )
        set_tone(self.status, "error")

    def _ask_replace(self, out: Path) -> None:
        box = plain_box(
            "warning",
            "Replace the plugin? — gibberish",
            f"Replace the plugin gibberish exported to {out} before?",
            "Everything in that folder was written by gibberish and has not been changed "
            "since. It is replaced by the new plugin.",
        )
        box.setObjectName("export-replace-question")
        box.setStandardButtons(QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No)
        box.setDefaultButton(QMessageBox.StandardButton.No)
        box.button(QMessageBox.StandardButton.Yes).setText("Replace it")
        box.button(QMessageBox.StandardButton.No).setText("Keep it")
        box.setWindowModality(Qt.WindowModality.WindowModal)
        box.accepted.connect(lambda: self.export(replace=True))
        box.setParent(self, box.windowFlags())
        self.question = box
        box.open()

    def _show_built(self, built: BuiltPlugin) -> None:
        lines = [
            f"Exported {plural(len(built.skills), 'skill')} as the plugin {built.info.name} to "
            f"{built.folder}. It is made for {READERS}."
        ]
        if built.servers:
            lines.append(f"MCP servers included: {', '.join(built.servers)}.")
        if built.unagreed:
            names = ", ".join(s.name for s in built.unagreed)
            lines.append(f"MCP servers left out (not ticked): {names}.")
        lines += [f"MCP server {line}." for line in built.refused_servers]
        self.status.setText("\n".join(lines))
        set_tone(self.status, "success")
        self.open_button.show()

    def _open_folder(self) -> None:
        if self.outcome is not None and self.outcome.built is not None:
            self._open_url(QUrl.fromLocalFile(str(self.outcome.built.folder)))

    @property
    def worker(self) -> threading.Thread | None:
        """The running build's thread, if any."""
        return self.job.worker

    def wait(self, timeout: float = 30.0) -> None:
        """Wait for a running export's thread (on close and in tests)."""
        self.job.wait(timeout)

    def done(self, result: int) -> None:
        if self.question is not None:
            with contextlib.suppress(RuntimeError):
                self.question.close()
        super().done(result)
