"""The Voice tab's Whisper set-up: size first, then a progress bar with Cancel, then a
checked result.

The work (``gibberish.voice.whisper_install``) runs on a plain thread; this widget only
shows what it reports, through queued signals. ``ready`` carries the checked model
folder; the tab switches its fields to it only then, so a failed or cancelled set-up
leaves the recognizer that was in use.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QHBoxLayout, QProgressBar, QPushButton, QVBoxLayout, QWidget

from gibberish.ui.widgets import help_label
from gibberish.voice import whisper_install, whisper_setup
from gibberish.voice.whisper_install import Environment, Plan, SetupError


class _Reports(QObject):
    """Signals the worker thread emits; Qt delivers them on the widget's thread."""

    planned = Signal(object)
    progress = Signal(str, int, int)
    finished = Signal(object)


class WhisperSetupBox(QWidget):
    """What is installed, and a button that sets Whisper up in gibberish's environment."""

    ready = Signal(str)
    """The model folder, once installed and checked."""

    def __init__(
        self,
        parent: QWidget | None = None,
        *,
        environment: Callable[[], Environment] = Environment.current,
        in_use: str = "",
    ) -> None:
        """``in_use``: the model folder the settings name now ("" for none)."""
        super().__init__(parent)
        self.setObjectName("settings-voice-whisper-box")
        self._environment = environment
        self._plan: Plan | None = None
        self._cancel = threading.Event()
        self._worker: threading.Thread | None = None
        # Unparented, so a worker still running when the dialog closes emits into an
        # object that lives on (held by the worker), never into a deleted one.
        self._reports = _Reports()
        self._reports.planned.connect(self._planned)
        self._reports.progress.connect(self._progressed)
        self._reports.finished.connect(self._finished)

        column = QVBoxLayout(self)
        column.setContentsMargins(0, 0, 0, 0)
        found = whisper_setup.whisper_setup()
        refusal = "" if found.model else environment().refusal()
        said = found.sentence() if found.model else refusal or _missing(found.runtime)
        self.status = help_label(said)
        self.status.setObjectName("settings-voice-whisper-setup")
        self.status.setAccessibleName("Whisper setup")
        column.addWidget(self.status)
        self.progress = QProgressBar()
        self.progress.setObjectName("settings-voice-whisper-progress")
        self.progress.setAccessibleName("Whisper download")
        self.progress.setVisible(False)
        column.addWidget(self.progress)
        row = QHBoxLayout()
        self.start = QPushButton("Set up &Whisper…")
        self.start.setObjectName("settings-voice-whisper-start")
        self.start.clicked.connect(self._clicked)
        self.cancel = QPushButton("Ca&ncel set-up")
        self.cancel.setObjectName("settings-voice-whisper-cancel")
        self.cancel.clicked.connect(self.stop)
        self.cancel.setVisible(False)
        row.addWidget(self.start)
        row.addWidget(self.cancel)
        row.addStretch(1)
        column.addLayout(row)
        ready = found.model and found.runtime
        if ready and not in_use:
            self.start.setText("Check it and &use it…")
        self.start.setVisible(bool(not refusal and (not ready or not in_use)))

    @property
    def busy(self) -> bool:
        return self._worker is not None and self._worker.is_alive()

    def _clicked(self) -> None:
        if self._plan is None:
            self.find_out()
        else:
            self.go()

    def find_out(self) -> None:
        """Step one: ask pip what would be downloaded, and say how much."""
        self.status.setText("Finding out what Whisper needs…")
        self._run(lambda: whisper_install.plan(self._environment()), self._reports.planned)

    def go(self) -> None:
        """Step two, after the size was said: download, install and check."""
        plan = self._plan
        assert plan is not None
        self.progress.setRange(0, 1000)
        self.progress.setValue(0)
        self.progress.setVisible(True)
        self.cancel.setVisible(True)

        def work() -> str:
            return whisper_install.install(plan, self._reports.progress.emit, self._cancel)

        self._run(work, self._reports.finished)

    def stop(self) -> None:
        self._cancel.set()
        self.status.setText("Cancelling…")

    def wait(self, timeout: float | None = None) -> None:
        """Waits for the worker thread (closing the dialog, and tests)."""
        if self._worker is not None:
            self._worker.join(timeout)

    def _run(self, job: Callable[[], object], done: object) -> None:
        self.start.setEnabled(False)
        self._cancel.clear()

        def work() -> None:
            try:
                result: object = job()
            except SetupError as exc:
                result = exc
            except Exception as exc:  # a bug must still end the set-up with a sentence
                result = SetupError(f"Setting up Whisper failed unexpectedly: {exc}")
            done.emit(result)  # type: ignore[attr-defined]

        self._worker = threading.Thread(target=work, name="whisper-setup", daemon=True)
        self._worker.start()

    def _planned(self, result: object) -> None:
        self.start.setEnabled(True)
        if isinstance(result, SetupError):
            self.status.setText(str(result))
            return
        assert isinstance(result, Plan)
        self._plan = result
        self.status.setText(result.sentence())
        size = whisper_install.megabytes(result.size)
        self.start.setText(f"&Download {size} and set up" if result.downloads else "&Check it")

    def _progressed(self, what: str, done: int, total: int) -> None:
        self.status.setText(what)
        if total:
            self.progress.setValue(int(1000 * min(done, total) / total))
        else:
            self.progress.setRange(0, 0)
        if what.startswith("Installing"):
            self.cancel.setEnabled(False)
        else:
            self.cancel.setEnabled(True)

    def _finished(self, result: object) -> None:
        self.progress.setVisible(False)
        self.cancel.setVisible(False)
        self.cancel.setEnabled(True)
        self.start.setEnabled(True)
        self._plan = None
        self.start.setText("Set up &Whisper…")
        if isinstance(result, SetupError):
            self.status.setText(str(result))
            return
        folder = str(result)
        self.status.setText(
            "Whisper is set up and heard a test recording correctly. It now checks what "
            "the tools' phrases hear; press OK to keep this."
        )
        self.start.setVisible(False)
        self.ready.emit(folder)


def _missing(runtime: bool) -> str:
    if runtime:
        return "Whisper is installed but no model is. Set it up to add a small English one."
    return (
        "Whisper, a better recognizer, is not set up. It hears requests more reliably "
        "and is a download of about 100 MB."
    )
