"""The form and the approval asked in the command bar's window, not in dialogs of their own.

``Session.launch`` asks for arguments and for an approval through two prompts
(``ArgumentsPrompt``, ``ApprovalPrompt``) and waits for the answers. These two answer
them in the one window (``steps.Steps.run``): the same ``ParameterForm`` and
``ApprovalDialog`` widgets, with the same content and keys, shown where the search was.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from gibberish.engine.run_flow import Answer, ChosenArguments

if TYPE_CHECKING:
    from gibberish.engine.core import PreparedRun
    from gibberish.engine.run_flow import FolderOffer
    from gibberish.skills.model import SkillDefinition, ToolDefinition
    from gibberish.ui.command_bar.bar import CommandBar


class WindowForms:
    """The parameter form as a step of the window; the last values are remembered."""

    def __init__(self, bar: Callable[[], CommandBar]) -> None:
        self._bar = bar

    def ask(
        self,
        skill: SkillDefinition,
        tool: ToolDefinition,
        render: Callable[[Mapping[str, Any]], Sequence[str]],
        prefilled: Mapping[str, Any] | None = None,
        parent: Any = None,
        *,
        note: str = "",
        missing: Sequence[str] = (),
        folder: FolderOffer | None = None,
    ) -> dict[str, Any] | None:
        from PySide6.QtWidgets import QDialog

        from gibberish.skills.model import tool_ref
        from gibberish.ui.runs import form_memory
        from gibberish.ui.runs.param_form import ParameterForm

        ref = tool_ref(skill.name, tool.name)
        values = form_memory.starting_values(ref, (p.name for p in tool.parameters), prefilled)
        bar = self._bar()
        form = ParameterForm(
            skill, tool, render, prefilled=values, note=note, missing=missing, folder=folder
        )
        try:
            if bar.steps.run(form, bar.show_step) != QDialog.DialogCode.Accepted.value:
                return None
            chosen = ChosenArguments(form.values())
            chosen.folder = form.chosen_folder()
            form_memory.remember(ref, dict(chosen))
            return chosen
        finally:
            form.deleteLater()


class WindowApprovals:
    """The approval as a step of the window: everything the dialog shows, Cancel first."""

    def __init__(self, bar: Callable[[], CommandBar]) -> None:
        self._bar = bar

    def ask(self, prepared: PreparedRun, parent: Any = None) -> Answer:
        from gibberish.ui.approval.dialog import ApprovalDialog

        bar = self._bar()
        dialog = ApprovalDialog(prepared)
        try:
            bar.steps.run(dialog, bar.show_step)
            return dialog.answer
        finally:
            dialog.deleteLater()
