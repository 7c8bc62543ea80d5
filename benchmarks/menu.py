"""The tray menu at 1,000 skills: what the GUI thread does when it opens and on a reload.

A person feels the GUI thread as stalls: the menu that appears late, a cursor that
freezes while a file watcher reloads. So this script runs the real controller (the tray
menu, the file watcher, the garbage collector of ``gui_gc``) in one offscreen process and
keeps a 1 ms heartbeat ``QTimer`` on the GUI thread; the longest gap between two beats
is the longest stall. It measures:

* **opening the menu** — ``QMenu.popup`` (which emits ``aboutToShow``) then the event
  loop for 40 ms, then ``hide``; the GUI-thread CPU of ``popup`` itself and the longest
  heartbeat gap. The first open (right after start, submenus still empty) and the later
  ones are reported apart. The floor is a bare ``QMenu`` with the same number of
  submenus, built once, opened the same way.
* **reloading after one edit** — one ``SKILL.md`` rewritten, then the real file watcher
  (debounced), the reload and the menu's update; the longest gap from the edit until the
  menu shows the edited skill, plus 200 ms.
* **garbage collection** — every collection on the GUI thread during the run, timed with
  ``gc.callbacks``, and one full collection timed at the end (what a due generation-2
  collection would cost).

The floor for gaps is the heartbeat's own longest gap with nothing else to do (idle),
measured in the same run; the target is 16 ms (one frame). Each figure is printed with
its ratio to the target and to the floor.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

TARGET_MS = 16.0
HERE = Path(__file__).resolve().parent


def _hermetic(root: Path) -> None:
    """Every folder the app reads or writes points into ``root`` (set before importing it)."""
    for name in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        folder = root / name.lower()
        folder.mkdir(parents=True, exist_ok=True)
        os.environ[name] = str(folder)
    runtime = root / "runtime"
    runtime.mkdir(mode=0o700, exist_ok=True)
    os.environ["XDG_RUNTIME_DIR"] = str(runtime)
    os.environ["HOME"] = str(root / "home")
    os.environ["QT_QPA_PLATFORM"] = "offscreen"
    os.environ["PYTHON_KEYRING_BACKEND"] = "keyrings.alt.file.PlaintextKeyring"
    os.environ.pop("DBUS_SESSION_BUS_ADDRESS", None)


def _age_corpus(root: Path) -> None:
    """Date every file 10 s back, so no file is "racy" (re-read at each refresh)."""
    past = time.time() - 10
    for folder, _dirs, files in os.walk(root):
        for name in files:
            os.utime(os.path.join(folder, name), (past, past))


class Heartbeat:
    """A 1 ms timer on the GUI thread; ``max_gap`` is the longest time between two beats."""

    def __init__(self) -> None:
        from PySide6.QtCore import Qt, QTimer

        self.timer = QTimer()
        self.timer.setTimerType(Qt.TimerType.PreciseTimer)
        self.timer.setInterval(1)
        self.timer.timeout.connect(self._beat)
        self.reset()
        self.timer.start()

    def _beat(self) -> None:
        now, cpu = time.perf_counter(), time.thread_time()
        self.max_gap = max(self.max_gap, now - self.last)
        self.max_cpu = max(self.max_cpu, cpu - self.last_cpu)
        self.last, self.last_cpu = now, cpu

    def reset(self) -> None:
        self.last, self.last_cpu = time.perf_counter(), time.thread_time()
        self.max_gap = self.max_cpu = 0.0

    def gap_now(self) -> float:
        """The longest gap, counting the one still open."""
        return max(self.max_gap, time.perf_counter() - self.last)


class GcTimer:
    """Times every garbage collection that runs on the GUI thread, by ``phase``."""

    def __init__(self) -> None:
        self.gui = threading.get_ident()
        self.started = 0.0
        self.phase = "start"
        self.pauses: list[tuple[str, float]] = []
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict) -> None:
        if threading.get_ident() != self.gui:
            return
        if phase == "start":
            self.started = time.perf_counter()
        else:
            self.pauses.append((self.phase, time.perf_counter() - self.started))

    def stop(self) -> None:
        gc.callbacks.remove(self._callback)


def spin(ms: int) -> None:
    """Run the real event loop for ``ms`` milliseconds."""
    from PySide6.QtCore import QEventLoop, QTimer

    loop = QEventLoop()
    QTimer.singleShot(ms, loop.quit)
    loop.exec()


def wait_until(condition: Callable[[], bool], timeout_s: float = 10.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit("benchmark: timed out waiting for the menu to update")
        spin(5)


class Sample:
    """One measured open or reload: GUI-thread CPU of the call itself (opens only), the
    longest gap between heartbeats, and the most GUI-thread CPU spent between two beats
    (a stall of our own making, whatever else the machine is busy with)."""

    __slots__ = ("busy", "call", "gap")

    def __init__(self, call: float, beat: Heartbeat) -> None:
        self.call = call
        self.gap = beat.gap_now()
        self.busy = beat.max_cpu


def time_opens(menu, beat: Heartbeat, opens: int) -> list[Sample]:
    """``opens`` opens of ``menu``: popup, 40 ms of event loop, hide."""
    from PySide6.QtCore import QPoint

    out = []
    for _ in range(opens):
        spin(20)
        beat.reset()
        cpu = time.thread_time()
        menu.popup(QPoint(10, 10))
        cpu = time.thread_time() - cpu
        spin(40)
        out.append(Sample(cpu, beat))
        menu.hide()
    return out


def floor_menu(count: int):
    """A bare QMenu with ``count`` empty submenus, built once: what Qt itself costs."""
    from PySide6.QtWidgets import QMenu

    menu = QMenu()
    for i in range(count):
        sub = QMenu(f"skill-{i:04d}", menu)
        menu.addMenu(sub)
    return menu


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:7.1f} ms"


def report(label: str, values: list[float], floor: float | None) -> None:
    low, mid = min(values), statistics.median(values)
    text = f"  {label:<38} min {_ms(low)}  median {_ms(mid)}  max {_ms(max(values))}"
    text += f"   /target {mid * 1000 / TARGET_MS:5.2f}x"
    if floor:
        text += f"   /floor {mid / floor:5.2f}x"
    print(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--opens", type=int, default=10)
    parser.add_argument("--edits", type=int, default=5)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="gibberish-menu-bench-") as tmp:
        root = Path(tmp)
        _hermetic(root)
        sys.path.insert(0, str(HERE))
        from load import write_corpus

        skills = root / "skills"
        write_corpus(skills, args.skills)
        _age_corpus(skills)
        from startup import past_racy_window

        past_racy_window(skills)  # ctimes are now, whatever _age_corpus set
        return run(args, skills, edit_first_tool)


def edit_first_tool(path: Path, round_no: int) -> None:
    """Rewrite SKILL.md with its first tool's description changed: what the menu shows
    changes, so the reload replaces that skill's submenu (and only that one)."""
    text = path.read_text()
    head, sep, rest = text.partition("\n### ")
    title, blank, rest = rest.partition("\n\n")
    path.write_text(head + sep + title + blank + f"Edited ({round_no}). " + rest)


def run(args: argparse.Namespace, skills: Path, edit: Callable[[Path, int], None]) -> int:
    from PySide6.QtCore import qInstallMessageHandler
    from PySide6.QtWidgets import QApplication

    from gibberish.engine.core import Engine, EngineOptions
    from gibberish.ui.controller import Controller
    from gibberish.ui.gui_gc import GuiGarbageCollector

    qInstallMessageHandler(lambda *_: None)  # offscreen: "does not support grabbing" per popup
    app = QApplication(["gibberish-bench"])
    collector = GuiGarbageCollector(app)  # as ``application.run_application`` does
    beat = Heartbeat()
    spin(300)
    idle = []
    for _ in range(5):
        beat.reset()
        spin(60)
        idle.append(beat.gap_now())
    floor_gap = statistics.median(idle)

    bare = floor_menu(args.skills)
    floor_opens = time_opens(bare, beat, args.opens + 1)
    bare.deleteLater()

    def factory() -> Engine:
        return Engine(
            EngineOptions(extra_skills_dirs=(skills,), include_user=False, include_bundled=False)
        )

    # As the app starts: the Engine loads on a worker thread while the tray shows.
    controller = Controller(factory, tray_available=True)
    pauses = GcTimer()
    started = time.perf_counter()
    ready: list[bool] = []
    controller.host.ready.connect(lambda: ready.append(True))  # after the controller's slot
    controller.start()
    wait_until(lambda: bool(ready), 120)
    loaded = time.perf_counter() - started
    beat.reset()  # the submenus fill on idle turns now
    wait_until(lambda: not controller.menu_view.filling, 60)
    spin(100)
    filling = Sample(0.0, beat)
    engine = controller.engine
    tools = sum(len(s.tools) for s in engine.library.skills())
    print(
        f"corpus: {len(engine.library.skills())} skills, {tools} tools; ready after {_ms(loaded)}"
    )
    pauses.phase = "open"
    made = controller.menu_view.created
    opens = time_opens(controller.menu, beat, args.opens + 1)
    spin(1000)  # whatever fills on idle after the first open
    later = time_opens(controller.menu, beat, args.opens)

    made = controller.menu_view.created - made
    pauses.phase = "reload"
    before_reload = controller.menu_view.created
    reloads = []
    names = [s.name for s in engine.library.skills()]
    for round_no in range(args.edits):
        name = names[(round_no * 97) % len(names)]
        old = engine.library.get(name)
        spin(50)
        beat.reset()
        edit(skills / name / "SKILL.md", round_no)
        wait_until(lambda n=name, o=old: engine.library.get(n) is not o)
        spin(1200 + 200)  # and the menu cache written a second later, off the GUI thread
        reloads.append(Sample(0.0, beat))

    pauses.stop()
    remade = controller.menu_view.created - before_reload
    started = time.perf_counter()
    gc.collect()
    full = time.perf_counter() - started

    print(f"load {os.getloadavg()[0]:.2f}; target {TARGET_MS:.0f} ms on the GUI thread")
    print("floors (nothing of ours running):")
    report("heartbeat idle, longest gap", idle, None)
    bare_later = floor_opens[1:]
    floor_call = statistics.median(x.call for x in bare_later)
    floor_gap_open = statistics.median(x.gap for x in bare_later)
    floor_busy_open = statistics.median(x.busy for x in bare_later)
    report("bare QMenu 1st open, popup() GUI CPU", [floor_opens[0].call], None)
    report("bare QMenu 1st open, longest gap", [floor_opens[0].gap], floor_gap)
    report("bare QMenu popup(), GUI CPU", [x.call for x in bare_later], None)
    report("bare QMenu open, longest gap", [x.gap for x in bare_later], floor_gap)
    report("bare QMenu open, GUI busy", [x.busy for x in bare_later], None)
    print("the tray menu (ratio to the bare QMenu's figure):")
    report("1st open, popup() GUI CPU", [opens[0].call], floor_opens[0].call)
    report("1st open, longest gap", [opens[0].gap], floor_opens[0].gap)
    report("1st open, GUI busy", [opens[0].busy], floor_opens[0].busy)
    again = opens[1:] + later
    report("open, popup() GUI CPU", [x.call for x in again], floor_call)
    report("open, longest gap", [x.gap for x in again], floor_gap_open)
    report("open, GUI busy", [x.busy for x in again], floor_busy_open)
    print(f"  entries made during {len(again) + 1} opens: {made}")
    print("filling the submenus on idle turns after the load:")
    report("longest gap", [filling.gap], floor_gap)
    report("GUI busy", [filling.busy], None)
    print("reload after editing one skill (ratio to the idle heartbeat):")
    report("longest gap", [x.gap for x in reloads], floor_gap)
    report("GUI busy", [x.busy for x in reloads], None)
    print(f"  entries made during {len(reloads)} reloads: {remade} (one per edited skill)")
    print("garbage collection on the GUI thread:")
    for phase in ("start", "open", "reload"):
        found = [p for ph, p in pauses.pauses if ph == phase]
        report(f"pauses while {phase} ({len(found)})", found or [0.0], None)
    print(
        f"  a full collection after the run: {_ms(full)} "
        f"(/target {full * 1000 / TARGET_MS:.2f}x; frozen objects {gc.get_freeze_count()})"
    )
    controller.shutdown()
    collector.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
