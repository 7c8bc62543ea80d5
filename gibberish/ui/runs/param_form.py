"""The parameter form: one dialog per tool, generated from its ``#### Parameters`` table.

Each type gets the widget that cannot hold a wrong value: a line edit for strings, a
spin box for integers and numbers, a check box for booleans, and a plain-text box with
one item per line for arrays. Required fields are marked and must be filled before
"Run" is enabled; defaults are prefilled and descriptions are shown under each field.

The preview under the fields is the exact argv that will run, rendered by the Engine on
every change (the same code the run uses), and a render error — a missing value, a value
that would be read as an option — is shown right there, naming the field.

``prefilled`` values (a typed request, a model's proposal) override defaults, so a
proposal from a model is something the person sees and can correct before it runs. A
proposal comes with a ``note`` (shown at the top: who proposed it, for which request) and
the ``missing`` required fields the model did not fill, which stay marked until filled.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QDoubleSpinBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from gibberish.skills.model import (
    ParameterDefinition,
    ParameterType,
    SkillDefinition,
    ToolDefinition,
    tool_ref,
)
from gibberish.ui import accessibility, icons, theme
from gibberish.ui.formatting import (
    command_text,
    human_title,
    param_hint,
    param_label,
    plain_text,
    plain_tooltip,
    readable_command,
)
from gibberish.ui.placement import place
from gibberish.ui.runs.folder_row import FolderRow
from gibberish.ui.widgets import (
    MARGIN,
    SPACING,
    PlainLabel,
    app_palette,
    banner,
    code_box,
    fit_to_width,
    heading_label,
    help_label,
    keyboard_buttons,
    mnemonic_buttons,
    mono_font,
    set_tone,
)

if TYPE_CHECKING:
    from gibberish.engine.run_flow import FolderOffer

INT_MIN, INT_MAX = -(2**31), 2**31 - 1
NUMBER_LIMIT = 1e12

Renderer = Callable[[Mapping[str, Any]], Sequence[str]]
"""Turns the form's values into the argv (``engine.render`` bound to the tool)."""

_TRUE = {"true", "yes", "1", "on"}
_FALSE = {"false", "no", "0", "off"}


class PrefillError(ValueError):
    pass


def _as_bool(value: Any) -> bool:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in _TRUE:
        return True
    if text in _FALSE:
        return False
    raise PrefillError(f"{value!r} is not true or false")


def _as_int(value: Any) -> int:
    if isinstance(value, bool):
        raise PrefillError(f"{value!r} is not a whole number")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    try:
        return int(str(value).strip())
    except ValueError:
        raise PrefillError(f"{value!r} is not a whole number") from None


def _as_float(value: Any) -> float:
    if isinstance(value, bool):
        raise PrefillError(f"{value!r} is not a number")
    try:
        return float(value)
    except (TypeError, ValueError):
        raise PrefillError(f"{value!r} is not a number") from None


def _as_list(value: Any) -> list[str]:
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    return [line for line in str(value).splitlines() if line.strip()]


def _editor_for(kind: ParameterType, on_change: Callable[[], None]) -> QWidget:
    """The widget that edits a value of ``kind``, reporting each change."""
    if kind is ParameterType.INTEGER:
        spin = QSpinBox()
        spin.setRange(INT_MIN, INT_MAX)
        spin.setAccelerated(True)
        spin.valueChanged.connect(on_change)
        return spin
    if kind is ParameterType.NUMBER:
        dspin = QDoubleSpinBox()
        dspin.setRange(-NUMBER_LIMIT, NUMBER_LIMIT)
        dspin.setDecimals(3)
        dspin.setStepType(QAbstractSpinBox.StepType.AdaptiveDecimalStepType)
        dspin.valueChanged.connect(on_change)
        return dspin
    if kind is ParameterType.BOOLEAN:
        box = QCheckBox("Yes")
        box.toggled.connect(on_change)
        return box
    if kind is ParameterType.ARRAY:
        text = QPlainTextEdit()
        text.setPlaceholderText("One item per line")
        text.setTabChangesFocus(True)
        text.textChanged.connect(on_change)
        text.setFixedHeight(4 * text.fontMetrics().lineSpacing() + 14)
        return text
    line = QLineEdit()
    line.textChanged.connect(on_change)
    return line


class _Field:
    """One parameter's widget(s) and how to read and write its value."""

    def __init__(self, param: ParameterDefinition, on_change: Callable[[], None]) -> None:
        self.param = param
        self.include: QCheckBox | None = None
        self.editor: QWidget = _editor_for(param.type, on_change)
        self.editor.setObjectName(f"param-{param.name}")
        words = param_label(param)
        accessibility.name(
            self.editor, f"{words}, required" if param.required else words, param.description
        )
        if param.description:
            self.editor.setToolTip(plain_tooltip(param.description))
        optional_number = (
            param.type in (ParameterType.INTEGER, ParameterType.NUMBER)
            and not param.required
            and param.default is None
        )
        self.widget: QWidget = self._with_include(on_change) if optional_number else self.editor
        if param.default is not None:
            self.set(param.default)

    def _with_include(self, on_change: Callable[[], None]) -> QWidget:
        """An optional number without a default: a tick box says whether to pass it."""
        name = self.param.name
        self.include = QCheckBox()
        self.include.setObjectName(f"param-{name}-set")
        accessibility.name(self.include, f"Pass {name}")
        self.include.setToolTip("Tick to pass a value; unticked, the tool's own default applies.")
        self.include.toggled.connect(self.editor.setEnabled)
        self.include.toggled.connect(on_change)
        self.editor.setEnabled(False)
        row = QWidget()
        layout = QHBoxLayout(row)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.include)
        layout.addWidget(self.editor, 1)
        return row

    # -------------------------------------------------------------- values
    def set(self, value: Any) -> None:
        """Put ``value`` into the widget; raises ``PrefillError`` when it does not fit."""
        editor, kind = self.editor, self.param.type
        if kind is ParameterType.INTEGER:
            number = _as_int(value)
            if not INT_MIN <= number <= INT_MAX:
                raise PrefillError(f"{value!r} is out of range")
            assert isinstance(editor, QSpinBox)
            editor.setValue(number)
        elif kind is ParameterType.NUMBER:
            real = _as_float(value)
            assert isinstance(editor, QDoubleSpinBox)
            text = repr(real)
            if "." in text and "e" not in text:
                editor.setDecimals(min(max(3, len(text.split(".")[1])), 8))
            editor.setValue(real)
        elif kind is ParameterType.BOOLEAN:
            assert isinstance(editor, QCheckBox)
            editor.setChecked(_as_bool(value))
        elif kind is ParameterType.ARRAY:
            assert isinstance(editor, QPlainTextEdit)
            editor.setPlainText("\n".join(_as_list(value)))
        else:
            assert isinstance(editor, QLineEdit)
            editor.setText("" if value is None else str(value))
        if self.include is not None:
            self.include.setChecked(True)

    def present(self) -> bool:
        """Whether the field has a value to pass (an empty optional field passes nothing)."""
        if self.include is not None:
            return self.include.isChecked()
        editor, kind = self.editor, self.param.type
        if kind is ParameterType.STRING:
            assert isinstance(editor, QLineEdit)
            return editor.text() != ""
        if kind is ParameterType.ARRAY:
            return bool(self.items())
        if kind is ParameterType.BOOLEAN and not self.param.required and self.param.default is None:
            assert isinstance(editor, QCheckBox)
            return editor.isChecked()
        return True

    def items(self) -> list[str]:
        assert isinstance(self.editor, QPlainTextEdit)
        return [line for line in self.editor.toPlainText().splitlines() if line.strip()]

    def value(self) -> Any:
        editor, kind = self.editor, self.param.type
        if isinstance(editor, QSpinBox):
            return editor.value()
        if isinstance(editor, QDoubleSpinBox):
            return editor.value()
        if isinstance(editor, QCheckBox):
            return editor.isChecked()
        if kind is ParameterType.ARRAY:
            return self.items()
        assert isinstance(editor, QLineEdit)
        return editor.text()

    def mark(self, bad: bool) -> None:
        self.editor.setProperty("invalid", bad)
        colour = theme.css(theme.foreground(app_palette(), "error"))
        self.editor.setStyleSheet(f"border: 1px solid {colour}; border-radius: 3px;" if bad else "")


class ParameterForm(QDialog):
    """Ask for a tool's arguments; ``values()`` after ``exec()`` returned Accepted."""

    def __init__(
        self,
        skill: SkillDefinition,
        tool: ToolDefinition,
        render: Renderer,
        *,
        prefilled: Mapping[str, Any] | None = None,
        note: str = "",
        missing: Sequence[str] = (),
        folder: FolderOffer | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.setObjectName("parameter-form")
        human = human_title(tool.name)
        self.setWindowTitle(f"{human} — gibberish")
        self.setWindowIcon(icons.app_icon())
        self.skill = skill
        self.tool = tool
        self._render = render
        self.fields: dict[str, _Field] = {}
        self.prefill_problems: list[str] = []
        self.argv: list[str] | None = None
        self.error: str | None = None
        self.attention = [n for n in missing if n in {p.name for p in tool.parameters}]
        """Fields to mark until they are filled (what a model's proposal left out)."""
        self._ready = False  # fields emit changes while they are built

        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING)
        self._add_heading(layout, human, note)
        self.folder_row: FolderRow | None = None
        if folder is not None:
            self.folder_row = FolderRow(tool, human, folder, tool_ref(skill.name, tool.name))
            self.folder_row.changed.connect(self._changed)
            layout.addWidget(self.folder_row)
        layout.addLayout(self._field_rows())
        if any(p.required for p in tool.parameters):
            layout.addWidget(help_label("Fields marked * are required."))
        self._add_preview(layout)
        self._add_buttons(layout)
        self._prefill(layout, prefilled or {})
        self.setMinimumWidth(500)
        self._start_editing()

    def _add_heading(self, layout: QVBoxLayout, human: str, note: str) -> None:
        """The tool's title and description, and the note of who proposed the values."""
        tool = self.tool
        title = heading_label(human)
        title.setObjectName("form-title")
        title.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(title)
        about = PlainLabel(plain_text(tool.description))
        about.setWordWrap(True)
        about.setObjectName("form-description")
        layout.addWidget(about)
        self.note: QLabel | None = None
        if note:
            self.note = banner(note, kind="info")
            self.note.setObjectName("form-note")
            layout.addWidget(self.note)

    def _field_rows(self) -> QFormLayout:
        """A labelled row per parameter (bold with * when required), with its hint."""
        form = QFormLayout()
        form.setSpacing(SPACING)
        form.setVerticalSpacing(SPACING + 2)
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.ExpandingFieldsGrow)
        form.setLabelAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignTop)
        for param in self.tool.parameters:
            f = _Field(param, self._changed)
            self.fields[param.name] = f
            words = param_label(param)
            label = PlainLabel(f"{words} *" if param.required else words)
            label.setObjectName(f"label-{param.name}")
            label.setBuddy(f.editor)
            if param.required:
                bold = label.font()
                bold.setBold(True)
                label.setFont(bold)
                label.setToolTip("Required")
            box = QWidget()
            box.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
            box_layout = QVBoxLayout(box)
            box_layout.setContentsMargins(0, 0, 0, 0)
            box_layout.setSpacing(2)
            box_layout.addWidget(f.widget)
            hint = self._hint(param)
            if hint:
                box_layout.addWidget(help_label(hint))
            form.addRow(label, box)
        return form

    def _add_preview(self, layout: QVBoxLayout) -> None:
        """The command as a person reads it (``git log -n 10``), the exact arguments one
        click away under *Details* (with the tool's id), and the line saying what is
        wrong or missing."""
        row = QHBoxLayout()
        self.preview_label = PlainLabel("Will run:")
        row.addWidget(self.preview_label)
        self.readable = PlainLabel("")
        self.readable.setObjectName("form-command")
        self.readable.setFont(mono_font())
        self.readable.setWordWrap(True)
        self.readable.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        row.addWidget(self.readable, 1)
        self.details_button = QToolButton()
        self.details_button.setObjectName("form-details")
        self.details_button.setText("&Details")
        self.details_button.setCheckable(True)
        self.details_button.setToolTip("Show the exact arguments and the tool's id (Alt+D)")
        row.addWidget(self.details_button)
        layout.addLayout(row)
        self.details = QWidget()
        details = QVBoxLayout(self.details)
        details.setContentsMargins(0, 0, 0, 0)
        details.setSpacing(2)
        ident = help_label(
            f"Tool id {tool_ref(self.skill.name, self.tool.name)} · skill “{self.skill.name}”"
        )
        ident.setObjectName("form-tool-id")
        details.addWidget(ident)
        self.preview = code_box("", max_lines=5)
        self.preview.setObjectName("form-preview")
        accessibility.name(self.preview, "Exact arguments that will run")
        self.preview.setToolTip(
            "The exact arguments, shell-quoted only for reading; no shell is involved."
        )
        details.addWidget(self.preview)
        self.details.hide()
        self.details_button.toggled.connect(self.details.setVisible)
        layout.addWidget(self.details)
        self.error_label = PlainLabel()
        self.error_label.setObjectName("form-error")
        self.error_label.setWordWrap(True)
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        set_tone(self.error_label, None)
        self.error_label.hide()
        layout.addWidget(self.error_label)

    def _add_buttons(self, layout: QVBoxLayout) -> None:
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.ok_button = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        self.ok_button.setText("&Run")
        self.ok_button.setObjectName("form-run")
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setObjectName("form-cancel")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        keys = "Enter runs · Esc goes back"
        if self.folder_row is not None:
            keys += " · Alt+F folder"
        keys += " · Alt+D details"
        self.keys = help_label(keys)
        self.keys.setObjectName("form-keys")
        layout.addWidget(self.buttons)
        layout.addWidget(self.keys)
        mnemonic_buttons(self)
        keyboard_buttons(self)

    def _prefill(self, layout: QVBoxLayout, prefilled: Mapping[str, Any]) -> None:
        """Put proposed values in; a value that does not fit is listed, not guessed."""
        for name, value in prefilled.items():
            f = self.fields.get(name)
            if f is None:
                self.prefill_problems.append(f"“{name}” is not a parameter of {self.tool.name}.")
                continue
            try:
                f.set(value)
            except PrefillError as exc:
                self.prefill_problems.append(f"{name}: {exc}; please enter it.")
        if self.prefill_problems:
            notes = help_label("Not filled in: " + " ".join(self.prefill_problems))
            notes.setObjectName("form-prefill-problems")
            layout.insertWidget(3 if self.note is not None else 2, notes)

    def _start_editing(self) -> None:
        """Check the values once, then watch the keys; focus the first field to fill."""
        self._ready = True
        self._touched = False
        """Whether the person changed a field or tried to run: only then is a missing
        required field an error (red) rather than a reminder (muted)."""
        self._changed()
        self._touched_on_change = True
        for f in self.fields.values():
            f.editor.installEventFilter(self)
            if f.include is not None:
                f.include.installEventFilter(self)
        fit_to_width(self, 560)
        first = next(
            (self.fields[n] for n in self.attention), next(iter(self.fields.values()), None)
        )
        self._first = first
        self.focus_first()

    def focus_first(self) -> None:
        """The focus on the first field to fill, its value selected: a value typed
        replaces the one remembered (also after the form moved into another window)."""
        first = self._first
        if first is None:
            return
        first.editor.setFocus()
        select = getattr(first.editor, "selectAll", None)
        if select is not None and not isinstance(first.editor, QPlainTextEdit):
            select()

    @staticmethod
    def _hint(param: ParameterDefinition) -> str:
        rest = param_hint(param)
        parts = [rest] if rest else []
        if param.type is ParameterType.ARRAY:
            parts.append("One item per line.")
        if param.default is not None and param.type is not ParameterType.BOOLEAN:
            default = param.default
            if isinstance(default, list | tuple):
                default = ", ".join(map(str, default))
            parts.append(f"Default: {default}.")
        return " ".join(parts)

    # -------------------------------------------------------------- state
    def values(self) -> dict[str, Any]:
        """The arguments the form would pass: only fields that have a value."""
        return {name: f.value() for name, f in self.fields.items() if f.present()}

    def missing(self) -> list[str]:
        return [n for n, f in self.fields.items() if f.param.required and not f.present()]

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Enter in any field runs (a check box must not tick instead, whatever the
        style); in a list field, where Enter starts a new line, Ctrl+Enter runs."""
        if event.type() == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            enter = event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter)
            ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
            if enter and (ctrl or not isinstance(watched, QPlainTextEdit)):
                self.try_run()
                return True
        return super().eventFilter(watched, event)

    def try_run(self) -> None:
        """Run when every required field is filled; otherwise say what is missing."""
        self._touched = True
        self._changed()
        if self.ok_button.isEnabled():
            self.ok_button.click()

    def _changed(self) -> None:
        if not self._ready:
            return
        if getattr(self, "_touched_on_change", False):
            self._touched = True
        missing = self.missing()
        for name, f in self.fields.items():
            f.mark(name in self.attention and not f.present())
        self._render_preview(missing)
        message = self.error if self.error and not missing else None
        if missing:
            labels = [param_label(self.fields[n].param) for n in missing]
            message = f"Still to fill in: {', '.join(labels)}."
        lacking = self.folder_row.lacking() if self.folder_row is not None else ""
        self.error_label.setText(message or "")
        self.error_label.setVisible(bool(message))
        set_tone(self.error_label, "error" if self._touched or not missing else None)
        self.ok_button.setEnabled(not missing and self.argv is not None and not lacking)

    def chosen_folder(self) -> Path | None:
        """The working folder the person settled on (None: no folder row)."""
        return self.folder_row.folder if self.folder_row is not None else None

    def _render_preview(self, missing: list[str]) -> None:
        """Render the argv from the values now (``argv``, or ``error`` saying why not)."""
        self.argv = None
        self.error = None
        try:
            self.argv = list(self._render(self.values()))
        except Exception as exc:  # RenderError / EngineError: shown inline, never raised
            self.error = str(getattr(exc, "message", None) or exc)
            bad = getattr(exc, "parameter", None)
            if bad in self.fields and bad not in missing:
                self.fields[bad].mark(True)
        if self.argv is not None:
            self.preview.setPlainText(command_text(self.argv))
            self.readable.setText(readable_command(self.tool, self.argv))
            return
        self.preview.setPlainText("")
        self.readable.setText("")
        if missing:
            self.preview.setPlaceholderText("Fill in the required fields to see the command.")


class FormPrompter:
    """Shows the form modally and returns the arguments, or None when cancelled (the test seam)."""

    def ask(
        self,
        skill: SkillDefinition,
        tool: ToolDefinition,
        render: Renderer,
        prefilled: Mapping[str, Any] | None = None,
        parent: QWidget | None = None,
        *,
        note: str = "",
        missing: Sequence[str] = (),
        folder: FolderOffer | None = None,
    ) -> dict[str, Any] | None:
        from gibberish.engine.run_flow import ChosenArguments
        from gibberish.ui.runs import form_memory

        ref = tool_ref(skill.name, tool.name)
        values = form_memory.starting_values(ref, (p.name for p in tool.parameters), prefilled)
        form = ParameterForm(
            skill,
            tool,
            render,
            prefilled=values,
            note=note,
            missing=missing,
            folder=folder,
            parent=parent,
        )
        try:
            place(form)
            if form.exec() == QDialog.DialogCode.Accepted:
                form_memory.remember(ref, form.values())
                chosen = ChosenArguments(form.values())
                chosen.folder = form.chosen_folder()
                return chosen
            return None
        finally:
            form.deleteLater()
