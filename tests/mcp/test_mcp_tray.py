"""An MCP call that needs approval, approved in the running tray's real dialog."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Any

import anyio
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QLabel, QWidget

from gibberish.engine.core import Engine, EngineOptions
from gibberish.ui.approval.dialog import ApprovalDialog, ApprovalPrompter
from gibberish.ui.approval.mcp import McpApprovals
from gibberish.ui.single_instance import SingleInstance
from tests.mcp.test_mcp_server import connect


def call_in_thread(skills_dir: Path, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """Run the MCP client on a thread so the Qt event loop can show the dialog meanwhile."""
    box: dict[str, Any] = {}

    async def main() -> None:
        async with connect(skills_dir) as session:
            box["result"] = await session.call_tool(tool, arguments)

    def target() -> None:
        try:
            anyio.run(main)
        except BaseException as exc:  # reported by the test
            box["error"] = exc

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    box["thread"] = thread
    return box


def answer_dialog(qtbot, button: str, seen: list[str], shot: Path) -> None:
    """Wait (on the event loop) for the approval dialog, note what it shows, click ``button``."""

    def poll() -> None:
        for widget in QApplication.topLevelWidgets():
            if isinstance(widget, ApprovalDialog) and widget.isVisible():
                seen.extend(label.text() for label in widget.findChildren(QLabel))
                argv = widget.findChild(QWidget, "approval-argv")
                seen.append(argv.toPlainText() if hasattr(argv, "toPlainText") else argv.text())
                widget.grab().save(str(shot))
                qtbot.mouseClick(getattr(widget, button), Qt.MouseButton.LeftButton)
                return
        QTimer.singleShot(50, poll)

    QTimer.singleShot(50, poll)


def make_tray_side(skills_dir: Path) -> tuple[SingleInstance, McpApprovals]:
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills_dir,), include_user=False, include_bundled=False)
    )
    instance = SingleInstance()
    assert instance.listen()
    approvals = McpApprovals(lambda: engine, ApprovalPrompter())
    instance.approval_requested.connect(approvals.handle)
    return instance, approvals


def test_mcp_call_approved_in_the_tray_dialog_runs(qtbot, skills_dir: Path, tmp_path: Path) -> None:
    instance, _approvals = make_tray_side(skills_dir)
    seen: list[str] = []
    try:
        answer_dialog(
            qtbot, "once_button", seen, Path(os.environ.get("GIBBERISH_SHOT", tmp_path / "d.png"))
        )
        box = call_in_thread(skills_dir, "mark", {"folder": str(tmp_path)})
        qtbot.waitUntil(lambda: not box["thread"].is_alive(), timeout=90_000)
    finally:
        instance.close()
    assert "error" not in box, box.get("error")
    result = box["result"]
    assert result.is_error is False, result.structured_content
    assert (tmp_path / "marker").exists()
    assert any("touch" in text and "marker" in text for text in seen), seen
    assert any("The MCP client “mcp 0.1.0” asks to run this" in text for text in seen), seen


def test_mcp_call_cancelled_in_the_tray_dialog_does_not_run(
    qtbot, skills_dir: Path, tmp_path: Path
) -> None:
    instance, _approvals = make_tray_side(skills_dir)
    try:
        answer_dialog(qtbot, "cancel_button", [], tmp_path / "dialog.png")
        box = call_in_thread(skills_dir, "mark", {"folder": str(tmp_path)})
        qtbot.waitUntil(lambda: not box["thread"].is_alive(), timeout=90_000)
    finally:
        instance.close()
    result = box["result"]
    assert result.is_error is True and "declined" in result.structured_content["error"]
    assert not (tmp_path / "marker").exists()


def test_the_tray_refuses_a_request_that_differs_from_what_it_would_run(
    qtbot, skills_dir: Path, tmp_path: Path
) -> None:
    import json

    from gibberish.mcp.approval import ApprovalRequest

    class NeverAsked:
        def ask(self, prepared: Any, parent: Any = None) -> Any:
            raise AssertionError("the dialog must not open for a mismatched request")

    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills_dir,), include_user=False, include_bundled=False)
    )
    approvals = McpApprovals(lambda: engine, NeverAsked())
    prepared = engine.runs.prepare("writer.mark", {"folder": str(tmp_path)})
    replies: list[bytes] = []
    for argv, digest in (
        (("touch", "/etc/other"), prepared.fingerprint.digest),
        (prepared.argv, "0" * 64),
    ):
        request = ApprovalRequest("writer.mark", {"folder": str(tmp_path)}, "", argv, digest)
        approvals._answer(request.to_line().decode().strip(), replies.append)
    approvals._answer("mcp-approve {not json", replies.append)
    answers = [json.loads(r) for r in replies]
    assert [a["answer"] for a in answers] == ["no", "no", "no"]
    assert "differs" in answers[0]["message"] and "differs" in answers[1]["message"]
    assert "could not read" in answers[2]["message"]
