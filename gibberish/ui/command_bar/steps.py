"""The steps after the search, in the command bar's own window: form, approval, output.

One window for the whole loop (docs/adr/0083-one-window.md): choosing a tool puts its
form where the list was; the approval, when one is due, takes the form's place; the
output streams there with Stop, Copy output, Run again and Back. Esc steps back.

A form or an approval is the same widget the dialogs were (``ParameterForm``,
``ApprovalDialog``), made a child of this window and wrapped in a scroll area so that it
fits any screen. The caller waits for the answer as it waited for a modal dialog
(``run``: a local event loop until the widget says it is done), so the flow of
``gibberish.engine.run_flow`` is unchanged. An output is a ``ResultWindow`` made a child here;
``detach`` gives it back its own window, on request only.

The next run's output page can be made ahead, on idle (``keep_ahead``): a fresh page,
hidden, already a child of the stack and polished by the window's style sheet, so Enter
only fills it in and shows it. A page is used for one run only; a detached output keeps
its own, and the next run takes the next fresh one.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEventLoop, QObject, QSize, Qt, Signal
from PySide6.QtGui import QPalette
from PySide6.QtWidgets import (
    QApplication,
    QDialog,
    QFrame,
    QScrollArea,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)


class Page(QScrollArea):
    """A step's widget, scrolled when the screen is too small for it."""

    def __init__(self, content: QWidget, *, tall: bool = False) -> None:
        super().__init__()
        self.setObjectName("command-step")
        self.content = content
        self.tall = tall
        """The output: as tall as the step may be, however little it holds yet."""
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.setWidgetResizable(True)
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        content.setWindowFlags(Qt.WindowType.Widget)
        self.setWidget(content)

    def sizeHint(self) -> QSize:
        hint = self.content.sizeHint()
        hint.setHeight(hint.height() + 2)
        return hint


class OutputPage(QWidget):
    """An output: its own view scrolls, so it is held without a scroll area (less to lay
    out between Enter and the first line)."""

    tall = True

    def __init__(self, content: QWidget, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("command-step")
        self.content = content
        content.setWindowFlags(Qt.WindowType.Widget)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(content)

    def takeWidget(self) -> QWidget:
        layout = self.layout()
        if layout is not None:
            layout.removeWidget(self.content)
        return self.content


Holder = Page | OutputPage


class Steps(QObject):
    """The stack of steps shown instead of the search (empty: the search shows)."""

    changed = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        self.stack = QStackedWidget(parent)
        self.stack.setObjectName("command-steps")
        self._host = parent
        self._watched: set[int] = set()
        self._ahead: OutputPage | None = None
        """A fresh output page made ahead: a hidden child of the stack, not in it."""
        self._ahead_palette = QPalette()
        """The application's colours when the page ahead was made: its colours."""

    def keep_ahead(self, content: QWidget) -> None:
        """Hold ``content`` (a fresh output) in a page made now, for the next run."""
        if self._ahead is not None:
            return
        page = OutputPage(content, self.stack)
        page.hide()
        page.ensurePolished()
        content.ensurePolished()
        self._ahead_palette = QPalette(QApplication.palette())
        self._ahead = page

    @property
    def ahead(self) -> QWidget | None:
        """The fresh output made ahead for the next run (None: none yet)."""
        return self._ahead.content if self._ahead is not None else None

    def take_ahead(self) -> QWidget | None:
        """The output made ahead, for a run about to be shown (None: there is none)."""
        page, self._ahead = self._ahead, None
        if page is None:
            return None
        if QApplication.palette() != self._ahead_palette:  # dark mode came on since
            page.deleteLater()
            return None
        return page.content

    def _output_closed(self) -> None:
        """Back (or Esc) on an output: the search again; a run under way goes on."""
        window = self.sender()
        if isinstance(window, QWidget):
            self._watched.discard(id(window))
            self.remove(window)

    @property
    def active(self) -> bool:
        return self.stack.count() > 0

    def current(self) -> QWidget | None:
        page = self.stack.currentWidget()
        return page.content if isinstance(page, Page | OutputPage) else None

    def _push(self, content: QWidget, *, tall: bool = False) -> Holder:
        made_ahead = content.parentWidget()  # a page made ahead already holds its output
        page: Holder
        if tall and isinstance(made_ahead, OutputPage) and made_ahead.parentWidget() is self.stack:
            page = made_ahead
        else:
            page = OutputPage(content) if tall else Page(content)
        self.stack.addWidget(page)
        self.stack.setCurrentWidget(page)
        content.show()
        self.changed.emit()
        return page

    def _page_of(self, content: QWidget) -> Holder | None:
        for i in range(self.stack.count()):
            page = self.stack.widget(i)
            if isinstance(page, Page | OutputPage) and page.content is content:
                return page
        return None

    def remove(self, content: QWidget) -> None:
        """Take ``content`` out of the window (it is hidden, not deleted)."""
        page = self._page_of(content)
        if page is None:
            return
        page.takeWidget()
        content.hide()
        content.setParent(None)
        self.stack.removeWidget(page)
        page.deleteLater()
        self.changed.emit()

    def run(self, dialog: QDialog, show: Callable[[], None]) -> int:
        """Show ``dialog`` as a step and wait for its answer (Accepted or Rejected), as
        ``exec`` would; quitting the application rejects it."""
        loop = QEventLoop()
        done: list[int] = []
        dialog.finished.connect(done.append)
        dialog.finished.connect(loop.quit)
        app = QApplication.instance()
        if app is not None:
            app.aboutToQuit.connect(dialog.reject)
        wanted = dialog.focusWidget()  # set while it was built; lost when it moves in here
        self._push(dialog)
        show()
        self._focus(dialog, wanted)
        try:
            if not done:
                loop.exec()
            return done[0] if done else QDialog.DialogCode.Rejected.value
        finally:
            if app is not None:
                app.aboutToQuit.disconnect(dialog.reject)
            self.remove(dialog)

    @staticmethod
    def _focus(dialog: QWidget, wanted: QWidget | None) -> None:
        first = getattr(dialog, "focus_first", None)
        if first is not None:
            first()
        elif wanted is not None:
            wanted.setFocus()

    def show_dialog(self, dialog: QDialog) -> None:
        """A step nobody waits for (the welcome): it leaves when it is done."""
        wanted = dialog.focusWidget()
        dialog.finished.connect(self._dialog_done)
        self._push(dialog)
        self._focus(dialog, wanted)

    def _dialog_done(self) -> None:
        dialog = self.sender()
        if isinstance(dialog, QWidget):
            self.remove(dialog)
            dialog.deleteLater()

    def leave_outputs(self) -> None:
        """Back from any output shown (as its Back button would); a form or an approval
        somebody waits for stays."""
        for i in reversed(range(self.stack.count())):
            page = self.stack.widget(i)
            if isinstance(page, OutputPage):
                page.content.close()

    def show_output(self, window: QWidget) -> None:
        """Put a run's output in the window, in place of an earlier output (closed)."""
        for i in reversed(range(self.stack.count())):
            page = self.stack.widget(i)
            if isinstance(page, OutputPage) and page.content is not window:
                old = page.content
                self.remove(old)
                old.close()
        if self._page_of(window) is None:
            closed = getattr(window, "closed", None)
            if closed is not None and id(window) not in self._watched:
                self._watched.add(id(window))
                closed.connect(self._output_closed)
            self._push(window, tall=True)
        elif (page := self._page_of(window)) is not None:
            self.stack.setCurrentWidget(page)

    def detach(self, window: QWidget) -> None:
        """Give an output its own window (the person asked for it)."""
        self.remove(window)
        window.setWindowFlags(Qt.WindowType.Window)
        window.resize(720, 460)
        window.show()
