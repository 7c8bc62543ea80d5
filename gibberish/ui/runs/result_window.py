"""The window that shows one run: status, exit code, duration, and the output as it arrives.

Output streams into a ``StreamedOutput`` (throttled and bounded, so a tool that prints
100 MB cannot freeze the tray). The full output stays in the run's log file, one click
away ("Show full output").

When the run ends, the view shows the authoritative result: pretty-printed JSON when the
tool printed a JSON document, the exact output when it was not truncated, and otherwise
the streamed tail with a notice saying how much there was.

Keyboard: Enter (or Space) presses the focused button; Ctrl+. and Ctrl+C (when no text
is selected) cancel a running tool; Esc closes the window. When a run ends while "Cancel
run" has the focus, the focus moves to the output, not to "Close": a Space meant for
Cancel must not close the window.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import QElapsedTimer, QEvent, QObject, Qt, QTimer, QUrl, Signal
from PySide6.QtGui import (
    QCloseEvent,
    QDesktopServices,
    QGuiApplication,
    QKeyEvent,
    QKeySequence,
    QShortcut,
    QShowEvent,
)
from PySide6.QtWidgets import QHBoxLayout, QPushButton, QVBoxLayout, QWidget

from gibberish.ui import icons
from gibberish.ui.formatting import command_text as formatted_command
from gibberish.ui.formatting import (
    first_line,
    home_short,
    human_bytes,
    human_duration,
    plain_text,
    readable_command,
    summary_line,
    title_of_ref,
)
from gibberish.ui.placement import place
from gibberish.ui.runs.bridge import VIEW_LIMIT, OutputTail
from gibberish.ui.runs.streamed_output import StreamedOutput
from gibberish.ui.widgets import (
    MARGIN,
    SPACING,
    PlainLabel,
    banner,
    command_label,
    heading_label,
    help_label,
    keyboard_buttons,
    set_status_pill,
    status_pill,
)

if TYPE_CHECKING:
    from gibberish.runner.envelope import RunResult
    from gibberish.skills.model import ToolDefinition

__all__ = ["ResultWindow", "first_line", "summary_line"]


def _button(text: str, name: str, tip: str, clicked: Callable[[], object]) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    if tip:
        button.setToolTip(tip)
    button.clicked.connect(clicked)
    return button


class ResultWindow(QWidget):
    """One run's window. Closing it while the tool runs only hides it."""

    closed = Signal()

    def __init__(
        self,
        title: str,
        argv: Sequence[str],
        *,
        cwd: Path | None = None,
        description: str = "",
        tool: ToolDefinition | None = None,
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        self.setObjectName("result-window")
        self.setWindowIcon(icons.app_icon())
        self.status = "pending"
        self.result: RunResult | None = None
        self.open_path: Callable[[Path], object] = lambda p: QDesktopServices.openUrl(
            QUrl.fromLocalFile(str(p))
        )
        self._cancel: Callable[[], None] | None = None
        self._log_path: Path | None = None
        self._placed = False
        self._clock = QElapsedTimer()
        self._clock_timer = QTimer(self)
        self._clock_timer.setInterval(250)
        self._clock_timer.timeout.connect(self._update_facts)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING)
        self._add_heading(layout)
        self._add_banners(layout)
        self.output = StreamedOutput()
        self.view = self.output.view
        layout.addWidget(self.view, 1)
        layout.addLayout(self._buttons())
        self.keys = help_label("Esc back · Ctrl+. stop · Ctrl+R run again · Ctrl+W own window")
        self.keys.setObjectName("result-keys")
        self.keys.hide()
        layout.addWidget(self.keys)
        self._run_again: Callable[[], object] | None = None
        self._detach: Callable[[], object] | None = None
        self._in_window_keys = False
        QShortcut(QKeySequence(QKeySequence.StandardKey.Cancel), self).activated.connect(self.close)
        QShortcut(QKeySequence("Ctrl+."), self).activated.connect(self.request_cancel)
        self.view.installEventFilter(self)
        keyboard_buttons(self)
        self.resize(720, 460)
        self.fill(title, argv, cwd=cwd, description=description, tool=tool)

    def fill(
        self,
        title: str,
        argv: Sequence[str],
        *,
        cwd: Path | None = None,
        description: str = "",
        tool: ToolDefinition | None = None,
    ) -> None:
        """Say which run this window shows: the tool's title, description, command and
        folder. Called once, before the window is shown (a window made ahead for the next
        run is filled when the run starts)."""
        self.tool = tool
        self.title = title
        self.argv = tuple(argv)
        self._cwd = cwd
        self.human = title_of_ref(title)
        self.setWindowTitle(f"{self.human} — result — gibberish")
        self._heading.setText(self.human)
        self._heading.setToolTip(title)
        self._about.setText(plain_text(description))
        self._about.setVisible(bool(description))
        command_text = readable_command(self.tool, self.argv) if self.argv else ""
        self._command.setText(command_text)
        self._command.setToolTip(
            f"Tool id {title}. Exact arguments: {formatted_command(self.argv)} "
            "(shell-quoted here only for reading; gibberish never runs a shell)."
        )
        self._command.setVisible(bool(command_text))
        self._update_facts()

    def _add_heading(self, layout: QVBoxLayout) -> None:
        """The title with the status pill, the description, the command, the facts (their
        text comes from ``fill``)."""
        top = QHBoxLayout()
        top.setSpacing(SPACING)
        self._heading = heading_label("")
        self._heading.setTextFormat(Qt.TextFormat.PlainText)
        self._heading.setObjectName("result-title")
        top.addWidget(self._heading)
        top.addStretch(1)
        self._pill = status_pill(self.status)
        top.addWidget(self._pill, 0, Qt.AlignmentFlag.AlignVCenter)
        layout.addLayout(top)
        self._about = PlainLabel("")
        self._about.setWordWrap(True)
        self._about.setObjectName("result-description")
        layout.addWidget(self._about)
        self._command = command_label("")
        self._command.setObjectName("result-command")
        layout.addWidget(self._command)
        self._facts = help_label("")
        self._facts.setObjectName("result-facts")
        layout.addWidget(self._facts)

    def _add_banners(self, layout: QVBoxLayout) -> None:
        """The error banner and the "output was cut" notice, hidden until needed."""
        self._error = banner("", kind="error")
        self._error.setObjectName("result-error")
        self._error.hide()
        layout.addWidget(self._error)
        notice_row = QWidget()
        notice_layout = QHBoxLayout(notice_row)
        notice_layout.setContentsMargins(0, 0, 0, 0)
        self._notice = banner("", kind="info")
        self._notice.setObjectName("result-truncated")
        notice_layout.addWidget(self._notice, 1)
        self._notice_row = notice_row
        notice_row.hide()
        layout.addWidget(notice_row)

    def _buttons(self) -> QHBoxLayout:
        """Copy, Show full output (once there is a log), Cancel run (while running), Close."""
        buttons = QHBoxLayout()
        buttons.setSpacing(SPACING)
        self.back_button = _button(
            "← &Back", "result-back", "Back to the list of tools (Esc); a run goes on", self.close
        )
        self.back_button.hide()
        buttons.addWidget(self.back_button)
        self.copy_button = _button(
            "Cop&y output",
            "result-copy",
            "Copy the output shown above to the clipboard",
            self.copy_output,
        )
        buttons.addWidget(self.copy_button)
        self.full_button = _button(
            "Show &full output",
            "result-full-output",
            "Open the run's complete log file",
            self.show_full_output,
        )
        self.full_button.hide()
        buttons.addWidget(self.full_button)
        buttons.addStretch(1)
        self.detach_button = _button(
            "Own &window",
            "result-detach",
            "Keep this result in a window of its own (Ctrl+W)",
            self._detach_clicked,
        )
        self.detach_button.hide()
        buttons.addWidget(self.detach_button)
        self.cancel_button = _button(
            "&Stop",
            "result-cancel",
            "Stop the tool and every process it started (Ctrl+. or Ctrl+C)",
            self.request_cancel,
        )
        self.cancel_button.hide()
        buttons.addWidget(self.cancel_button)
        self.again_button = _button(
            "Run &again",
            "result-again",
            "Run the same tool again with the same values and folder (Ctrl+R)",
            self._again_clicked,
        )
        self.again_button.hide()
        buttons.addWidget(self.again_button)
        self.close_button = _button("&Close", "result-close", "", self.close)
        buttons.addWidget(self.close_button)
        return buttons

    # ------------------------------------------------------------------ in the one window
    def in_window(
        self, *, run_again: Callable[[], object] | None, detach: Callable[[], object]
    ) -> None:
        """Shown as a step of the command bar's window: Back (Esc) instead of Close, Run
        again when the run can be repeated, and Own window to detach it."""
        self._run_again = run_again
        self._detach = detach
        self.back_button.show()
        self.close_button.hide()
        self.detach_button.show()
        self.again_button.setVisible(run_again is not None)
        self.again_button.setEnabled(self.status != "running")
        self.keys.show()
        if not self._in_window_keys:
            self._in_window_keys = True
            QShortcut(QKeySequence("Ctrl+R"), self).activated.connect(self._again_clicked)
            QShortcut(QKeySequence("Ctrl+W"), self).activated.connect(self._detach_clicked)

    def detached(self) -> None:
        """Now a window of its own: Close again, no Back or Own window."""
        self.back_button.hide()
        self.detach_button.hide()
        self.close_button.show()
        self.keys.hide()

    def _again_clicked(self) -> None:
        if (
            self._run_again is not None
            and self.status != "running"
            and self.again_button.isVisible()
        ):
            self._run_again()

    def _detach_clicked(self) -> None:
        if self._detach is not None and self.detach_button.isVisible():
            self._detach()

    # ------------------------------------------------------------------ running
    def set_running(self, tail: OutputTail, cancel: Callable[[], None] | None) -> None:
        """Start showing a live run whose output arrives in ``tail``."""
        self.output.tail = tail
        self._cancel = cancel
        self._set_status("running")
        self.cancel_button.setVisible(cancel is not None)
        self.cancel_button.setEnabled(True)
        self._clock.start()
        self._clock_timer.start()
        self._update_facts()
        if tail.total:
            self.output_arrived()

    def output_arrived(self) -> None:
        """New output is waiting; it reaches the view within ``FLUSH_MS``."""
        self.output.arrived()

    def flush(self) -> None:
        """Move pending output into the view now."""
        self.output.flush()

    @property
    def _shown(self) -> str:
        """The text the view shows, as the window knows it."""
        return self.output.shown

    def request_cancel(self) -> None:
        if self._cancel is not None and self.status == "running":
            self._focus_off_cancel()  # a disabled button passes its focus on: to Close
            self.cancel_button.setEnabled(False)
            self.cancel_button.setText("Cancelling…")
            self._cancel()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        """Ctrl+C in the output copies a selection; with nothing selected it cancels."""
        if (
            watched is self.view
            and event.type() == QEvent.Type.KeyPress
            and isinstance(event, QKeyEvent)
            and event.matches(QKeySequence.StandardKey.Copy)
            and not self.view.textCursor().hasSelection()
            and self.status == "running"
        ):
            self.request_cancel()
            return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        """Enter on a focused button presses it (a window is not a dialog: Qt would not)."""
        focused = self.focusWidget()
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and isinstance(
            focused, QPushButton
        ):
            if focused.isEnabled() and focused.isVisible():
                focused.click()
            return
        if event.matches(QKeySequence.StandardKey.Copy) and self.status == "running":
            self.request_cancel()
            return
        super().keyPressEvent(event)

    def _focus_off_cancel(self) -> None:
        """If "Cancel run" has the focus, give it to the output, never to Close."""
        if self.cancel_button.hasFocus():
            self.view.setFocus(Qt.FocusReason.OtherFocusReason)

    def _leave_cancel(self) -> None:
        self._focus_off_cancel()
        self.cancel_button.hide()

    # ------------------------------------------------------------------ finished
    def finish(self, result: RunResult) -> None:
        """Show the final envelope (called on the GUI thread, after the last output)."""
        self.flush()
        self.result = result
        self._clock_timer.stop()
        self.output.stop()
        envelope = result.envelope
        self._log_path = result.log_path
        self._set_status(result.status.value)
        self._leave_cancel()
        self.again_button.setEnabled(True)
        self.view.setPlaceholderText("No output")
        if not envelope.success and envelope.error:
            self._error.setText(envelope.error)
            self._error.show()
        output = self.output
        streamed = output.streamed
        if envelope.has_parsed:
            output.show_text(json.dumps(envelope.parsed, indent=2, ensure_ascii=False))
        elif not envelope.truncated or streamed == 0 or not output.shown:
            output.show_text(envelope.output)
        # The view misses part of the output when the envelope's head+tail is shown, or
        # when streaming skipped or trimmed text to stay responsive.
        incomplete = envelope.truncated and (
            streamed == 0 or output.skipped > 0 or output.trimmed > 0 or not output.shown
        )
        if incomplete:
            if streamed > len(output.shown):
                notice = (
                    f"Output truncated: the tool printed {human_bytes(streamed)}; "
                    f"this window keeps the last {human_bytes(VIEW_LIMIT)}."
                )
            else:
                notice = "Output truncated: the middle part is left out here."
            if self._has_log():
                notice += " The complete output is in the run's log."
            self._notice.setText(notice)
            self._notice_row.show()
        self.full_button.setVisible(self._has_log() and incomplete)
        self._update_facts()

    def fail_before_start(self, message: str) -> None:
        """The run never got a process (it could not start, or the Engine refused it)."""
        self._clock_timer.stop()
        self._set_status("failed")
        self._leave_cancel()
        self.view.setPlaceholderText("No output")
        self._error.setText(message)
        self._error.show()
        self._update_facts()

    def _has_log(self) -> bool:
        return self._log_path is not None and self._log_path.is_file()

    def _set_status(self, status: str) -> None:
        self.status = status
        set_status_pill(self._pill, status)
        self.setWindowTitle(f"{self.human} — {self._pill.text()} — gibberish")

    def _update_facts(self) -> None:
        parts = []
        if self.result is not None:
            envelope = self.result.envelope
            if envelope.exit_code is not None:  # none: it never started, or was ended
                parts.append(f"Exit code {envelope.exit_code}")
            parts.append(human_duration(envelope.duration_ms))
        elif self.status == "running" and self._clock.isValid():
            parts.append(f"Running for {human_duration(int(self._clock.elapsed()))}")
        if self._cwd is not None:
            parts.append(f"in {home_short(self._cwd)}")
        self._facts.setText("  ·  ".join(parts))
        self._facts.setVisible(bool(parts))

    # ------------------------------------------------------------------ actions
    def output_text(self) -> str:
        return self.view.toPlainText()

    def copy_output(self) -> None:
        QGuiApplication.clipboard().setText(self.output_text())

    def show_full_output(self) -> None:
        if self._log_path is not None:
            self.open_path(self._log_path)

    def showEvent(self, event: QShowEvent) -> None:
        if not self._placed:
            self._placed = True
            place(self)
        super().showEvent(event)

    def closeEvent(self, event: QCloseEvent) -> None:
        event.accept()
        self.closed.emit()
