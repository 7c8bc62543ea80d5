"""One question to a slow router at a time, on a worker thread, answered on the GUI thread.

A model may take seconds to answer (or never, when its server stalls). ``Asking.ask``
starts ``router.propose`` on a daemon thread with a fresh cancel event; the outcome comes
back through a queued signal into the GUI thread, where ``answered`` is emitted — but only
if that question is still the current one. Cancelling (Esc in the command bar, a new
question, quitting) sets the event, which the model client checks between streamed
chunks, and forgets the question at once: whatever the thread says later is dropped, so a
late answer can never open a form the person no longer expects.

A cancelled thread may still be blocked reading from a silent server until the client's
timeout; it holds nothing the UI needs, and ``wait`` lets tests (and a careful quit)
join it.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field
from PySide6.QtCore import QObject, Qt, Signal

from gibberish.logger import logger

if TYPE_CHECKING:
    from gibberish.engine.core import ToolRef
    from gibberish.skills.model import Mode
    from gibberish.ui.command_bar.routing import Outcome, TextRouter

log = logger("gibberish.ui")


class Question(Struct):
    key: int
    text: str
    cancel: threading.Event = field(default_factory=threading.Event)


class Asking(QObject):
    """Runs ``TextRouter.propose`` off the GUI thread; emits ``answered(outcome, text)``."""

    answered = Signal(object, str)
    _delivered = Signal(int, object)

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._keys = itertools.count(1)
        self._current: Question | None = None
        self._threads: list[threading.Thread] = []
        self._delivered.connect(self._deliver, Qt.ConnectionType.QueuedConnection)

    @property
    def busy(self) -> bool:
        return self._current is not None

    @property
    def current(self) -> Question | None:
        return self._current

    def ask(
        self, router: TextRouter, text: str, tools: Sequence[ToolRef], mode: Mode | None
    ) -> Question:
        """Start asking ``router`` (cancelling any question still unanswered)."""
        self.cancel()
        question = Question(next(self._keys), text)
        self._current = question
        thread = threading.Thread(
            target=self._work,
            args=(router, question, list(tools), mode),
            name=f"gibberish-ask-{question.key}",
            daemon=True,
        )
        self._threads = [t for t in self._threads if t.is_alive()] + [thread]
        thread.start()
        return question

    def cancel(self) -> bool:
        """Cancel the current question; True when there was one."""
        question, self._current = self._current, None
        if question is None:
            return False
        question.cancel.set()
        log.info("cancelled asking: %s", question.text[:200])
        return True

    def wait(self, timeout: float = 10.0) -> bool:
        """Join every worker thread (cancelled ones included); False if one is still running."""
        deadline = time.monotonic() + timeout
        for thread in list(self._threads):
            thread.join(max(deadline - time.monotonic(), 0.0))
        self._threads = [t for t in self._threads if t.is_alive()]
        return not self._threads

    def _work(
        self, router: TextRouter, question: Question, tools: list[ToolRef], mode: Mode | None
    ) -> None:
        outcome: Any
        try:
            outcome = router.propose(question.text, tools, mode=mode, cancel=question.cancel)
        except Exception as exc:  # a router that fails is a message, never a crash
            from gibberish.assistant.proposal import Proposal, ProposalStatus

            log.warning("asking failed: %s", exc, exc_info=True)
            message = f"Asking failed: {exc}"
            outcome = Proposal(None, ProposalStatus.ERROR, question.text, message=message)
        with contextlib.suppress(RuntimeError):  # the UI was torn down meanwhile
            self._delivered.emit(question.key, outcome)

    def _deliver(self, key: int, outcome: Outcome) -> None:
        question = self._current
        if question is None or question.key != key:
            log.info("dropped a late answer (question %d)", key)
            return
        self._current = None
        self.answered.emit(outcome, question.text)
