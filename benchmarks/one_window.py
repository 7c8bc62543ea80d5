"""The everyday loop's two waits: the command bar's first paint, and Enter → first output line.

    .venv/bin/python benchmarks/one_window.py [--repeat 7]

A real ``Controller`` over a real ``Engine`` with the bundled skills runs offscreen in
this process (temporary XDG folders, see ``isolation.py``); every figure is wall-clock
time on the GUI thread.

* *open → first paint* — ``Controller.open_command_bar()`` (what the hotkey and the menu
  item call) until the event queue is empty (the bar laid out and painted). Floor: a bare
  frame with a line edit and a 12-row list shown the same way (what Qt costs for the
  same widgets without anything of ours).
* *Enter → first output line* — "Uptime" chosen in the open bar, then Enter
  (``QTest.keyClick``) until the first line of its output is in the output view the
  person reads (the events processed as they come). Floor: the Engine starting the very
  same prepared run and its first output callback on the runner's thread — the process
  (and its sandbox) alone, without any window.

The ratio shown is median / floor median. The same script runs on any commit whose
``Controller`` has ``open_command_bar``, ``text.command_bar`` and ``runs.sessions``, so
a before/after comparison is the same measurement.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from isolation import isolate

TOOL = "system.uptime"


def drain() -> None:
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    QApplication.processEvents()


def ms_since(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def summary(name: str, values: list[float], floor: list[float]) -> str:
    mid, low, base = statistics.median(values), min(values), statistics.median(floor)
    return (
        f"  {name:<30} min {low:7.1f} ms  median {mid:7.1f} ms  "
        f"(floor median {base:6.1f} ms, ratio {mid / base if base else float('nan'):5.2f}x)"
    )


def floor_open() -> float:
    from PySide6.QtCore import QStringListModel, Qt
    from PySide6.QtWidgets import QFrame, QLineEdit, QListView, QVBoxLayout

    frame = QFrame(None, Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint)
    layout = QVBoxLayout(frame)
    layout.addWidget(QLineEdit())
    view = QListView()
    view.setModel(QStringListModel([f"Tool {n}" for n in range(12)], frame))
    layout.addWidget(view)
    frame.setFixedWidth(600)
    started = time.perf_counter()
    frame.show()
    drain()
    took = ms_since(started)
    frame.hide()
    frame.deleteLater()
    drain()
    return took


def floor_output(engine) -> float:
    """The Engine alone: start the prepared run, wait for its first output callback."""
    prepared = engine.runs.prepare(TOOL)
    first = threading.Event()
    started = time.perf_counter()
    handle = engine.runs.start(prepared, confirmed=True, on_output=lambda _data: first.set())
    first.wait(10)
    took = ms_since(started)
    handle.wait(10)
    return took


def enter_to_output(controller, bar) -> float:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    controller.open_command_bar()
    drain()
    QTest.keyClicks(bar.input, "uptime")
    drain()
    if bar.current_ref() != TOOL:
        raise SystemExit(f"the bar offered {bar.current_ref()!r} first, not {TOOL}")
    before = set(controller.runs.sessions)
    started = time.perf_counter()
    QTest.keyClick(bar.input, Qt.Key.Key_Return)
    deadline = started + 10
    while time.perf_counter() < deadline:
        QApplication.processEvents()
        new = [s for k, s in controller.runs.sessions.items() if k not in before]
        if new and new[0].window.view.toPlainText().strip():
            took = ms_since(started)
            break
        time.sleep(0.0005)
    else:
        raise SystemExit("no output line within 10 s")
    while new[0].running:
        QApplication.processEvents()
        time.sleep(0.005)
    drain()
    for session in new:  # back to the bar's list, as Esc or Back would
        session.window.close()
    if bar.isVisible():
        QTest.keyClick(bar.input if bar.input.isVisible() else bar, Qt.Key.Key_Escape)
    drain()
    return took


def measure(repeat: int) -> None:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from gibberish.engine.core import Engine, EngineOptions
    from gibberish.engine.run_flow import Answer
    from gibberish.ui.controller import Controller
    from gibberish.ui.seams import Seams

    class Once:
        def ask(self, _prepared, _parent=None) -> Answer:
            return Answer.ONCE

    app = QApplication.instance() or QApplication(["bench"])
    engine = Engine(EngineOptions())
    controller = Controller(engine, tray_available=True, seams=Seams(approvals=Once()))
    controller.start()
    while not controller.host.is_ready:
        app.processEvents()
    QTest.qWait(800)  # the bar made ahead on idle, as the tray does after a load
    controller.open_command_bar()
    drain()
    bar = controller.text.command_bar
    QTest.keyClick(bar.input, Qt.Key.Key_Escape)
    drain()
    floor_open()
    enter_to_output(controller, bar)  # the first run loads the runner's modules
    floor_output(engine)

    opens, floor_opens, outputs, floor_outputs = [], [], [], []
    for _ in range(repeat):
        started = time.perf_counter()
        controller.open_command_bar()
        drain()
        opens.append(ms_since(started))
        QTest.keyClick(bar.input, Qt.Key.Key_Escape)
        drain()
        floor_opens.append(floor_open())
        outputs.append(enter_to_output(controller, bar))
        floor_outputs.append(floor_output(engine))
    load = os.getloadavg()
    print(
        f"one window, bundled skills, {TOOL}, wall-clock ({repeat} rounds; "
        f"load average {load[0]:.2f} {load[1]:.2f} {load[2]:.2f})"
    )
    print(summary("open → first paint", opens, floor_opens))
    print(summary("Enter → first output line", outputs, floor_outputs))
    controller.shutdown()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gibberish-one-window-"))
    try:
        isolate(root)
        measure(args.repeat)
    finally:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
