"""Runner benchmark: overhead, capture throughput and memory, time to kill a hostile tree.

Not a test: it prints figures side by side with their baselines and targets.

    .venv/bin/python benchmarks/runner.py [--quick]

1. ``/bin/true`` through the runner vs ``subprocess.run(["/bin/true"])`` — median wall
   time (target: ratio ≤ 1.5).
2. 1 GiB of output (``head -c 1G /dev/zero``) captured by the runner vs the same stream
   piped to ``cat > /dev/null`` — throughput, and the peak RSS growth of the Python
   process, measured in a fresh interpreter so earlier work does not hide it (targets:
   ≥ 1 GB/s, ≤ 8 MiB).
3. A tree that ignores SIGTERM (a trapping shell, trapping children, a ``setsid``
   escapee that also traps TERM): time from the timeout to the last of its processes
   being gone (target: ≤ grace + 200 ms), unsandboxed and inside the sandbox.
4. The sandbox: ``/bin/true`` through the runner inside bubblewrap vs the runner without
   it, vs bare ``bwrap`` (the same command line, by ``subprocess.run``) and vs
   ``subprocess.run(["/bin/true"])``, interleaved in one loop, for a read-only offline
   run and a write+network one (target: ≤ 3 ms added per run); and what the Engine adds
   before a sandboxed run: copying and fingerprinting a skill folder (the bundled notes).
   Where the offline run's seccomp filter is the socket-family list (ADR 0062), the same
   offline run is also timed, interleaved, with the filter it replaced (``AF_UNIX``
   refused, nothing else): the list may add at most 0.5 ms (printed as a ratio to that
   floor). ``--sandbox-only`` runs just this part, for comparing two commits.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from gibberish.runner import RunSpec, build_environment, new_run_id, run, start  # noqa: E402
from gibberish.runner import sandbox as sandboxing  # noqa: E402
from gibberish.runner.sandbox import Sandbox  # noqa: E402
from gibberish.trust.fingerprint import fingerprint, snapshot_folder  # noqa: E402

GIB = 1024**3


def spec_for(argv: tuple[str, ...], cwd: Path, **kwargs) -> RunSpec:
    run_id = new_run_id()
    env = build_environment(
        os.environ, skill_name="bench", skill_dir=cwd, mode="Global", run_id=run_id
    )
    return RunSpec(argv=argv, cwd=cwd, env=env, run_id=run_id, **kwargs)


def line(label: str, value: str, baseline: str, verdict: str) -> None:
    print(f"  {label:<38} {value:>10}   {baseline:>26}   {verdict}")


# -- 1. overhead -----------------------------------------------------------------------


def bench_overhead(rounds: int, cwd: Path) -> None:
    def through_run() -> float:
        spec = spec_for(("/bin/true",), cwd)  # building the spec is part of the cost
        begin = time.perf_counter()
        run(spec)
        return time.perf_counter() - begin

    def through_start() -> float:
        spec = spec_for(("/bin/true",), cwd)
        begin = time.perf_counter()
        start(spec).wait()
        return time.perf_counter() - begin

    def raw() -> float:
        begin = time.perf_counter()
        subprocess.run(["/bin/true"])
        return time.perf_counter() - begin

    for _ in range(20):  # warm up all paths (imports, worker threads, page cache)
        through_run()
        through_start()
        raw()
    times: dict[str, list[float]] = {"run": [], "start": [], "raw": []}
    for _ in range(rounds):  # interleaved, so machine noise hits all of them alike
        times["run"].append(through_run())
        times["start"].append(through_start())
        times["raw"].append(raw())
    base = statistics.median(times["raw"])
    print(f"1. /bin/true, median of {rounds} interleaved runs each")
    for key, label in (("run", "run()"), ("start", "start().wait()")):
        median = statistics.median(times[key])
        ratio = median / base
        line(
            f"runner {label}",
            f"{median * 1e3:.3f} ms",
            f"subprocess.run {base * 1e3:.3f} ms",
            f"ratio {ratio:.2f} (target <= 1.5) {'OK' if ratio <= 1.5 else 'MISSED'}",
        )


# -- 2. capture ------------------------------------------------------------------------

_CAPTURE_CHILD = """
import json, os, resource, sys, threading, time
from pathlib import Path
import psutil
sys.path.insert(0, {root!r})
from gibberish.runner import RunSpec, build_environment, new_run_id, run
cwd = Path({cwd!r})
run_id = new_run_id()
env = build_environment(os.environ, skill_name="bench", skill_dir=cwd, mode="Global", run_id=run_id)
spec = RunSpec(argv=("head", "-c", "1G", "/dev/zero"), cwd=cwd, env=env, run_id=run_id, timeout=120)
run(RunSpec(argv=("/bin/true",), cwd=cwd, env=env))  # warm the runner up first
me = psutil.Process()
baseline = me.memory_info().rss
peak = baseline
running = True
def sample():
    global peak
    while running:
        peak = max(peak, me.memory_info().rss)
        time.sleep(0.002)
sampler = threading.Thread(target=sample)
maxrss_before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
sampler.start()
begin = time.perf_counter()
result = run(spec)
elapsed = time.perf_counter() - begin
running = False
sampler.join()
maxrss_growth = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - maxrss_before
assert result.envelope.success and result.envelope.truncated, result.envelope
print(json.dumps({{"seconds": elapsed, "rss_growth": peak - baseline, "maxrss_growth_kib": maxrss_growth}}))
"""


def bench_capture(rounds: int, cwd: Path) -> None:
    code = _CAPTURE_CHILD.format(root=str(ROOT), cwd=str(cwd))
    ours = []
    growth = []
    maxrss = []
    baseline = []
    for _ in range(rounds):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True
        ).stdout
        figures = json.loads(out)
        ours.append(figures["seconds"])
        growth.append(figures["rss_growth"])
        maxrss.append(figures["maxrss_growth_kib"])
        begin = time.perf_counter()
        subprocess.run(["sh", "-c", "head -c 1G /dev/zero | cat > /dev/null"], check=True)
        baseline.append(time.perf_counter() - begin)
    a, b = statistics.median(ours), statistics.median(baseline)
    rate, base_rate = GIB / a / 1e9, GIB / b / 1e9
    peak = max(growth) / 2**20
    print(f"2. 1 GiB of output (head -c 1G /dev/zero), median of {rounds}")
    line(
        "runner capture throughput",
        f"{rate:.2f} GB/s",
        f"| cat > /dev/null {base_rate:.2f} GB/s",
        f"time vs pipe {a / b:.2f}x; target >= 1 GB/s {'OK' if rate >= 1 else 'MISSED'}",
    )
    line(
        "peak RSS growth (worst run)",
        f"{peak:.2f} MiB",
        f"ru_maxrss grew {max(maxrss) / 1024:.2f} MiB",
        f"target <= 8 MiB {'OK' if peak <= 8 else 'MISSED'}",
    )


# -- 3. killing a hostile tree ---------------------------------------------------------

_HOSTILE = """#!/bin/sh
trap '' TERM
sh -c "trap '' TERM; sleep 60" &
sh -c "trap '' TERM; sleep 60" &
( setsid sh -c "trap '' TERM; sleep 60" >/dev/null 2>&1 & )
while :; do sleep 0.05; done
"""


def _run_processes(run_id: str) -> list[psutil.Process]:
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("GIBBERISH_RUN_ID") == run_id:
                found.append(proc)
        except psutil.Error:
            continue
    return found


def _gone(proc: psutil.Process) -> bool:
    try:
        return not proc.is_running() or proc.status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


def bench_kill(
    rounds: int, cwd: Path, timeout: float = 0.5, grace: float = 1.0, box: Sandbox | None = None
) -> None:
    tool = cwd / "hostile.sh"
    tool.write_text(_HOSTILE)
    tool.chmod(0o755)
    delays = []
    returns = []
    sizes = []
    for _ in range(rounds):
        spec = spec_for((str(tool),), cwd, timeout=timeout, grace=grace, sandbox=box)
        begin = time.monotonic()
        handle = start(spec)
        time.sleep(timeout * 0.6)
        tree = _run_processes(spec.run_id)  # everything is running by now
        sizes.append(len(tree))
        deadline = begin + timeout
        last_gone = None
        while True:
            if all(_gone(p) for p in tree):
                last_gone = time.monotonic()
                break
            if time.monotonic() > deadline + grace + 5:
                break
            time.sleep(0.001)
        result = handle.wait(10)
        assert result is not None and result.envelope.exit_code == 124, result
        returns.append(time.monotonic() - deadline)
        if last_gone is not None:
            delays.append(last_gone - deadline)
        leftover = [p for p in _run_processes(spec.run_id) if not _gone(p)]
        assert not leftover, leftover
    worst = max(delays) * 1e3 if delays else float("inf")
    target = grace * 1e3 + 200
    print(
        f"3{'b' if box else 'a'}. TERM-ignoring tree ({statistics.median(sizes):.0f} processes"
        f" incl. a setsid escapee), timeout {timeout} s, grace {grace} s, {rounds} runs"
        + (", inside the sandbox" if box else "")
    )
    line(
        "timeout -> last process gone",
        f"{statistics.median(delays) * 1e3:.0f} ms",
        f"worst {worst:.0f} ms",
        f"target <= {target:.0f} ms {'OK' if worst <= target else 'MISSED'}",
    )
    line("timeout -> run() returned", f"{statistics.median(returns) * 1e3:.0f} ms", "", "")


# -- 4. the sandbox --------------------------------------------------------------------


def bare_bwrap(argv: list[str], env: dict[str, str]) -> None:
    """bwrap as the runner starts it (own session, output into a pipe), without the runner."""
    subprocess.run(
        argv,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )


def _unix_only_filter() -> bytes | None:
    """The offline filter before the socket-family list: only ``AF_UNIX`` refused."""
    import errno
    import socket as _socket

    from gibberish.runner import seccomp

    try:
        lib = seccomp._bindings()
    except ImportError:
        return None
    rules = lib.SyscallFilter(defaction=lib.ALLOW)
    family = lib.Arg(0, lib.MASKED_EQ, 0xFFFFFFFF, _socket.AF_UNIX)
    rules.add_rule(lib.ERRNO(errno.EACCES), "socket", family)
    rules.add_rule(lib.ERRNO(errno.ENOSYS), "io_uring_setup")
    with tempfile.TemporaryFile() as out:
        rules.export_bpf(out)
        out.seek(0)
        return out.read()


def bench_sandbox(rounds: int, cwd: Path) -> None:
    status = sandboxing.status()
    print(f"4. the sandbox, /bin/true, median of {rounds} interleaved runs each")
    if not status.active or status.bwrap is None:
        print(f"  skipped: {status.detail}")
        return
    boxes = {
        "read_only, network: false": Sandbox(read_only=True, network=False),
        "write, network": Sandbox(read_only=False, network=True),
    }
    env = dict(spec_for(("/bin/true",), cwd).env)
    bare = {
        name: sandboxing.wrap(
            status.bwrap, box, argv=("/bin/true",), executable="/bin/true", cwd=cwd, env=env
        )
        for name, box in boxes.items()
    }

    def timed(fn) -> float:
        begin = time.perf_counter()
        fn()
        return time.perf_counter() - begin

    from gibberish.runner import seccomp

    listed = getattr(seccomp, "offline_filter", None)  # absent before the family list
    old_filter = _unix_only_filter() if listed is not None else None
    offline = boxes["read_only, network: false"]

    def with_old_filter(spec: RunSpec) -> None:
        seccomp.offline_filter = lambda display=False: old_filter
        try:
            run(spec)
        finally:
            seccomp.offline_filter = listed

    samples: dict[str, list[float]] = {"raw": [], "runner": [], "old filter": []}
    for name in boxes:
        samples[f"bwrap {name}"] = []
        samples[f"runner {name}"] = []
    for _ in range(10 + rounds):  # the first 10 are the warm-up, dropped below
        samples["raw"].append(timed(lambda: subprocess.run(["/bin/true"])))
        samples["runner"].append(timed(lambda: run(spec_for(("/bin/true",), cwd))))
        for name, box in boxes.items():
            argv = bare[name]
            samples[f"bwrap {name}"].append(timed(lambda argv=argv: bare_bwrap(argv, env)))
            spec = spec_for(("/bin/true",), cwd, sandbox=box)
            samples[f"runner {name}"].append(timed(lambda spec=spec: run(spec)))
            if old_filter is not None and box is offline:  # right after, to pair them
                spec = spec_for(("/bin/true",), cwd, sandbox=offline)
                samples["old filter"].append(timed(lambda spec=spec: with_old_filter(spec)))
    med = {key: statistics.median(values[10:]) * 1e3 for key, values in samples.items() if values}
    line("subprocess.run /bin/true", f"{med['raw']:.2f} ms", "", "")
    line("runner, no sandbox", f"{med['runner']:.2f} ms", f"raw {med['raw']:.2f} ms", "")
    for name in boxes:
        bwrap, ours = med[f"bwrap {name}"], med[f"runner {name}"]
        added = ours - med["runner"]
        line(
            f"bare bwrap ({name})",
            f"{bwrap:.2f} ms",
            f"raw {med['raw']:.2f} ms",
            f"bwrap itself adds {bwrap - med['raw']:.2f} ms",
        )
        line(
            f"runner in sandbox ({name})",
            f"{ours:.2f} ms",
            f"runner {med['runner']:.2f} ms",
            f"added {added:.2f} ms (target <= 3 ms) {'OK' if added <= 3 else 'MISSED'};"
            f" vs bare bwrap {ours - bwrap:+.2f} ms",
        )
    if "old filter" in med:
        ours, floor = med["runner read_only, network: false"], med["old filter"]
        runs = samples["runner read_only, network: false"][10:]
        pairs = zip(runs, samples["old filter"][10:], strict=True)
        added = statistics.median([new - old for new, old in pairs]) * 1e3  # paired runs
        line(
            "offline run, socket-family list",
            f"{ours:.2f} ms",
            f"AF_UNIX-only filter {floor:.2f} ms",
            f"ratio {ours / floor:.3f}, added {added:+.2f} ms, median of pairs (target <= 0.5 ms)"
            f" {'OK' if added <= 0.5 else 'MISSED'}",
        )
    skill = ROOT / "skills" / "notes"
    copies = []
    for _ in range(max(20, rounds // 5)):
        with tempfile.TemporaryDirectory(dir=cwd) as target:
            begin = time.perf_counter()
            fingerprint(snapshot_folder(skill, Path(target)))
            copies.append(time.perf_counter() - begin)
    base = []
    for _ in range(max(20, rounds // 5)):
        begin = time.perf_counter()
        fingerprint(skill)
        base.append(time.perf_counter() - begin)
    line(
        "snapshot + fingerprint (notes skill)",
        f"{statistics.median(copies) * 1e3:.2f} ms",
        f"fingerprint only {statistics.median(base) * 1e3:.2f} ms",
        "paid by the Engine, once per sandboxed run",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument(
        "--sandbox-only", action="store_true", help="only part 4 (the sandbox), for comparisons"
    )
    args = parser.parse_args()
    overhead_rounds, capture_rounds, kill_rounds = (200, 2, 2) if args.quick else (1000, 5, 5)
    print(
        f"gibberish runner benchmark — Python {sys.version.split()[0]}, {os.cpu_count()} CPUs,"
        f" load {os.getloadavg()[0]:.2f}, corpus: /bin/true, head -c 1G /dev/zero,"
        " a generated TERM-ignoring sh tree"
    )
    with tempfile.TemporaryDirectory(prefix="gibberish-bench-") as folder:
        cwd = Path(folder)
        if args.sandbox_only:
            bench_sandbox(max(50, overhead_rounds // 4), cwd)
            return
        bench_overhead(overhead_rounds, cwd)
        bench_capture(capture_rounds, cwd)
        bench_kill(kill_rounds, cwd)
        if sandboxing.status().active:
            bench_kill(kill_rounds, cwd, box=Sandbox())
        bench_sandbox(max(50, overhead_rounds // 4), cwd)
    print(f"  (threads alive at the end: {threading.active_count()})")


if __name__ == "__main__":
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    main()
