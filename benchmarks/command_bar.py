"""The command bar at 1,000 skills: opening it, and each letter typed into it.

    .venv/bin/python benchmarks/command_bar.py [--skills 1000] [--repeat 5] [--cpu]
        [--against COMMIT]

**Corpus**: ``--skills`` skill folders written by ``load.py``'s generator (5 tools each,
plus the bundled skills), with every tool renamed to a verb_noun name and its description
made distinct by a few extra words (a seeded random draw): ``load.py``'s corpus repeats 6
descriptions and 30 tool names, which would flatter a ranker that works per distinct text.

A real ``Controller`` over a real ``Engine`` runs offscreen in this process (temporary XDG
folders); every figure is wall-clock time on the GUI thread (``--cpu``: its CPU time),
from the call until the event queue is empty (the bar painted):

* *made ahead* — the two idle turns in which the tray makes the bar and starts its
  ranker's thread half a second after the load (``TextRequests.warm_up``), and the first
  open after that thread is done;
* *open* — ``Controller.open_command_bar()`` (what the hotkey and the menu item call),
  the library unchanged since the last open;
* *open after a library change* — one SKILL.md edited and the tray's own file watcher's
  reload waited for (not timed): the open makes a new index;
* *keystroke* — typing ``--query`` letter by letter (``QTest.keyClick``), starting
  ``REACTION_MS`` (250 ms, the event loop running) after the bar opened following a
  library change (a new index, patched from the last one), then again with the same
  index, then a query of words never typed before (``NEW_QUERIES``, one per round): the
  median and the worst letter of each pass.

The floor is a bare frame with a ``QLineEdit`` and a 12-row ``QListView``, opened and
typed into the same way, its rows replaced at each letter (``QStringListModel``) by the
first 12 of every tool's lower-cased name and description that hold the typed text: what
Qt costs for the same widgets, plus a bare substring filter over the same tools, without
any ranking. Each figure is taken ``--repeat`` times; min and median are printed with the
ratio to the floor and the target (open <= 50 ms, keystroke <= 8 ms).

``--against COMMIT`` measures ``COMMIT``'s code (``git archive`` into a temporary folder,
put first on ``PYTHONPATH``) and this tree's in turn, ``--repeat`` processes each of
``--per-process`` rounds (1), with this script's measurement and floor for both; it
prints each figure's min and median for both and the ratio of medians, so a
before/after comparison shares the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from itertools import islice
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from isolation import isolate

NEW_QUERIES = (
    "find large photos in the cache",
    "download recent videos",
    "compare branches with remote",
    "count open ports now",
    "backup calendar and mail",
    "tail network logs",
    "deploy project images",
)
"""One per round, typed once after the other passes: words no index has seen."""
REACTION_MS = 250
"""How long after the bar appears the first letter is typed (a person reacting to it)."""
VERBS = "show list find search delete remove convert upload download sync check open "
VERBS += "print count clean backup restore deploy watch tail measure compare merge"
NOUNS = "commits log diff status files notes photos videos disk usage ports processes "
NOUNS += "branches tags issues mail calendar weather uptime network cache images logs"
WORDS = (VERBS + " " + NOUNS + " recent history folder project remote local").split()


def write_corpus(root: Path, count: int) -> None:
    """``load.py``'s skills with distinct tool names and descriptions."""
    from load import skill_text

    rng = random.Random(12)
    verbs, nouns = VERBS.split(), NOUNS.split()
    for i in range(count):
        name = f"skill-{i:04d}"
        lines = skill_text(name, i).split("\n")
        used: set[str] = set()
        for at, line in enumerate(lines):
            if line.startswith("### tool_"):
                tool = f"{rng.choice(verbs)}_{rng.choice(nouns)}"
                while tool in used:
                    tool = f"{rng.choice(verbs)}_{rng.choice(nouns)}_{len(used)}"
                used.add(tool)
                lines[at] = f"### {tool}"
                lines[at + 2] += " " + " ".join(rng.choices(WORDS, k=6)) + f" ({i})."
        folder = root / name
        (folder / "scripts").mkdir(parents=True)
        (folder / "SKILL.md").write_text("\n".join(lines), encoding="utf-8")
        script = folder / "scripts" / "convert.sh"
        script.write_text('#!/bin/sh\nexec convert "$@"\n')
        script.chmod(0o755)


def drain() -> None:
    from PySide6.QtWidgets import QApplication

    QApplication.processEvents()
    QApplication.processEvents()


CLOCK = time.perf_counter
"""Wall-clock time; ``--cpu`` makes it the GUI thread's CPU time (``time.thread_time``),
which waiting for a core on a busy machine does not inflate."""


def timed(action: Callable[[], None]) -> float:
    """Milliseconds from ``action`` until the events it caused (layout, paint) are done."""
    started = CLOCK()
    action()
    drain()
    return (CLOCK() - started) * 1000


def type_letters(line_edit, text: str) -> list[float]:
    from PySide6.QtTest import QTest

    return [timed(lambda ch=ch: QTest.keyClick(line_edit, ch)) for ch in text]


def floor_letters(floor: Floor, text: str) -> list[float]:
    """Each letter typed into the bare line edit, and the list's rows replaced by the
    first 12 texts holding what is typed (a bare substring filter over every tool)."""
    from PySide6.QtTest import QTest

    def letter(ch: str) -> None:
        QTest.keyClick(floor.input, ch)
        typed = floor.input.text().lower()
        floor.model.setStringList(list(islice((t for t in floor.texts if typed in t), 12)))

    return [timed(lambda ch=ch: letter(ch)) for ch in text]


class Floor:
    """The same widgets, bare: a frame with a line edit and 12 rows, and every tool's
    name and description lower-cased once (``texts``) for a bare substring filter."""

    def __init__(self, texts: list[str]) -> None:
        self.texts = texts
        from PySide6.QtCore import QStringListModel, Qt
        from PySide6.QtWidgets import QFrame, QLineEdit, QListView, QVBoxLayout

        self.frame = QFrame(None, Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint)
        layout = QVBoxLayout(self.frame)
        self.input = QLineEdit()
        layout.addWidget(self.input)
        self.view = QListView()
        self.model = QStringListModel([f"Tool {n}   ·   skill.tool_{n}" for n in range(12)])
        self.view.setModel(self.model)
        layout.addWidget(self.view)
        self.frame.setFixedWidth(600)

    def open(self) -> float:
        self.input.clear()
        return timed(self.frame.show)

    def close(self) -> None:
        self.frame.hide()
        drain()


def summary(name: str, values: list[float], floor: list[float], target: float) -> str:
    low, mid = min(values), statistics.median(values)
    ratio = mid / statistics.median(floor) if statistics.median(floor) else float("nan")
    verdict = "met" if mid <= target else "MISSED"
    return (
        f"  {name:<44} min {low:7.1f} ms  median {mid:7.1f} ms  "
        f"(floor median {statistics.median(floor):5.1f} ms, ratio {ratio:5.1f}x; "
        f"target <= {target:g} ms: {verdict})"
    )


Figures = dict[str, list[float]]
"""Each figure's values, one per round (a keystroke pass: its median or worst letter)."""
PASSES = ("after a library change", "again", "new words")
LINES = (("open", "floor open", 50), ("open after a library change", "floor open", 50))
LINES += tuple(
    (f"keystroke, {kind} letter, {label}", f"floor {kind} letter", 8)
    for label in PASSES
    for kind in ("median", "worst")
)
"""(figure, its floor, its target in ms), in the order they are printed."""


def report(figures: Figures) -> None:
    for name, floor, target in LINES:
        print(summary(name, figures[name], figures[floor], target))


def compare(before: Figures, now: Figures, commit: str) -> None:
    """Each figure of ``commit``'s code and of this tree's, min and median over the same
    interleaved runs, and the ratio of medians (now / before)."""
    print(f"  {'':<49} {commit[:12]:>21}   {'this tree':>21}   ratio of medians")
    names = [name for name, _floor, _target in LINES] + ["floor median letter"]
    for name in names:
        was, is_ = before[name], now[name]
        ratio = statistics.median(is_) / statistics.median(was)
        print(
            f"  {name:<49} {min(was):7.1f} / {statistics.median(was):7.1f} ms"
            f"   {min(is_):7.1f} / {statistics.median(is_):7.1f} ms   {ratio:5.2f}x"
        )


def edit_one_skill(corpus: Path, round_no: int) -> None:
    path = corpus / f"skill-{round_no:04d}" / "SKILL.md"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("# Skill", f"# Skill (edit {round_no})", 1), encoding="utf-8")


def measure(corpus: Path, rounds: range, query: str) -> Figures:
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    try:
        from gibberish.engine.core import Engine, EngineOptions
    except ImportError:  # a commit before the Engine moved (``--against``)
        from gibberish.app import Engine, EngineOptions  # type: ignore[no-redef]
    from gibberish.ui.controller import Controller

    app = QApplication.instance() or QApplication(["bench"])
    engine = Engine(EngineOptions(extra_skills_dirs=(corpus,), include_user=False))
    controller = Controller(engine, tray_available=True)
    warm_steps: list[float] = []

    def counted(step: Callable[[], None]) -> Callable[[], None]:
        def call() -> None:
            started = CLOCK()  # the call only: draining here would count other idle work
            step()
            warm_steps.append((CLOCK() - started) * 1000)

        return call

    text = controller.text
    text.warm_up, text.indexes_ahead = counted(text.warm_up), counted(text.indexes_ahead)
    controller.start()
    while not controller.host.is_ready:
        app.processEvents()
    tools = len(controller.engine.library.tools())
    deadline = time.monotonic() + 30
    bar_ahead = lambda: controller.text.command_bar  # noqa: E731
    while time.monotonic() < deadline and not (bar_ahead() and bar_ahead().index_made_ahead):
        QTest.qWait(20)  # made ahead, after the load
    first_open = timed(controller.open_command_bar)
    bar = controller.text.command_bar
    close = lambda: QTest.keyClick(bar.input, Qt.Key.Key_Escape)  # noqa: E731
    close()
    drain()
    floor = Floor([f"{r.tool.name} {r.tool.description}".lower() for r in engine.library.tools()])
    floor.open()
    floor.close()

    opens, changed_opens, floor_opens = [], [], []
    cold_keys, warm_keys, new_keys, floor_keys = [], [], [], []
    for round_no in rounds:
        reloads = []
        controller.reloader.done.connect(reloads.append)
        edit_one_skill(corpus, round_no)
        deadline = time.monotonic() + 10
        while not reloads and time.monotonic() < deadline:  # the file watcher's reload
            QTest.qWait(10)
        controller.reloader.done.disconnect(reloads.append)
        if not reloads:
            raise SystemExit("the file watcher did not reload the edited skill within 10 s")
        drain()
        changed_opens.append(timed(controller.open_command_bar))
        QTest.qWait(REACTION_MS)
        cold_keys.append(type_letters(bar.input, query))
        close()
        drain()
        opens.append(timed(controller.open_command_bar))
        warm_keys.append(type_letters(bar.input, query))
        close()
        drain()
        controller.open_command_bar()
        new_keys.append(type_letters(bar.input, NEW_QUERIES[round_no % len(NEW_QUERIES)]))
        close()
        drain()
        floor_opens.append(floor.open())
        floor_keys.append(floor_letters(floor, query))
        floor.close()
    load = os.getloadavg()
    clock = "GUI thread CPU time" if CLOCK is time.thread_time else "wall-clock time"
    print(
        f"command bar, {tools} tools, {clock} ({len(rounds)} rounds; load average {load[0]:.2f} "
        f"{load[1]:.2f} {load[2]:.2f}; query {query!r}, {len(query)} letters)"
    )
    steps = " + ".join(f"{v:.1f}" for v in warm_steps)
    print(
        f"  made ahead, in idle turns after the load: {steps} ms; then the first open {first_open:.1f} ms"
    )
    figures: Figures = {"open": opens, "open after a library change": changed_opens}
    figures["floor open"] = floor_opens
    figures["floor median letter"] = [statistics.median(keys) for keys in floor_keys]
    figures["floor worst letter"] = [max(keys) for keys in floor_keys]
    for label, runs in zip(PASSES, (cold_keys, warm_keys, new_keys), strict=True):
        figures[f"keystroke, median letter, {label}"] = [statistics.median(k) for k in runs]
        figures[f"keystroke, worst letter, {label}"] = [max(k) for k in runs]
    print("  per letter, first round after a change: " + " ".join(f"{v:.1f}" for v in cold_keys[0]))
    controller.shutdown()
    drain()
    return figures


def against(commit: str, options: argparse.Namespace) -> int:
    """Run this script on ``commit``'s code and on this tree's, one round each in turn
    (``--repeat`` pairs, each its own process with its own corpus), then print both
    side by side: the same machine, the same load, the same measurement."""
    here = Path(__file__).resolve().parent
    tree = Path(tempfile.mkdtemp(prefix="gibberish-bench-against-"))
    try:
        archive = subprocess.run(
            ["git", "-C", str(here), "archive", commit], capture_output=True, check=True
        )
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive.stdout, check=True)
        code = {commit: tree, "now": here.parent}
        results: dict[str, Figures] = {commit: {}, "now": {}}
        for pair in range(options.repeat):
            for name, root in code.items():
                out = tree / f"{name}-{pair}.json"
                rounds, first = str(options.per_process), str(pair * options.per_process)
                argv = [sys.executable, __file__, "--repeat", rounds, "--first-round", first]
                argv += ["--skills", str(options.skills), "--query", options.query]
                argv += ["--json", str(out)] + (["--cpu"] if options.cpu else [])
                env = {**os.environ, "PYTHONPATH": str(root)}
                subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
                for key, values in json.loads(out.read_text()).items():
                    results[name].setdefault(key, []).extend(values)
        clock = "GUI thread CPU time" if options.cpu else "wall-clock time"
        load = os.getloadavg()
        print(
            f"command bar, {options.skills} skills, {clock}: {commit} and this tree interleaved, "
            f"{options.repeat} processes of {options.per_process} rounds each "
            f"(load average {load[0]:.2f}); min / median"
        )
        compare(results[commit], results["now"], commit)
        print("this tree alone, next to its floor:")
        report(results["now"])
    finally:
        shutil.rmtree(tree, ignore_errors=True)
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--query", default="show me the last 5 commits")
    parser.add_argument("--cpu", action="store_true", help="the GUI thread's CPU time")
    parser.add_argument("--against", metavar="COMMIT", help="side by side with COMMIT's code")
    parser.add_argument(
        "--per-process", type=int, default=1, help="with --against: rounds in each process"
    )
    parser.add_argument("--first-round", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--json", type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    global CLOCK
    if options.cpu:
        CLOCK = time.thread_time
    if options.against:
        return against(options.against, options)
    root = Path(tempfile.mkdtemp(prefix="gibberish-bench-bar-"))
    try:
        isolate(root)
        corpus = root / "skills"
        write_corpus(corpus, options.skills)
        time.sleep(2.1)  # past the library's 2 s "racy" window: unchanged files stay cached
        rounds = range(options.first_round, options.first_round + options.repeat)
        figures = measure(corpus, rounds, options.query)
        report(figures)
        if options.json:
            options.json.write_text(json.dumps(figures))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
