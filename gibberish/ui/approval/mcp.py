"""The tray's side of an MCP approval: show the usual dialog, send the answer back.

``gibberish mcp`` asks over the single-instance socket (``gibberish.mcp.approval``). The
tray does not take the server's word for what will run: it prepares the same call with
its own Engine and answers ``no`` unless the argv and the skill's fingerprint match what
the server sent — so the dialog shows exactly what will run, and says that an agent asks.
The dialog is opened from the event loop, not from inside the socket's read handler.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec.structs import replace
from PySide6.QtCore import QObject, QTimer, Signal

from gibberish.logger import logger
from gibberish.mcp.approval import ApprovalRequest, answer_line

if TYPE_CHECKING:
    from gibberish.engine.core import Engine, PreparedRun
    from gibberish.engine.run_flow import ApprovalPrompt

log = logger("gibberish.ui")

_ANSWERS = {"once": "once", "always": "always", "cancel": "no"}
"""``session.Answer`` values (a ``StrEnum``) to the reply's words; keyed by the plain
strings so that the tray's start path does not import the session (and the Engine)."""


class McpApprovals(QObject):
    answered = Signal(str, str)
    """ref, answer ("once", "always", "no") — after the reply was sent."""

    def __init__(
        self, engine: Callable[[], Engine], prompter: ApprovalPrompt, parent: QObject | None = None
    ) -> None:
        super().__init__(parent)
        self._engine = engine
        self._prompter = prompter

    def handle(self, line: str, reply: Callable[[bytes], Any]) -> None:
        """Slot for ``SingleInstance.approval_requested``."""
        QTimer.singleShot(0, self, lambda: self._answer(line, reply))

    def _answer(self, line: str, reply: Callable[[bytes], Any]) -> None:
        try:
            request = ApprovalRequest.from_line(line)
        except ValueError as exc:
            reply(answer_line("no", f"the tray could not read the request ({exc})"))
            return
        answer, message = self._decide(request)
        log.info("MCP approval for %s: %s %s", request.ref, answer, message)
        reply(answer_line(answer, message))
        self.answered.emit(request.ref, answer)

    def _decide(self, request: ApprovalRequest) -> tuple[str, str]:
        prepared, problem = self._prepare(request)
        if prepared is None:
            return "no", problem
        if not prepared.decision.asks:
            return "once", ""
        who = request.client[:1].upper() + request.client[1:]
        reason = f"{who} asks to run this (gibberish mcp). "
        shown = replace(
            prepared, decision=replace(prepared.decision, reason=reason + prepared.decision.reason)
        )
        return _ANSWERS[self._prompter.ask(shown)], ""

    def _prepare(self, request: ApprovalRequest) -> tuple[PreparedRun | None, str]:
        from gibberish.engine.core import EngineError
        from gibberish.skills.render import RenderError
        from gibberish.trust.model_reads import RunOrigin

        engine = self._engine()
        try:
            cwd = Path(request.cwd) if request.cwd else None
            prepared = engine.runs.prepare(
                request.ref, request.arguments, cwd=cwd, origin=RunOrigin.MODEL
            )
        except (EngineError, RenderError, OSError) as exc:
            return None, f"the tray cannot prepare {request.ref}: {exc}"
        if prepared.decision.refused:
            return None, prepared.decision.reason
        if prepared.argv != request.argv or prepared.fingerprint.digest != request.digest:
            return None, (
                "what the tray would run differs from the MCP server's call "
                "(the skill changed on disk?); try the call again"
            )
        return prepared, ""
