"""The approval / confirm dialog, driven entirely by the Engine's ``Decision``.

What a person must see before something runs on their computer (docs/adr/0010-trust-table.md): the skill
and its trust level (with the warning banner for untrusted skills), the tool and what it
says it does, the exact argv, the working folder, the timeout, whether it uses the
network, and — after a change — which files changed since the last approval.

Keyboard: "Cancel" is the default button and Esc cancels, so a stray Enter never
approves anything; every button is auto-default, so Enter presses the *focused* button
and nothing else; Ctrl+Enter is "Run once"; every button has a mnemonic (Alt+R, Alt+T,
Alt+C); a focused button wears a highlight-coloured ring, distinct from the default
button's outline. "Trust this version" appears only when the decision offers it
(``decision.can_always_allow``), with where the skill came from and every file it
covers (``PreparedRun.came_from``, ``covered_files``); the dialog says in words when it
will ask again
(``asks_again``, following docs/trust.md). A ``refuse`` decision shows the reason and
no run button.

``ApprovalPrompter`` is the seam the controller calls; tests (and later a model-routing
flow that wants a different presentation) replace it instead of patching ``exec``.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QEvent, QObject, Qt, QUrl
from PySide6.QtGui import QDesktopServices, QKeyEvent
from PySide6.QtWidgets import (
    QDialog,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gibberish.engine.run_flow import Answer
from gibberish.paths import home_short
from gibberish.skills.model import SkillDefinition, Trust
from gibberish.trust import approved_copies
from gibberish.ui import accessibility, icons
from gibberish.ui.approval.highlight import ShellHighlighter
from gibberish.ui.formatting import command_text, human_title
from gibberish.ui.placement import place
from gibberish.ui.widgets import (
    MARGIN,
    SPACING,
    MarkdownLabel,
    banner,
    code_box,
    field_label,
    fit_to_width,
    heading_label,
    help_label,
    keyboard_buttons,
    value_label,
)

if TYPE_CHECKING:
    from gibberish.engine.core import PreparedRun


TRUST_TEXT = {
    Trust.BUNDLED: "bundled — ships with gibberish",
    Trust.USER: "your skill — from your skills folder",
    Trust.UNTRUSTED: "installed from outside — not trusted in this version",
}
TRUSTED_INSTALL_TEXT = "installed from outside — you trusted this version"


def question(human: str, *, refused: bool) -> str:
    """The approval's title: "Run “Git log”?" (the quotes mark a name, so that a title
    such as "Forecast" reads as the tool's), or "Cannot run “Git log”"."""
    return f"Cannot run “{human}”" if refused else f"Run “{human}”?"


class _Rows:
    """The dialog's label/value grid; each value is named ``approval-<name>``."""

    def __init__(self) -> None:
        self.grid = QGridLayout()
        self.grid.setHorizontalSpacing(SPACING + 4)
        self.grid.setVerticalSpacing(SPACING)
        self.grid.setColumnStretch(1, 1)
        self.row = 0

    def add(self, label: str, widget: QWidget, name: str) -> None:
        widget.setObjectName(f"approval-{name}")
        self.grid.addWidget(field_label(label), self.row, 0, Qt.AlignmentFlag.AlignTop)
        self.grid.addWidget(widget, self.row, 1, Qt.AlignmentFlag.AlignTop)
        self.row += 1

    def note(self, widget: QWidget, name: str = "") -> None:
        """A line under the previous value, in its column (a button keeps its width)."""
        if name:
            widget.setObjectName(name)
        if isinstance(widget, QToolButton):
            self.grid.addWidget(widget, self.row, 1, Qt.AlignmentFlag.AlignLeft)
        else:
            self.grid.addWidget(widget, self.row, 1)
        self.row += 1


def _button(text: str, name: str, tip: str, clicked: Callable[[], object]) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setToolTip(tip)
    button.clicked.connect(clicked)
    return button


class ApprovalDialog(QDialog):
    """Shows a prepared run and its decision; ``answer`` says what the person chose."""

    def __init__(self, prepared: PreparedRun, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("approval-dialog")
        self.setWindowIcon(icons.app_icon())
        self.prepared = prepared
        self.answer = Answer.CANCEL
        self.open_folder: Callable[[Path], object] = lambda p: QDesktopServices.openUrl(
            QUrl.fromLocalFile(str(p))
        )
        refused = prepared.decision.refused
        human = human_title(prepared.tool.name)
        self.setWindowTitle(f"{question(human, refused=refused)} — gibberish")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING + 2)
        self._add_header(layout, prepared, human)
        rows = _Rows()
        self._add_run_rows(rows, prepared, human)
        self._add_trust_rows(rows, prepared)
        layout.addLayout(rows.grid)
        if not refused:
            again = help_label(asks_again(prepared))
            again.setObjectName("approval-asks-again")
            layout.addWidget(again)
        layout.addStretch(1)
        layout.addSpacing(4)
        layout.addLayout(self._buttons(prepared))
        self._set_keyboard()
        self.setMinimumWidth(560)
        fit_to_width(self, 620)

    def _add_header(self, layout: QVBoxLayout, prepared: PreparedRun, human: str) -> None:
        """The warning banner, the trust badge with the title, and the decision's reason."""
        decision, skill = prepared.decision, prepared.skill
        if decision.banner:
            top = banner(decision.banner, kind="warning")
            top.setObjectName("approval-banner")
            layout.addWidget(top)
        header = QHBoxLayout()
        header.setSpacing(SPACING)
        badge = QLabel()
        badge.setPixmap(icons.trust_icon(skill.trust).pixmap(28, 28))
        badge.setToolTip(f"Trust: {icons.TRUST_LABELS.get(skill.trust, str(skill.trust))}")
        header.addWidget(badge, 0, Qt.AlignmentFlag.AlignTop)
        refused = decision.refused
        title = heading_label(question(human, refused=refused), scale=1.3)
        title.setTextFormat(Qt.TextFormat.PlainText)
        title.setObjectName("approval-title")
        title.setWordWrap(True)
        header.addWidget(title, 1)
        layout.addLayout(header)
        reason = banner(decision.reason, kind="error") if refused else value_label(decision.reason)
        reason.setObjectName("approval-reason")
        layout.addWidget(reason)
        layout.addSpacing(6)

    def _add_run_rows(self, rows: _Rows, prepared: PreparedRun, human: str) -> None:
        """What runs: the skill and its trust, the tool, the argv, folder, timeout, network."""
        skill, tool = prepared.skill, prepared.tool
        trust = _trust_text(skill, trusted=prepared.decision.banner is None)
        rows.add(
            "Skill", value_label(f"{human_title(skill.name)}  ·  {trust}", wrap=False), "skill"
        )
        tool_text = f"**{human}**"
        if tool.description:
            tool_text += f" — {tool.description}"
        tool_label = MarkdownLabel(tool_text)
        tool_label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        rows.add("Tool", tool_label, "tool")
        self._add_details(rows, prepared)
        command = code_box(command_text(prepared.argv), max_lines=5)
        command.setToolTip(
            "The exact arguments, shell-quoted only for reading: gibberish runs the "
            "program directly, without a shell."
        )
        accessibility.name(command, "Command it will run", shlex.join(prepared.argv))
        rows.add("Command", command, "argv")
        rows.add("Folder", value_label(home_short(prepared.cwd), wrap=False), "cwd")
        timeout = "1 second" if prepared.timeout == 1 else f"{prepared.timeout:g} seconds"
        rows.add("Timeout", value_label(timeout, wrap=False), "timeout")
        network = (
            "Yes — this skill says it uses the network"
            if prepared.network
            else "No — the skill does not declare network use"
        )
        rows.add("Network", value_label(network, wrap=False), "network")

    def _add_details(self, rows: _Rows, prepared: PreparedRun) -> None:
        """The tool's id, one click away under *Details* (Alt+D), as in the form: a person
        reads the title first; the id is there for whoever types it or reports it."""
        self.details_button = QToolButton()
        self.details_button.setText("&Details")
        self.details_button.setCheckable(True)
        self.details_button.setToolTip("Show the tool's id (Alt+D)")
        skill = prepared.skill
        version = f" version {skill.version}" if skill.version else ""
        ident = help_label(f"Tool id {prepared.ref} · skill “{skill.name}”{version}")
        ident.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        ident.setObjectName("approval-tool-id")
        ident.hide()
        self.details_button.toggled.connect(ident.setVisible)
        rows.note(self.details_button, "approval-details")
        rows.note(ident)

    def _add_trust_rows(self, rows: _Rows, prepared: PreparedRun) -> None:
        """What the approval covers: where the skill came from, every file "Trust this
        version" covers, changed files and their diff, secrets, programs outside the
        folder, and the script this run starts."""
        if prepared.came_from:
            rows.add("From", value_label(prepared.came_from, wrap=True), "source")
        if prepared.decision.can_always_allow:
            files = code_box("\n".join(prepared.covered_files), max_lines=6)
            accessibility.name(files, "Every file trusting this version covers")
            rows.add("Files", files, "files")
            rows.note(help_label("Trust this version covers exactly these files."))
        changed = prepared.decision.changed_files
        if changed:
            files = code_box("\n".join(changed.lines()), max_lines=6)
            accessibility.name(files, "Files changed since your approval")
            rows.add("Changed", files, "changed")
            rows.note(help_label("Since your last approval: + added, − removed, ~ modified."))
            rows.add("What changed", self._diff_view(prepared), "diff")
        secrets = ", ".join(prepared.secrets) if prepared.secrets else "None"
        rows.add("Secrets", value_label(secrets, wrap=True), "secrets")
        for label, text, name in access_rows(prepared):
            rows.add(label, value_label(text, wrap=True), name)
        programs = programs_outside(prepared)
        if programs:
            rows.add("Also runs", value_label(programs, wrap=True), "programs")
        script = script_of(prepared)
        if script is not None:
            path, text = script
            view = code_box(text, max_lines=8)
            view.setLineWrapMode(view.LineWrapMode.NoWrap)
            view.highlighter = highlighter = ShellHighlighter(view.document(), view.palette())
            highlighter.rehighlight()
            accessibility.name(view, f"Content of {path.name}", "The script this run starts")
            rows.add(path.name, view, "script")

    def _buttons(self, prepared: PreparedRun) -> QHBoxLayout:
        """Trust this version (when offered), Open folder, Cancel, Run once (unless refused)."""
        refused = prepared.decision.refused
        buttons = QHBoxLayout()
        buttons.setSpacing(SPACING)
        self.always_button: QPushButton | None = None
        self.once_button: QPushButton | None = None
        if not refused and prepared.decision.can_always_allow:
            self.always_button = _button(
                "&Trust this version",
                "approval-always",
                "Remember these exact files of the skill; any change to them asks again.",
                self._choose_always,
            )
            buttons.addWidget(self.always_button)
        self.folder_button = _button(
            "Open &folder",
            "approval-open-folder",
            f"Look at every file of the skill: {prepared.skill.directory}",
            self._open_folder,
        )
        buttons.addWidget(self.folder_button)
        buttons.addStretch(1)
        self.cancel_button = _button(
            "&Close" if refused else "&Cancel", "approval-cancel", "Run nothing (Esc)", self.reject
        )
        buttons.addWidget(self.cancel_button)
        if not refused:
            self.once_button = _button(
                "&Run once",
                "approval-once",
                "Run it this one time (Ctrl+Enter); it asks again next time",
                self._choose_once,
            )
            buttons.addWidget(self.once_button)
        return buttons

    def _set_keyboard(self) -> None:
        # Every button is auto-default: the focused one is what Enter presses. With
        # focus anywhere else, Enter presses the default, Cancel.
        for button in (self.always_button, self.cancel_button, self.once_button):
            if button is not None:
                button.setAutoDefault(True)
        self.cancel_button.setDefault(True)
        keyboard_buttons(self)
        for child in self.findChildren(QWidget):  # a focused button would take Ctrl+Enter
            child.installEventFilter(self)
        self.cancel_button.setFocus()

    def _diff_view(self, prepared: PreparedRun) -> QWidget:
        """The changed files' unified diff against the copy kept at approval time."""
        changed = prepared.decision.changed_files
        assert changed is not None
        copy = approved_copies.approved(prepared.skill.directory)
        if copy is None:
            return help_label(
                "No copy of the approved version was kept, so only the names of the "
                "changed files can be shown: open the folder to read them."
            )
        names = [*changed.added, *changed.removed, *changed.modified]
        view = code_box(approved_copies.diff(prepared.skill.directory, names, copy), max_lines=10)
        view.setLineWrapMode(view.LineWrapMode.NoWrap)
        accessibility.name(view, "What changed since your approval")
        return view

    def _open_folder(self) -> None:
        self.open_folder(self.prepared.skill.directory)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Ctrl+Enter is "Run once" wherever the focus is."""
        if (
            event.type() == QEvent.Type.KeyPress
            and self.once_button is not None
            and isinstance(event, QKeyEvent)
            and event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            and event.modifiers() & Qt.KeyboardModifier.ControlModifier
        ):
            self.once_button.click()
            return True
        return super().eventFilter(watched, event)

    # Bound methods, not lambdas: a lambda capturing ``self`` connected to a child's
    # signal can release the dialog's last reference while that child is being destroyed.
    def _choose_once(self) -> None:
        self.answer = Answer.ONCE
        self.accept()

    def _choose_always(self) -> None:
        self.answer = Answer.ALWAYS
        self.accept()

    def reject(self) -> None:
        self.answer = Answer.CANCEL
        super().reject()


def script_of(prepared: PreparedRun) -> tuple[Path, str] | None:
    """The first file of the skill's folder that the argv names, with its text (a
    script the run starts: ``./large.sh``, ``python3 scripts/x.py``)."""
    folder = prepared.skill.directory.resolve()
    for arg in prepared.argv:
        path = Path(arg) if Path(arg).is_absolute() else prepared.cwd / arg
        try:
            inside = path.resolve().is_relative_to(folder)
        except (OSError, ValueError):
            continue
        if inside and path.name != "SKILL.md":
            text = approved_copies.read_text(path, 64 * 1024)
            if text is not None:
                return path, text
    return None


def asks_again(prepared: PreparedRun) -> str:
    """When this skill will ask next time (``PreparedRun.asks_again``, the same sentence
    the command line prints), and what each button does about it."""
    rule = prepared.asks_again
    if prepared.decision.can_always_allow:
        return (
            f"Trust this version: remembers these exact files. {rule} "
            "Run once: this time only; next time it asks for approval again."
        )
    if prepared.decision.banner:
        return f"{rule} Run once runs it this time only."
    return rule


class ApprovalPrompter:
    """Shows the dialog modally and returns the answer (the seam tests replace).

    "Trust this version" is recorded by the Engine (``engine.trust.approve_prepared``),
    which also keeps the copy of the skill's text files a later change is diffed against."""

    def ask(self, prepared: PreparedRun, parent: QWidget | None = None) -> Answer:
        dialog = ApprovalDialog(prepared, parent)
        try:
            place(dialog)
            dialog.exec()
            return dialog.answer
        finally:
            dialog.deleteLater()


def programs_outside(prepared: PreparedRun) -> str:
    """The programs outside the skill folder this tool starts, one a line
    (``PreparedRun.also_runs``)."""
    return "\n".join(prepared.also_runs)


def access_rows(prepared: PreparedRun) -> list[tuple[str, str, str]]:
    """Rows for what the run may reach beyond its folder (``PreparedRun.reaches``: the
    display, declared credentials, paths outside the project a model chose); each row's
    value is named ``approval-<key>``."""
    rows = []
    for reach in prepared.reaches:
        what = "\n".join(reach.what) if reach.key == "reads-outside" else ", ".join(reach.what)
        rows.append(
            (
                reach.title,
                f"{what.capitalize() if reach.key == 'gui' else what} — {reach.why}",
                reach.key,
            )
        )
    return rows


def _trust_text(skill: SkillDefinition, *, trusted: bool) -> str:
    """Where the skill comes from, in a few words; an untrusted project's skill names it,
    and an installed one says whether this version is trusted."""
    from gibberish.trust.projects import untrusted_project_of

    if skill.trust is Trust.UNTRUSTED:
        project = untrusted_project_of(skill.directory)
        if project is not None:
            return f"untrusted — came with the project folder {home_short(project)}"
        if trusted:
            return TRUSTED_INSTALL_TEXT
    return TRUST_TEXT.get(skill.trust, skill.trust.value)
