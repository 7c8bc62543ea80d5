"""Start-up cost of the tray, and how responsive the UI stays while a tool floods output.

    .venv/bin/python benchmarks/startup.py [--skills 200] [--repeat 7] [--megabytes 100]

1. **Cold start.** A corpus of ``--skills`` skill folders (3 tools each, with parameters) is
   generated in a temporary folder. Each measurement is a fresh Python process, timed from
   spawn until it prints "ready" on the first turn of the Qt event loop:

   * *floor* — ``QApplication`` plus one empty ``QMenu`` (what any PySide6 tray pays);
   * *app*   — ``gibberish.ui.application.run_application`` with that corpus (single-instance
     check, error reporter, Engine, every SKILL.md parsed, the tray menu built).

   Both run offscreen, alternating, ``--repeat`` times each, after one warm-up run each
   (which also writes the bytecode cache, as an installed package has, and the tray's
   menu cache); the medians and their ratio are printed. Target: app ≤ 1.5 × floor.

2. **Streaming.** A tool whose script prints ``--megabytes`` MB (``head -c N /dev/urandom |
   base64`` inside a bash script: the pipe lives in the script, not in the command) runs
   through the real Engine into a visible result window, while a 5 ms ``QTimer`` heartbeat
   records the gaps between its ticks. Target: no gap > 50 ms.

3. **The command line** (``--cli``, or ``--cli-only`` for this part alone), through the
   installed ``gibberish`` program, ``--repeat`` runs each, alternating, after a warm-up:

   * ``gibberish --version`` against bare ``python -c pass``. Target: <= 2 x.
   * ``gibberish run system.uptime --json --yes`` with 1,000 user skills (5 tools each,
     the corpus of ``benchmarks/load.py``) against the same run with 5. Target: <= 1.5 x.

   Each prints min and median and the ratios, and the load average at the time.

The corpus and all XDG folders live in a temporary folder that is removed afterwards.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

FLOOR_CHILD = """
from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QApplication, QMenu
app = QApplication(["floor"])
menu = QMenu()
def ready():
    print("ready", flush=True)
    app.quit()
QTimer.singleShot(0, ready)
app.exec()
"""

APP_CHILD = """
import sys
from PySide6.QtCore import QTimer
from gibberish.ui.application import make_application, run_application
from pathlib import Path
corpus = Path(sys.argv[1])
app = make_application(["gibberish"])
controller = []

def skill_count():
    menu = controller[0].menu
    return len([a for a in menu.actions() if a.objectName().startswith("skill:")])

def ready():
    print("ready", skill_count(), flush=True)
    poll.start()

def check_loaded():
    if controller[0].host.is_ready and skill_count():
        poll.stop()
        print("loaded", skill_count(), flush=True)
        app.quit()

poll = QTimer()
poll.setInterval(1)
poll.timeout.connect(check_loaded)
QTimer.singleShot(0, ready)

def factory():
    from gibberish.app import Engine, EngineOptions
    return Engine(EngineOptions(extra_skills_dirs=(corpus,), include_user=False, include_bundled=False))

sys.exit(run_application(factory, tray_available=True, on_start=controller.append))
"""


def write_corpus(root: Path, count: int) -> Path:
    """``count`` skill folders, each with three tools (one without parameters)."""
    corpus = root / "corpus"
    for i in range(count):
        name = f"skill-{i:03d}"
        folder = corpus / name
        folder.mkdir(parents=True)
        text = textwrap.dedent(
            f"""\
            ---
            name: {name}
            version: 1.0.{i}
            description: Benchmark skill number {i}. Use it to measure how fast gibberish starts.
            modes: [Global, Dev]
            read_only: true
            timeout: 10
            ---

            # {name}

            ### status_{i}

            Show the status of thing {i}.

            #### Parameters

            None.

            #### Command

            ```bash
            echo status {i}
            ```

            ### search_{i}

            Search thing {i} for a word.

            #### Parameters

            | Name | Type | Required | Description |
            |------|------|----------|-------------|
            | query | string | yes | The word to look for |
            | limit | integer | no | How many results (default: 10) |
            | exact | boolean | no | Match the whole word only |

            #### Command

            ```bash
            echo search {{{{exact:--exact}}}} -n {{{{limit}}}} -- {{{{query}}}}
            ```

            ### tag_{i}

            Add tags to thing {i}.

            #### Parameters

            | Name | Type | Required | Description |
            |------|------|----------|-------------|
            | tags | array | yes | Tags to add |

            #### Command

            ```bash
            echo tag {{{{tags}}}}
            ```
            """
        )
        (folder / "SKILL.md").write_text(text, encoding="utf-8")
    return corpus


def isolated_env(root: Path) -> dict[str, str]:
    env = dict(os.environ)
    for var in (
        "HOME",
        "XDG_CONFIG_HOME",
        "XDG_DATA_HOME",
        "XDG_STATE_HOME",
        "XDG_CACHE_HOME",
        "XDG_RUNTIME_DIR",
    ):
        path = root / "env" / var.lower()
        path.mkdir(parents=True, exist_ok=True, mode=0o700)
        env[var] = str(path)
    env["QT_QPA_PLATFORM"] = "offscreen"
    env["PYTHON_KEYRING_BACKEND"] = "keyrings.alt.file.PlaintextKeyring"
    env["PYTHONPATH"] = str(REPO)
    # Compiled bytecode, as after a normal install (``pip`` compiles on install): allow
    # writing it, into a cache folder inside the temporary folder (not the source tree).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"):
        env.pop(var, None)
    return env


def time_child(code: str, args: list[str], env: dict[str, str]) -> tuple[float, float, int]:
    """Seconds until the child printed "ready" and until "loaded" (or the end), and its count."""
    started = time.perf_counter()
    proc = subprocess.Popen(
        [PYTHON, "-c", code, *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    assert proc.stdout is not None
    line = proc.stdout.readline()
    ready = time.perf_counter() - started
    if not line.startswith("ready"):
        raise RuntimeError(f"child did not get ready: {line!r}")
    count = int(line.split()[1]) if len(line.split()) > 1 else 0
    second = proc.stdout.readline()
    loaded = time.perf_counter() - started
    if second.startswith("loaded"):
        count = int(second.split()[1])
    proc.wait(timeout=60)
    return ready, loaded, count


def cold_start(corpus: Path, env: dict[str, str], repeat: int) -> None:
    floors: list[float] = []
    apps: list[float] = []
    loads: list[float] = []
    # One warm-up of each (page cache, .pyc files, and the menu cache the tray draws
    # its first menu from), not counted.
    time_child(FLOOR_CHILD, [], env)
    time_child(APP_CHILD, [str(corpus)], env)
    shown = loaded_count = 0
    for _ in range(repeat):
        floors.append(time_child(FLOOR_CHILD, [], env)[0])
        ready, loaded, count = time_child(APP_CHILD, [str(corpus)], env)
        apps.append(ready)
        loads.append(loaded)
        loaded_count = count
    _, _, shown = time_child(APP_CHILD.replace("poll.start()", "app.quit()"), [str(corpus)], env)
    floor = statistics.median(floors)
    app = statistics.median(apps)
    load = statistics.median(loads)
    ratio = app / floor
    print("cold start (fresh process, offscreen, median of", repeat, "runs)")
    print(f"  corpus: {corpus} ({loaded_count} skills, 3 tools each)")
    print(
        f"  floor  QApplication + empty QMenu, first event-loop turn : {floor * 1000:6.1f} ms  {_fmt(floors)}"
    )
    print(
        f"  app    tray menu built ({shown} skill submenus), first turn : {app * 1000:6.1f} ms  {_fmt(apps)}"
    )
    print(
        f"  app    Engine loaded, menu rebuilt from the {loaded_count} SKILL.md : {load * 1000:6.1f} ms  {_fmt(loads)}"
    )
    verdict = "OK" if ratio <= 1.5 else "OVER TARGET"
    print(f"  ratio  menu built / floor = {ratio:.2f} (target <= 1.50)  {verdict}")
    print(f"  ratio  Engine loaded / floor = {load / floor:.2f} (for information)")


def _fmt(values: list[float]) -> str:
    return "[" + " ".join(f"{v * 1000:.0f}" for v in values) + "] ms"


def streaming(root: Path, megabytes: int) -> None:
    from PySide6.QtCore import QElapsedTimer, QEventLoop, QTimer
    from PySide6.QtWidgets import QApplication

    from gibberish.app import Engine, EngineOptions
    from gibberish.ui.controller import Controller

    skills = root / "flood-skills"
    folder = skills / "flood"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        textwrap.dedent(
            """\
            ---
            name: flood
            version: 1.0.0
            description: Print a lot of output. Use to measure the result window.
            timeout: 300
            ---

            ### flood

            Print base64 of random bytes.

            #### Parameters

            None.

            #### Command

            ```bash
            ./flood.sh
            ```
            """
        ),
        encoding="utf-8",
    )
    script = folder / "flood.sh"
    script.write_text(f"#!/bin/bash\nhead -c {megabytes * 1_000_000} /dev/urandom | base64\n")
    script.chmod(0o755)

    app = QApplication.instance() or QApplication(["bench"])
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills,), include_user=False, include_bundled=False)
    )
    controller = Controller(engine, tray_available=True)
    controller.start()
    prepared = engine.prepare("flood.flood")

    gaps: list[float] = []
    clock = QElapsedTimer()
    heartbeat = QTimer()
    heartbeat.setInterval(5)
    last = [0.0]

    def beat() -> None:
        now = clock.nsecsElapsed() / 1e6
        gaps.append(now - last[0])
        last[0] = now

    heartbeat.timeout.connect(beat)
    clock.start()
    heartbeat.start()
    started = time.perf_counter()
    session = controller.runs.start(prepared, confirmed=True, show=True)
    loop = QEventLoop()
    poll = QTimer()
    poll.setInterval(20)
    poll.timeout.connect(lambda: loop.quit() if session.result is not None else None)
    poll.start()
    loop.exec()
    elapsed = time.perf_counter() - started
    heartbeat.stop()
    poll.stop()
    result = session.result
    assert result is not None
    total = session.bridge.tail.total
    window_chars = session.window.view.document().characterCount()
    gaps = gaps[1:]
    worst = max(gaps)
    p99 = statistics.quantiles(gaps, n=100)[98]
    print()
    print("streaming (UI thread heartbeat every 5 ms while a tool prints)")
    print(f"  tool: bash script, head -c {megabytes} MB /dev/urandom | base64")
    print(
        f"  output {total / 1e6:.1f} MB in {elapsed:.1f} s ({total / 1e6 / elapsed:.0f} MB/s), "
        f"status {result.status.value}, window keeps {window_chars} chars"
    )
    print(
        f"  heartbeat gaps: {len(gaps)} ticks, median {statistics.median(gaps):.1f} ms, "
        f"p99 {p99:.1f} ms, max {worst:.1f} ms (target max <= 50 ms)  "
        f"{'OK' if worst <= 50 else 'OVER TARGET'}"
    )
    controller.shutdown()
    app.processEvents()


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{argv} failed ({result.returncode}): {result.stderr[-500:]}")
    return elapsed


def _paired(a: list[str], env_a: dict, b: list[str], env_b: dict, repeat: int) -> tuple:
    """``repeat`` alternating timings of ``a`` and ``b`` after one warm-up of each."""
    _timed(a, env_a), _timed(b, env_b)
    first: list[float] = []
    second: list[float] = []
    for _ in range(repeat):
        first.append(_timed(a, env_a))
        second.append(_timed(b, env_b))
    return first, second


def _line(name: str, values: list[float]) -> str:
    return (
        f"  {name:<42} min {min(values) * 1000:7.1f} ms  median "
        f"{statistics.median(values) * 1000:7.1f} ms  {_fmt(values)}"
    )


def _verdict(name: str, top: list[float], floor: list[float], target: float) -> str:
    ratio = statistics.median(top) / statistics.median(floor)
    verdict = "met" if ratio <= target else "MISSED"
    return (
        f"  ratio {name}: median {ratio:.2f}, min {min(top) / min(floor):.2f} "
        f"(target <= {target:.2f}) {verdict}"
    )


def cli_start(root: Path, repeat: int) -> None:
    """``gibberish --version`` against bare Python; ``gibberish run`` at 1,000 against 5."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from load import write_corpus as write_load_corpus

    program = str(Path(PYTHON).parent / "gibberish")
    envs = {}
    for count in (5, 1000):
        env = isolated_env(root / f"cli-{count}")
        write_load_corpus(Path(env["XDG_CONFIG_HOME"]) / "gibberish" / "skills", count)
        envs[count] = env
    load = os.getloadavg()
    print()
    print(f"command line ({repeat} runs each, alternating; load average {load[0]:.2f})")
    version, bare = _paired(
        [program, "--version"], envs[5], [PYTHON, "-c", "pass"], envs[5], repeat
    )
    print(_line("gibberish --version", version))
    print(_line("python -c pass (floor)", bare))
    print(_verdict("--version / python", version, bare, 2.0))
    run = [program, "run", "system.uptime", "--json", "--yes"]
    many, few = _paired(run, envs[1000], run, envs[5], repeat)
    print(_line("gibberish run system.uptime, 1,000 skills", many))
    print(_line("gibberish run system.uptime, 5 skills", few))
    print(_verdict("1,000 / 5 skills", many, few, 1.5))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--megabytes", type=int, default=100)
    parser.add_argument("--skip-streaming", action="store_true")
    parser.add_argument("--cli", action="store_true", help="also time the command line")
    parser.add_argument("--cli-only", action="store_true", help="time the command line only")
    options = parser.parse_args()
    if options.cli_only:
        root = Path(tempfile.mkdtemp(prefix="gibberish-bench-"))
        try:
            cli_start(root, options.repeat)
        finally:
            shutil.rmtree(root, ignore_errors=True)
        return 0

    root = Path(tempfile.mkdtemp(prefix="gibberish-bench-"))
    try:
        env = isolated_env(root)
        corpus = write_corpus(root, options.skills)
        cold_start(corpus, env, options.repeat)
        if options.cli:
            cli_start(root, options.repeat)
        if not options.skip_streaming:
            os.environ.update({k: env[k] for k in env if k.startswith("XDG_") or k == "HOME"})
            os.environ["QT_QPA_PLATFORM"] = "offscreen"
            os.environ["PYTHON_KEYRING_BACKEND"] = env["PYTHON_KEYRING_BACKEND"]
            streaming(root, options.megabytes)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
