"""Runs from the UI: output streaming, failures, timeouts, cancel, quit, and the result window."""

from __future__ import annotations

import json
import threading
from pathlib import Path

from gibberish.runner.envelope import Envelope, RunResult, RunStatus
from gibberish.ui.runs.bridge import OutputTail, RunBridge, RunEvents, TextDecoder
from gibberish.ui.runs.result_window import VIEW_LIMIT, ResultWindow, summary_line
from tests.ui.conftest import live_processes, read_pids, tool_block, wait_for_result, write_skill


def test_bundled_style_run_end_to_end(qtbot, controller) -> None:
    session = controller.launch("hello.echo_text", {"text": "end to end"})
    assert session.window.isVisible()
    wait_for_result(qtbot, session)
    window = session.window
    assert window.status == "succeeded"
    assert window.output_text() == "end to end\n"
    assert "Exit code 0" in window._facts.text()
    assert window.cancel_button.isHidden()
    window.copy_output()
    from PySide6.QtGui import QGuiApplication

    assert QGuiApplication.clipboard().text() == "end to end\n"
    assert controller.surface.tray.state == "normal"


def test_failing_tool_shows_error_and_exit_code(qtbot, controller) -> None:
    session = controller.launch("slow.fail")
    wait_for_result(qtbot, session)
    assert session.window.status == "failed"
    assert "Exit code 3" in session.window._facts.text()
    assert "something broke" in session.window.output_text()
    assert session.window._error.isVisible()
    assert controller.surface.tray.state == "failed"
    controller.menu.aboutToShow.emit()  # opening the menu acknowledges the failure
    assert controller.surface.tray.state == "normal"


def test_tool_that_fails_to_start(qtbot, controller) -> None:
    session = controller.launch("slow.missing")
    wait_for_result(qtbot, session)
    assert session.window.status == "failed"
    assert session.result.envelope.exit_code == 127
    assert session.window._error.text()


def test_timeout_while_the_window_is_closed_notifies(qtbot, controller, notifications) -> None:
    session = controller.launch("slow.nap")
    qtbot.waitUntil(lambda: "started" in session.window.output_text(), timeout=5000)
    assert controller.surface.tray.state == "running"
    session.window.close()
    qtbot.waitUntil(lambda: bool(notifications), timeout=15_000)
    title, body, failed = notifications[-1]
    assert title == "✗ Nap"
    assert failed and "2 s" in body and "Nap" in title  # "✗ Nap", "Timed out after 2 s (2.0 s)"
    assert session.result.status is RunStatus.TIMED_OUT
    assert session.key not in controller.runs.sessions  # the hidden window is gone
    assert controller.surface.tray.state == "failed"


def test_cancel_kills_the_whole_tree(qtbot, controller) -> None:
    home = Path.home()
    session = controller.launch("slow.nap")
    pids = read_pids(home / "nap.pids")
    assert live_processes(pids) == pids
    session.window.cancel_button.click()
    wait_for_result(qtbot, session)
    assert session.window.status == "cancelled"
    qtbot.waitUntil(lambda: live_processes(pids) == [], timeout=5000)


def test_quitting_while_tools_run_leaves_no_process(qtbot, controller) -> None:
    home = Path.home()
    first = controller.launch("slow.nap")
    pids = read_pids(home / "nap.pids")
    (home / "nap.pids").unlink()
    second = controller.launch("slow.nap")
    pids += read_pids(home / "nap.pids")
    assert len(live_processes(pids)) == 4
    controller.shutdown()
    assert live_processes(pids) == []
    assert first.handle.done() and second.handle.done()


def test_parsed_json_is_pretty_printed(qtbot, controller, skills_dir: Path) -> None:
    write_skill(
        skills_dir,
        "jsonny",
        [tool_block("emit", "Print JSON.", 'echo \'{"b": [1, 2], "a": "x"}\'')],
        extra="read_only: true",
    )
    controller.reload()
    session = controller.launch("jsonny.emit")
    wait_for_result(qtbot, session)
    assert json.loads(session.window.output_text()) == {"b": [1, 2], "a": "x"}
    assert '\n  "b": [' in session.window.output_text()


def test_big_output_is_truncated_with_a_notice_and_full_output_link(
    qtbot, controller, skills_dir: Path
) -> None:
    write_skill(
        skills_dir,
        "loud",
        [tool_block("shout", "Print a lot.", "./shout.sh")],
        scripts={"shout.sh": "#!/bin/sh\nseq 1 200000\n"},
    )
    controller.reload()
    session = controller.launch("loud.shout")
    wait_for_result(qtbot, session)
    window = session.window
    assert window.result.envelope.truncated
    assert window.view.document().characterCount() <= VIEW_LIMIT + 2
    assert window.output_text().rstrip().endswith("200000")
    assert window._notice_row.isVisible()
    assert "Output truncated" in window._notice.text()
    assert window.full_button.isVisible()
    opened = []
    window.open_path = opened.append
    window.full_button.click()
    assert opened == [window.result.log_path]
    assert opened[0].read_text().count("\n") == 200000


def test_output_tail_is_bounded_and_counts_what_it_dropped() -> None:
    tail = OutputTail(limit=10)
    assert tail.feed(b"12345") is True
    assert tail.feed(b"67890abc") is False
    data, dropped = tail.take()
    assert data == b"4567890abc" and dropped == 3
    assert tail.feed(b"x" * 25) is True
    assert tail.take() == (b"x" * 10, 15)
    assert tail.total == 38


def test_bridge_coalesces_wakeups_across_threads(qtbot) -> None:
    events = RunEvents()
    bridge = RunBridge(events, key=7, limit=1000)
    wakeups: list[int] = []
    events.output_ready.connect(wakeups.append)

    def produce() -> None:
        for _ in range(5000):
            bridge.feed(b"0123456789")

    thread = threading.Thread(target=produce)
    thread.start()
    thread.join()
    qtbot.waitUntil(lambda: bool(wakeups), timeout=2000)
    assert wakeups == [7]  # one pending wake-up, not 5000
    data, dropped = bridge.tail.take()
    assert len(data) == 1000 and dropped == 49_000


def test_decoder_restarts_cleanly_after_a_gap() -> None:
    decoder = TextDecoder()
    text = "é".encode()
    assert decoder.decode(text[:1]) == ""
    assert decoder.decode(text[1:]) == "é"
    assert decoder.decode(b"\xa9abc", after_gap=True) == "abc"


def _result(status: RunStatus, envelope: Envelope) -> RunResult:
    return RunResult(envelope, status, ("prog",), Path.home(), "r1", None, False)


def test_summary_line_is_the_error_or_the_first_line() -> None:
    ok = Envelope(True, 0, "\n first line\nsecond\n", False, 5)
    assert summary_line(_result(RunStatus.SUCCEEDED, ok)) == "first line"
    bad = Envelope(False, 124, "x", False, 5, error="Timed out after 2 s")
    assert summary_line(_result(RunStatus.TIMED_OUT, bad)) == "Timed out after 2 s"


def test_streaming_flushes_are_bounded(qtbot) -> None:
    window = ResultWindow("t.t", ("prog",))
    qtbot.addWidget(window)
    tail = OutputTail()
    window.set_running(tail, cancel=lambda: None)
    for _ in range(100):
        tail.feed(b"y" * 100 + b"\n")
    tail.feed(b"z" * (3 * VIEW_LIMIT))
    window.flush()
    assert window.view.document().characterCount() <= VIEW_LIMIT + 64
    assert "skipped" in window.output_text()


def numbered(first: int, last: int) -> bytes:
    return "".join(f"line {n}\n" for n in range(first, last)).encode()


def test_streamed_output_arrives_complete_and_in_order(qtbot) -> None:
    """Chunks cut anywhere (inside a line, inside a UTF-8 character), each flush taking
    what arrived since the last: the view holds exactly the stream, in order."""
    window = ResultWindow("t.t", ("prog",))
    qtbot.addWidget(window)
    tail = OutputTail()
    window.set_running(tail, cancel=lambda: None)
    stream = numbered(0, 3000) + "é ✓ 🎉 end\n".encode()
    for start in range(0, len(stream), 997):
        tail.feed(stream[start : start + 997])
        window.flush()
    assert window.output_text() == stream.decode()
    assert "skipped" not in window.output_text()


def test_a_long_stream_keeps_the_newest_whole_lines(qtbot) -> None:
    """Far more than the view keeps, in flushes the size of a real one: the view stays
    bounded, starts at a line's start, and holds the newest lines in order; every kind
    of line break counts as a line when the oldest ones are cut."""
    window = ResultWindow("t.t", ("prog",))
    qtbot.addWidget(window)
    tail = OutputTail()
    window.set_running(tail, cancel=lambda: None)
    n = 0
    while tail.total < 4 * VIEW_LIMIT:
        chunk = numbered(n, n + 150) + "a\r\nb\rc\u2029d 🎉\n".encode()
        tail.feed(chunk)
        window.flush()
        n += 150
    shown = window.output_text()
    assert len(shown) <= VIEW_LIMIT
    assert window.view.document().characterCount() <= VIEW_LIMIT + 2
    assert shown == window._shown  # the view and what the window thinks it shows agree
    lines = shown.split("\n")
    assert lines[0].startswith("line ") or lines[0] in ("a", "b", "c", "d 🎉")
    numbers = [int(line[5:]) for line in lines if line.startswith("line ")]
    assert numbers == list(range(numbers[0], n))  # the newest, none missing, in order
    assert "skipped" not in shown
