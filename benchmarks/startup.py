"""Start-up cost of the tray and of the command line (streaming: ``benchmarks/streaming.py``).

    .venv/bin/python benchmarks/startup.py [--skills 200] [--repeat 5]
                                           [--menu-only | --cli-only] [--cli]

1. **The first tray menu**, through the installed ``gibberish`` program (the console
   script, so the front door and everything it imports are counted), against the Qt
   floor: a separate ``python`` process with a bare ``QApplication``, a
   ``QSystemTrayIcon`` (the same SVG icon) and a ``QMenu`` of seven entries. Both say
   when they are ready the same way: ``GIBBERISH_READY_FILE`` names a named pipe, and
   each writes ``shown`` to it on the first turn of the event loop once its icon is shown
   with its menu (gibberish also writes ``loaded`` once the Engine has loaded and the
   menu was rebuilt from it). Time is from spawn until the line arrives; each pair of
   runs (floor, then gibberish) is repeated ``--repeat`` times after one unmeasured pair.

   The user skills folder holds ``--skills`` skills of five tools each (the corpus of
   ``benchmarks/load.py``), next to the bundled skills; offscreen, with
   ``GIBBERISH_FORCE_TRAY=1`` since the offscreen platform has no system tray.

   * *cold*: no parse cache, no menu cache and no bytecode, for both processes (an
     empty ``PYTHONPYCACHEPREFIX`` with ``PYTHONDONTWRITEBYTECODE=1``: nothing from the
     standard library, PySide6 or gibberish is read from a ``.pyc``);
   * *warm*: the caches and bytecode a previous start left behind.

   Prints min and median for each and the ratios (target: first menu <= 1.5 x the
   floor, cold and warm), and the load average before and after.

2. **The command line** (``--cli``, or ``--cli-only`` for this part alone), through the
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
import select
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable

FLOOR_CHILD = """
import os, sys
from PySide6.QtCore import QTimer
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QApplication, QMenu, QSystemTrayIcon
app = QApplication(["floor"])
app.setQuitOnLastWindowClosed(False)
menu = QMenu()
for text in ("Mode", "Ask", "Listen", "Problems", "Recent runs", "Settings", "Quit"):
    menu.addAction(text)
for i in range(int(sys.argv[2]) if len(sys.argv) > 2 else 0):
    sub = menu.addMenu(QMenu(f"skill-{i:04d}", menu))
    for j in range(int(sys.argv[3]) if len(sys.argv) > 3 else 0):
        action = sub.menu().addAction(f"Tool {j}")
        action.setObjectName(f"tool:skill-{i:04d}.tool_{j}")
        action.setToolTip(f"What tool {j} of skill {i} does, in a sentence.")
tray = QSystemTrayIcon(QIcon(sys.argv[1]))
tray.setContextMenu(menu)
tray.show()
def ready():
    with open(os.environ["GIBBERISH_READY_FILE"], "a") as stream:
        stream.write("shown\\n")
QTimer.singleShot(0, ready)
app.exec()
"""
"""The Qt floor: a bare tray icon (the same SVG as gibberish's) with a small menu,
announcing itself exactly as gibberish does (``GIBBERISH_READY_FILE``). A second argument
adds that many empty submenus: the same shape as a menu of that many skills (printed for
information: what Qt alone pays for the entries of a warm start's menu); a third, that
many actions in each (with an object name and a tooltip, as the tray's tools have)."""

BUNDLED_SKILLS = len(list((REPO / "skills").glob("*/SKILL.md")))
"""Skills shipped with gibberish, which the menu lists next to the corpus."""
TOOLS_PER_SKILL = 5
"""The corpus of ``benchmarks/load.py``: five tools per skill, block-style lists."""


def tray_env(root: Path, skills: int) -> dict[str, str]:
    """Temporary HOME/XDG folders whose user skills folder holds ``skills`` skills.

    Their times are set a minute back, so that no skill is "racy" (changed within the
    parse cache's two-second window) and a warm start can trust its cache.
    """
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from load import write_corpus as write_load_corpus

    env = isolated_env(root)
    folder = Path(env["XDG_CONFIG_HOME"]) / "gibberish" / "skills"
    write_load_corpus(folder, skills)
    past = time.time() - 60
    for path in sorted(folder.rglob("*"), reverse=True):
        os.utime(path, (past, past))
    past_racy_window(folder)  # their ctimes are now: utime cannot move those
    env["GIBBERISH_FORCE_TRAY"] = "1"  # offscreen has no system tray; the floor has one
    return env


def past_racy_window(folder: Path) -> None:
    """Wait until no file of ``folder`` changed within the parse cache's racy window (the
    corpus was just written: its ctimes are now, whatever ``os.utime`` set), so the cache
    the first run saves is trusted by the next runs instead of re-read (which would
    import the parser)."""
    from gibberish.skills.library import RACY_WINDOW_NS

    newest = max(p.stat().st_ctime_ns for p in [folder, *folder.rglob("*")])
    wait = (newest + RACY_WINDOW_NS - time.time_ns()) / 1e9
    if wait > 0:
        time.sleep(wait + 0.05)


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
    # Compiled bytecode, as after a normal install (``pip`` compiles on install), into a
    # folder inside the temporary folder (a cold run points it at an empty one instead).
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(root / "pycache")
    for var in ("DISPLAY", "WAYLAND_DISPLAY", "DBUS_SESSION_BUS_ADDRESS"):
        env.pop(var, None)
    return env


def _wait_stages(proc: subprocess.Popen, fd: int, stages: list[str], started: float) -> dict:
    """Seconds from ``started`` until each of ``stages`` was written to the pipe ``fd``."""
    seen: dict[str, float] = {}
    buffer = b""
    deadline = started + 120
    while len(seen) < len(stages):
        if time.perf_counter() > deadline or proc.poll() is not None:
            raise RuntimeError(f"{proc.args[0]} stopped before {stages}: saw {sorted(seen)}")
        readable, _, _ = select.select([fd], [], [], 0.2)
        if not readable:
            continue
        buffer += os.read(fd, 4096)
        now = time.perf_counter() - started
        *lines, buffer = buffer.split(b"\n")
        for line in lines:
            seen.setdefault(line.decode(), now)
    return seen


def time_start(argv: list[str], env: dict[str, str], stages: list[str]) -> dict[str, float]:
    """Spawn ``argv``; seconds until it announced each of ``stages``; then SIGTERM it."""
    pipe = Path(env["HOME"]) / "ready.pipe"
    pipe.unlink(missing_ok=True)
    os.mkfifo(pipe, 0o600)
    fd = os.open(pipe, os.O_RDWR | os.O_NONBLOCK)  # also a writer: never EOF, never blocks
    env = {**env, "GIBBERISH_READY_FILE": str(pipe)}
    try:
        started = time.perf_counter()
        proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        try:
            return _wait_stages(proc, fd, stages, started)
        finally:
            proc.terminate()
            _, err = proc.communicate(timeout=60)
            if proc.returncode not in (0, -15):
                print(err.decode(errors="replace")[-2000:], file=sys.stderr)
    finally:
        os.close(fd)
        pipe.unlink(missing_ok=True)


def _clear_caches(env: dict[str, str], cold: bool, root: Path) -> dict[str, str]:
    """For a cold run: no parse cache, no menu cache, no bytecode (for either process)."""
    if not cold:
        return env
    shutil.rmtree(env["XDG_CACHE_HOME"], ignore_errors=True)
    Path(env["XDG_CACHE_HOME"]).mkdir(mode=0o700)
    empty = root / "no-pycache"
    shutil.rmtree(empty, ignore_errors=True)
    empty.mkdir()
    return {**env, "PYTHONPYCACHEPREFIX": str(empty), "PYTHONDONTWRITEBYTECODE": "1"}


def first_menu(root: Path, skills: int, repeat: int) -> None:
    """``gibberish`` (the installed command) against the Qt floor, cold and warm."""
    env = tray_env(root / "tray", skills)
    program = [str(Path(PYTHON).parent / "gibberish")]
    floor_script = root / "floor.py"
    floor_script.write_text(FLOOR_CHILD)
    floor = [PYTHON, str(floor_script), str(REPO / "resources" / "tray-normal.svg")]
    print(f"first tray menu through `gibberish`, {skills} user skills x {TOOLS_PER_SKILL} tools")
    print(f"  + the bundled skills; {repeat} paired runs each; load average {_load()}")
    for cold in (True, False):
        # One run of each first (unmeasured): the page cache, and for warm runs the
        # bytecode, parse cache and menu cache a previous start leaves behind.
        time_start(floor, _clear_caches(env, cold, root), ["shown"])
        time_start(program, _clear_caches(env, cold, root), ["shown", "loaded"])
        floors: list[float] = []
        shaped: list[float] = []
        shown: list[float] = []
        loaded: list[float] = []
        for _ in range(repeat):
            floors.append(time_start(floor, _clear_caches(env, cold, root), ["shown"])["shown"])
            app = time_start(program, _clear_caches(env, cold, root), ["shown", "loaded"])
            shown.append(app["shown"])
            loaded.append(app["loaded"])
            if not cold:
                shape = [*floor, str(skills + BUNDLED_SKILLS)]
                shaped.append(time_start(shape, env, ["shown"])["shown"])
        kind = "cold (no parse/menu cache, no bytecode)" if cold else "warm (caches, bytecode)"
        print(f" {kind}:")
        print(_line("Qt floor: tray icon + menu shown", floors))
        if shaped:
            name = f"Qt floor, {skills + BUNDLED_SKILLS} empty submenus"
            print(_line(name, shaped) + " (for information)")
        print(_line("gibberish: tray icon + first menu shown", shown))
        print(_line("gibberish: Engine loaded, menu rebuilt", loaded))
        print(_verdict("first menu / floor", shown, floors, 1.5))
        ratio = statistics.median(loaded) / statistics.median(floors)
        print(f"  ratio Engine loaded / floor: median {ratio:.2f} (for information)")
    print(f"  load average afterwards {_load()}")


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def _fmt(values: list[float]) -> str:
    return "[" + " ".join(f"{v * 1000:.0f}" for v in values) + "] ms"


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
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cli", action="store_true", help="also time the command line")
    parser.add_argument("--cli-only", action="store_true", help="time the command line only")
    parser.add_argument("--menu-only", action="store_true", help="time the first menu only")
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gibberish-bench-"))
    try:
        if not options.cli_only:
            first_menu(root, options.skills, options.repeat)
        if options.cli or options.cli_only:
            cli_start(root, options.repeat)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
