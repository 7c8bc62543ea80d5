"""The result window while a tool floods it: the longest the GUI thread stays busy.

    .venv/bin/python benchmarks/streaming.py [--megabytes 20] [--repeat 5]

A skill whose tool runs ``yes`` through ``head -c N`` (inside its script: gibberish runs no
shell) is started through a real ``Controller`` and ``Engine``, offscreen, in temporary
XDG folders, and its output streams into a shown ``ResultWindow``. A 5 ms ``QTimer``
heartbeat on the GUI thread records the gaps between its ticks, from the window's first
paint until the run's end has been shown; the longest gap is how long a person's click
would wait. Opening the window (starting the run, building the window, its first
paint) is timed on its own and printed too: it happens once per run, before any output.

The floor is the same run with its output read but not shown (the Engine's own
``start`` with an output callback that drops it): the gaps the event loop has anyway
on this machine while a process floods a pipe. Each is taken ``--repeat`` times,
alternating; min and median of the longest gap are printed, with the ratio to the
floor and the target (no gap over 50 ms). The window's text is checked to end with the
tool's last line (the output arrived in order, nothing after the end was lost).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import textwrap
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from isolation import isolate

SKILL = """\
---
name: flood
version: 1.0.0
description: Print a lot of output. Use to measure the result window.
timeout: 300
---

### flood

Print many lines, then a last one.

#### Parameters

None.

#### Command

```bash
./flood.sh
```
"""


def write_skill(root: Path, megabytes: int) -> Path:
    folder = root / "skills" / "flood"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL, encoding="utf-8")
    script = folder / "flood.sh"
    script.write_text(
        textwrap.dedent(
            f"""\
            #!/bin/bash
            yes "the quick brown fox jumps over the lazy dog 0123456789" | head -c {megabytes * 1_000_000}
            echo
            echo "THE END"
            """
        )
    )
    script.chmod(0o755)
    return folder.parent


class Heartbeat:
    """A 5 ms timer on the GUI thread; ``gaps`` are the times between its ticks."""

    def __init__(self) -> None:
        from PySide6.QtCore import QElapsedTimer, QTimer

        self.clock = QElapsedTimer()
        self.timer = QTimer()
        self.timer.setInterval(5)
        self.timer.timeout.connect(self._beat)
        self.gaps: list[float] = []
        self._last = 0.0

    def _beat(self) -> None:
        now = self.clock.nsecsElapsed() / 1e6
        self.gaps.append(now - self._last)
        self._last = now

    def start(self) -> None:
        self.clock.start()
        self._last = 0.0
        self.gaps = []
        self.timer.start()

    def stop(self) -> float:
        self.timer.stop()
        return max(self.gaps or [0.0])


def wait_until(done) -> None:
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(10)
    poll.timeout.connect(lambda: loop.quit() if done() else None)
    poll.start()
    loop.exec()
    poll.stop()


def shown_run(controller, engine, beat: Heartbeat) -> tuple[float, float, int, str]:
    """The longest gap while the output streams, the time to open the window (start the
    run, build and show the window, until its first paint is done), the output's size
    and the window's text."""
    from PySide6.QtWidgets import QApplication

    prepared = engine.runs.prepare("flood.flood")
    started = time.perf_counter()
    session = controller.runs.start(prepared, confirmed=True, show=True)
    QApplication.processEvents()
    opening = (time.perf_counter() - started) * 1000
    beat.start()
    wait_until(lambda: session.result is not None)
    worst = beat.stop()
    text = session.window.output_text()
    session.window.close()
    return worst, opening, session.bridge.tail.total, text


def floor_run(engine, beat: Heartbeat) -> float:
    prepared = engine.runs.prepare("flood.flood")
    beat.start()
    handle = engine.runs.start(prepared, confirmed=True, on_output=lambda chunk: None)
    wait_until(handle.done)
    return beat.stop()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--megabytes", type=int, default=20)
    parser.add_argument("--repeat", type=int, default=5)
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gibberish-bench-stream-"))
    try:
        isolate(root)
        skills = write_skill(root, options.megabytes)
        run(skills, options)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


def run(skills: Path, options: argparse.Namespace) -> None:
    from PySide6.QtWidgets import QApplication

    from gibberish.engine.core import Engine, EngineOptions
    from gibberish.ui.controller import Controller

    app = QApplication.instance() or QApplication(["bench"])
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills,), include_user=False, include_bundled=False)
    )
    controller = Controller(engine, tray_available=True)
    controller.start()
    wait_until(lambda: controller.host.is_ready)
    beat = Heartbeat()
    shown: list[float] = []
    openings: list[float] = []
    floor: list[float] = []
    totals: list[float] = []
    for _ in range(options.repeat):
        started = time.perf_counter()
        worst, opening, total, text = shown_run(controller, controller.engine, beat)
        totals.append(time.perf_counter() - started)
        assert text.rstrip().endswith("THE END"), text[-200:]
        shown.append(worst)
        openings.append(opening)
        floor.append(floor_run(controller.engine, beat))
    load = os.getloadavg()
    print(
        f"result window while streaming ({options.repeat} runs, alternating; load average "
        f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f})"
    )
    print(
        f"  tool: yes | head -c {options.megabytes} MB, {total / 1e6:.1f} MB of output, "
        f"{statistics.median(totals):.1f} s per run (median); the window ends with the last line"
    )
    ratio = statistics.median(shown) / statistics.median(floor)
    verdict = "met" if statistics.median(shown) <= 50 else "MISSED"
    print(
        f"  longest GUI gap, shown:    min {min(shown):6.1f} ms  median "
        f"{statistics.median(shown):6.1f} ms  [{' '.join(f'{v:.0f}' for v in shown)}]"
    )
    print(
        f"  longest GUI gap, floor:    min {min(floor):6.1f} ms  median "
        f"{statistics.median(floor):6.1f} ms  [{' '.join(f'{v:.0f}' for v in floor)}]"
    )
    print(f"  ratio shown / floor (medians) {ratio:.2f}; target: no gap > 50 ms: {verdict}")
    print(
        f"  opening the window (start, build, first paint; the first one in this process "
        f"first): [{' '.join(f'{v:.0f}' for v in openings)}] ms"
    )
    controller.shutdown()
    app.processEvents()


if __name__ == "__main__":
    raise SystemExit(main())
