"""The tray's memory once loaded, next to a bare PySide6 tray app, and who holds it.

```
.venv/bin/python benchmarks/memory.py [--skills 1000] [--repeat 3] [--settle 3] [--owners]
```

**What it measures**: the resident set (RSS) of a running tray (``gibberish`` with no
arguments, offscreen, temporary HOME/XDG folders holding ``--skills`` user skills of
``load.py``'s corpus plus the bundled ones) ``--settle`` seconds after it announced
``loaded`` (the Engine loaded, the menu rebuilt: ``GIBBERISH_READY_FILE``), so that what
the tray does right after the load (the command bar made ahead, the menu filled) is in.
The **floor**, in the same run: a bare ``QApplication`` + ``QSystemTrayIcon`` + ``QMenu``
of seven actions (``startup.py``'s floor), the same time after it is shown. Runs
alternate; medians and the ratio (goal <= 2.0).

**Who holds it**, from the median gibberish run: the RSS split by mapping (``/proc/self/
smaps``: anonymous memory and the heap against each shared library and the interpreter),
the modules imported (how many per top-level package), and with ``--owners`` a second,
separate run under ``tracemalloc`` (which adds its own overhead, so its RSS is not
compared): the Python allocations still held, by package and by file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from startup import BUNDLED_SKILLS, FLOOR_CHILD, REPO, TOOLS_PER_SKILL, tray_env

REPORTER = r'''
import collections, json, os, sys, threading, time

def _smaps():
    """RSS in KiB by mapping: a library's basename, [heap], [anon], [stack]..."""
    found = collections.Counter()
    name = "?"
    with open("/proc/self/smaps") as stream:
        for line in stream:
            head = line.split(None, 1)[0]
            if "-" in head and not head.endswith(":"):
                parts = line.split()
                name = os.path.basename(parts[5]) if len(parts) > 5 else "[anon]"
            elif head == "Rss:":
                found[name] += int(line.split()[1])
    return found

def _status():
    out = {}
    with open("/proc/self/status") as stream:
        for line in stream:
            key, _, value = line.partition(":")
            if key in ("VmRSS", "RssAnon", "RssFile", "RssShmem"):
                out[key] = int(value.split()[0])
    return out

def _python_owners(limit=25):
    import tracemalloc
    if not tracemalloc.is_tracing():
        return None
    snapshot = tracemalloc.take_snapshot()
    by_file = collections.Counter()
    for stat in snapshot.statistics("filename"):
        by_file[stat.traceback[0].filename] += stat.size
    by_package = collections.Counter()
    for filename, size in by_file.items():
        parts = filename.replace("\\", "/").split("/")
        if "site-packages" in parts:
            package = parts[parts.index("site-packages") + 1]
        elif "gibberish" in parts:
            i = len(parts) - 1 - parts[::-1].index("gibberish")
            package = "/".join(parts[i:i + 2]) if i + 2 < len(parts) else "gibberish"
        elif filename.startswith("<"):
            package = filename
        else:
            package = "stdlib:" + parts[-1]
        by_package[package] += size
    lines = [
        (f"{s.traceback[0].filename}:{s.traceback[0].lineno}", s.size)
        for s in snapshot.statistics("lineno")[:limit]
    ]
    return {
        "lines": lines,
        "traced": sum(by_file.values()),
        "packages": by_package.most_common(limit),
        "files": by_file.most_common(limit),
    }

def _report(fifo, stage, settle):
    with open(fifo, "rb") as stream:
        buffer = b""
        while stage.encode() not in buffer.split(b"\n"):
            chunk = stream.read1(4096) if hasattr(stream, "read1") else stream.read(4096)
            buffer += chunk
    time.sleep(settle)
    before = _status()
    if os.environ.get("MEMORY_TRIM"):
        import ctypes, gc
        gc.collect()
        ctypes.CDLL(None).malloc_trim(0)
    packages = collections.Counter(name.split(".")[0] for name in list(sys.modules))
    out = {
        "status": _status(),
        "before_trim": before,
        "smaps": _smaps().most_common(30),
        "modules": len(sys.modules),
        "module_names": sorted(sys.modules),
        "packages": packages.most_common(25),
        "python": _python_owners(),
        "threads": [t.name for t in threading.enumerate()],
    }
    with open(os.environ["MEMORY_REPORT"], "w") as stream:
        json.dump(out, stream)
    os._exit(0)

def watch(stage):
    fifo = os.environ["GIBBERISH_READY_FILE"]
    settle = float(os.environ.get("MEMORY_SETTLE", "3"))
    threading.Thread(target=_report, args=(fifo, stage, settle), daemon=True).start()

if os.environ.get("MEMORY_TRACE"):
    import tracemalloc
    tracemalloc.start()
'''

GIBBERISH_CHILD = (
    REPORTER
    + """
watch("loaded")
sys.argv = ["gibberish"]
from gibberish.cli import main
main()
"""
)

FLOOR = REPORTER + '\nwatch("shown")\n' + FLOOR_CHILD


def measure(script: Path, args: list[str], env: dict[str, str], settle: float, trace: bool):
    """Run one child to its stage; its report (RSS in KiB, mappings, modules, owners)."""
    pipe = Path(env["HOME"]) / "ready.pipe"
    report = Path(env["HOME"]) / "memory.json"
    pipe.unlink(missing_ok=True)
    report.unlink(missing_ok=True)
    os.mkfifo(pipe, 0o600)
    env = {
        **env,
        "GIBBERISH_READY_FILE": str(pipe),
        "MEMORY_REPORT": str(report),
        "MEMORY_SETTLE": str(settle),
    }
    if trace:
        env["MEMORY_TRACE"] = "1"
    try:
        result = subprocess.run(
            [sys.executable, str(script), *args], env=env, capture_output=True, timeout=300
        )
        if not report.exists():
            raise RuntimeError(f"no report ({result.returncode}): {result.stderr[-1500:]!r}")
        return json.loads(report.read_text())
    finally:
        pipe.unlink(missing_ok=True)


def _mib(kib: float) -> str:
    return f"{kib / 1024:6.1f} MiB"


def _show_owners(report: dict) -> None:
    status = report["status"]
    print(
        f"  RSS {_mib(status['VmRSS'])}: anonymous {_mib(status['RssAnon'])}, "
        f"files (code, libraries) {_mib(status['RssFile'])}, shared {_mib(status['RssShmem'])}"
    )
    print("  by mapping (/proc/self/smaps), largest first:")
    for name, kib in report["smaps"][:18]:
        print(f"    {_mib(kib)}  {name}")
    print(f"  {report['modules']} modules imported; by top-level package:")
    print("    " + ", ".join(f"{name} {count}" for name, count in report["packages"]))
    print(f"  threads: {', '.join(report['threads'])}")


def _show_python(report: dict) -> None:
    python = report["python"]
    print(f"  Python allocations still held (tracemalloc): {_mib(python['traced'] / 1024)}")
    print("  by package:")
    for name, size in python["packages"]:
        print(f"    {_mib(size / 1024)}  {name}")
    print("  by file:")
    for name, size in python["files"][:15]:
        print(f"    {_mib(size / 1024)}  {name}")
    print("  by line:")
    for name, size in python["lines"][:20]:
        print(f"    {_mib(size / 1024)}  {name}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--settle", type=float, default=3.0)
    parser.add_argument("--owners", action="store_true", help="also a tracemalloc run")
    options = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="gibberish-bench-"))
    try:
        env = tray_env(root / "tray", options.skills)
        app_script, floor_script = root / "app.py", root / "floor.py"
        app_script.write_text(GIBBERISH_CHILD)
        floor_script.write_text(FLOOR)
        icon = [str(REPO / "resources" / "tray-normal.svg")]
        print(
            f"tray RSS, {options.skills} user skills + bundled, {options.settle:.0f} s after "
            f"loaded; {options.repeat} runs each, alternating; load {os.getloadavg()[0]:.2f}"
        )
        measure(app_script, [], env, options.settle, False)  # bytecode, parse and menu caches
        apps, floors = [], []
        for _ in range(options.repeat):
            floors.append(measure(floor_script, icon, env, options.settle, False))
            apps.append(measure(app_script, [], env, options.settle, False))
        app_rss = [r["status"]["VmRSS"] for r in apps]
        floor_rss = [r["status"]["VmRSS"] for r in floors]
        print(f"  gibberish tray, loaded     median {_mib(statistics.median(app_rss))}")
        print(f"  bare PySide6 tray (floor)  median {_mib(statistics.median(floor_rss))}")
        ratio = statistics.median(app_rss) / statistics.median(floor_rss)
        print(f"  ratio {ratio:.2f} (goal <= 2.0) {'met' if ratio <= 2.0 else 'MISSED'}")
        print(f"  difference {_mib(statistics.median(app_rss) - statistics.median(floor_rss))}")
        shaped = measure(
            floor_script, [*icon, str(options.skills + BUNDLED_SKILLS)], env, options.settle, False
        )
        print(
            f"  for information: the floor with {options.skills + BUNDLED_SKILLS} empty "
            f"submenus (Qt's own cost of the menu's shape): {_mib(shaped['status']['VmRSS'])}"
        )
        filled = measure(
            floor_script,
            [*icon, str(options.skills + BUNDLED_SKILLS), str(TOOLS_PER_SKILL)],
            env,
            options.settle,
            False,
        )
        print(
            f"  for information: the same submenus with {TOOLS_PER_SKILL} actions each, as "
            f"the tray fills them (Qt and PySide alone): {_mib(filled['status']['VmRSS'])}"
        )
        median_app = sorted(apps, key=lambda r: r["status"]["VmRSS"])[len(apps) // 2]
        median_floor = sorted(floors, key=lambda r: r["status"]["VmRSS"])[len(floors) // 2]
        print("gibberish (median run):")
        _show_owners(median_app)
        print("floor (median run):")
        _show_owners(median_floor)
        if options.owners:
            print("gibberish under tracemalloc (a separate run):")
            _show_python(measure(app_script, [], env, options.settle, True))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
