"""*Install skill…*: the same checklist and approval as ``gibberish install``, in a window.

A source (a folder, an archive file or a URL; dropping one on the launcher fills it in)
is fetched and checked on a worker thread by the Engine's installer. The dialog then
lists the skills found, with a checkbox, description, tools and token estimate; below,
what the checked ones would add: each tool's exact command, the skills they need, MCP
servers, warnings. Skills that would replace one already there need the *Replace*
checkbox. Nothing is written until *Install*; closing the dialog removes what was fetched.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from gibberish.ui import icons
from gibberish.ui.formatting import plural
from gibberish.ui.widgets import MARGIN, SPACING, banner, code_box, help_label

if TYPE_CHECKING:
    from gibberish.install.audit import Audit
    from gibberish.install.transaction import Installer, Plan

NAME_ROLE = Qt.ItemDataRole.UserRole
ARCHIVES = "Skill archives (*.zip *.skill *.tar.gz *.tgz *.tar.xz *.txz);;All files (*)"
_EXISTING = {
    "installed": "installed before",
    "user": "a skill of your own",
    "bundled": "a bundled skill",
}


class InstallDialog(QDialog):
    installed = Signal(list)  # names of the skills moved into place
    _looked = Signal(object, object)  # (installer, stack, plan) or None, error text

    def __init__(
        self, installer: Callable[[], Installer], source: str = "", parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("install-dialog")
        self.setWindowTitle("Install skill — gibberish")
        self.setWindowIcon(icons.app_icon())
        self._make_installer = installer
        self._installer: Installer | None = None
        self._stack: contextlib.ExitStack | None = None
        self.plan: Plan | None = None
        self.audits: dict[str, Audit] = {}
        self._closed = False
        self._looked.connect(self._show_plan)
        self._build(source)
        if source:
            self.look()

    # ------------------------------------------------------------------ layout
    def _build(self, source: str) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING)
        layout.addWidget(
            help_label(
                "A folder, an archive (.zip, .skill, .tar.gz, .tar.xz), a URL, or a git "
                "repository (file://…, git+https://…, github:owner/repo). Nothing is "
                "installed until you choose Install."
            )
        )
        row = QHBoxLayout()
        self.source = QLineEdit(source)
        self.source.setObjectName("install-source")
        self.source.setPlaceholderText("~/skills/pdf, pdf.zip, https://…, file:///…/repo.git#main")
        self.source.returnPressed.connect(self.look)
        row.addWidget(self.source, 1)
        for name, text, slot in (
            ("install-folder", "Folder…", self._pick_folder),
            ("install-archive", "Archive…", self._pick_archive),
            ("install-look", "Find skills", self.look),
        ):
            button = QPushButton(text)
            button.setObjectName(name)
            button.clicked.connect(slot)
            row.addWidget(button)
        layout.addLayout(row)
        self.status = help_label("")
        self.status.setObjectName("install-status")
        layout.addWidget(self.status)
        self.list = QListWidget()
        self.list.setObjectName("install-list")
        self.list.itemChanged.connect(self._refresh_details)
        layout.addWidget(self.list, 1)
        self.details = code_box("", max_lines=12)
        self.details.setObjectName("install-details")
        layout.addWidget(self.details, 1)
        self.warning = banner(
            "Installed skills are untrusted: every run asks first and shows where the "
            "skill came from. Read the commands above before installing."
        )
        layout.addWidget(self.warning)
        self.replace = QCheckBox()
        self.replace.setObjectName("install-replace")
        self.replace.toggled.connect(self._update_button)
        self.replace.hide()
        layout.addWidget(self.replace)
        self.accept_risks = QCheckBox()
        self.accept_risks.setObjectName("install-accept-risks")
        self.accept_risks.toggled.connect(self._update_button)
        self.accept_risks.hide()
        layout.addWidget(self.accept_risks)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.install_button = buttons.addButton("Install", QDialogButtonBox.ButtonRole.AcceptRole)
        self.install_button.setObjectName("install-confirm")
        self.install_button.setEnabled(False)
        buttons.accepted.connect(self.install)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)
        self.resize(620, 640)

    def _pick_folder(self) -> None:
        folder = QFileDialog.getExistingDirectory(self, "Folder of skills")
        if folder:
            self.source.setText(folder)
            self.look()

    def _pick_archive(self) -> None:
        path, _ = QFileDialog.getOpenFileName(self, "Skill archive", "", ARCHIVES)
        if path:
            self.source.setText(path)
            self.look()

    # ------------------------------------------------------------------ fetching
    def look(self) -> None:
        """Fetch and check the source on a worker thread; the plan arrives in ``_show_plan``."""
        text = self.source.text().strip()
        if not text:
            return
        self._release()
        self.list.clear()
        self.details.setPlainText("")
        self.install_button.setEnabled(False)
        self.status.setText(f"Fetching and checking {text} …")
        threading.Thread(target=self._stage, args=(text,), daemon=True).start()

    def _stage(self, text: str) -> None:
        stack = contextlib.ExitStack()
        try:
            installer = self._make_installer()
            plan = stack.enter_context(installer.stage(text))
            audits = audit_plan(plan)
        except Exception as exc:  # shown in the dialog, never a traceback
            stack.close()
            with contextlib.suppress(RuntimeError):  # the dialog may be gone already
                self._looked.emit(None, _describe(exc))
            return
        try:
            self._looked.emit((installer, stack, plan, audits), "")
        except RuntimeError:  # the dialog was deleted while fetching
            stack.close()

    def _show_plan(self, result: Any, error: str) -> None:
        if result is None:
            self.status.setText(error)
            return
        if self._closed:  # closed while fetching: drop what was fetched
            result[1].close()
            return
        self._installer, self._stack, self.plan, self.audits = result
        offered = self.plan.offered
        self.status.setText(f"{plural(len(offered), 'skill')} found. Choose which to install:")
        self.list.blockSignals(True)
        for found in offered:
            tools = ", ".join(t.name for t in found.skill.tools) or "instructions only"
            item = QListWidgetItem(
                f"{found.name} {found.skill.version} — {found.skill.description}\n"
                f"    tools: {tools} · ~{found.tokens} tokens"
            )
            item.setData(NAME_ROLE, found.name)
            item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
            item.setCheckState(Qt.CheckState.Checked)
            self.list.addItem(item)
        self.list.blockSignals(False)
        self._refresh_details()

    # ------------------------------------------------------------------ choosing
    def chosen(self) -> list[str]:
        return [
            self.list.item(i).data(NAME_ROLE)
            for i in range(self.list.count())
            if self.list.item(i).checkState() == Qt.CheckState.Checked
        ]

    def _refresh_details(self, *_args: object) -> None:
        if self.plan is None:
            return
        plan = self.plan.only(self.chosen())
        self.details.setPlainText("\n".join(describe_plan(plan, self.audits)))
        risky = self._risky(plan)
        self.accept_risks.setVisible(bool(risky))
        if risky:
            self.accept_risks.setText(
                f"Install anyway: I read the high-risk findings in {', '.join(risky)} (above)"
            )
        conflicts = plan.conflicts()
        self.replace.setVisible(bool(conflicts))
        if conflicts:
            names = ", ".join(f"{p.name} ({_EXISTING[p.existing]})" for p in conflicts)
            self.replace.setText(f"Replace what is there now: {names}")
        self._update_button()

    def _update_button(self) -> None:
        plan = self.plan.only(self.chosen()) if self.plan is not None else None
        ready = plan is not None and bool(plan.skills)
        if plan is not None and plan.conflicts() and not self.replace.isChecked():
            ready = False
        if plan is not None and ready and self._risky(plan) and not self.accept_risks.isChecked():
            ready = False
        self.install_button.setEnabled(ready)

    def _risky(self, plan: Plan) -> list[str]:
        """The chosen skills whose audit has a high-risk finding."""
        return [p.name for p in plan.skills if p.name in self.audits and self.audits[p.name].high]

    def install(self) -> None:
        if self.plan is None or self._installer is None:
            return
        plan = self.plan.only(self.chosen())
        replace = [p.name for p in plan.conflicts()] if self.replace.isChecked() else []
        try:
            names = self._installer.commit(plan, replace=replace)
        except Exception as exc:  # rolled back by the installer; say why
            self.status.setText(_describe(exc))
            return
        self._release()
        self.installed.emit(names)
        self.accept()

    # ------------------------------------------------------------------ cleanup
    def _release(self) -> None:
        if self._stack is not None:
            self._stack.close()
        self._stack, self.plan, self._installer, self.audits = None, None, None, {}

    def done(self, result: int) -> None:
        self._closed = True
        self._release()
        super().done(result)


def audit_plan(plan: Plan) -> dict[str, Audit]:
    """The audit of every skill the plan holds (read on the worker thread)."""
    from gibberish.install.audit import audit_folder

    return {p.name: audit_folder(p.found.folder, p.found.skill, p.name) for p in plan.skills}


def describe_plan(plan: Plan, audits: dict[str, Audit] | None = None) -> list[str]:
    """What the plan would add, as the CLI shows it: skills, tools, exact commands and
    what the audit found."""
    lines: list[str] = []
    for item in plan.skills:
        why = "" if item.required_by == "user" else f"  (needed by {item.required_by})"
        lines.append(f"+ {item.name} {item.found.skill.version}{why}")
        lines.append(f"    from {item.staged.source.text} {item.staged.resolved[:19]}".rstrip())
        for tool in item.found.skill.tools:
            command = tool.command.source if tool.command else "(no command)"
            lines.append(f"    {tool.name}: {command}")
        lines.extend(f"    {d.code}: {d.message}" for d in item.found.warnings)
        if audits and item.name in audits:
            lines.extend(f"    {line}" for line in audits[item.name].lines())
    for name, needers in sorted(plan.satisfied.items()):
        lines.append(f"= {name} (already available; needed by {', '.join(sorted(set(needers)))})")
    for server, needer in plan.mcp:
        words = " ".join([server.command, *server.args])
        lines.append(f"MCP server {server.name} for {needer}: {words} (recorded, not started)")
    return lines


def _describe(exc: BaseException) -> str:
    from gibberish.install.discover import InstallError
    from gibberish.install.fetch import FetchError, SourceError

    if isinstance(exc, InstallError | FetchError | SourceError):
        return str(exc)
    if isinstance(exc, OSError):
        return f"The install failed and was rolled back; nothing changed ({exc})."
    return f"Unexpected problem: {type(exc).__name__}: {exc}"
