"""The command line at 1,000 skills: ``prompt``, ``ask`` and ``skills list --json``.

```
.venv/bin/python benchmarks/cli_feed.py [--skills 1000] [--repeat 5] [--only prompt,ask,json]
```

Each figure is printed next to its floor, measured in the same run, alternating:

* ``prompt`` / ``ask`` with ``--skills`` user skills (the corpus of ``load.py``) against the
  same command with no user skills (the bundled ones only). ``ask --dry-run`` talks to a
  model server on 127.0.0.1 started by this script that answers every request at once with
  a FunctionGemma call of ``uptime`` (so the model's own time is not counted).
* ``skills list --json`` against ``skills list`` (text), both over ``--skills`` skills,
  stdout a pipe (as when a script reads it).

Every process is new (the installed ``gibberish`` program) and finds the parse cache and the
bytecode a previous run left: one unmeasured run of each command comes first.
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
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from load import write_corpus
from startup import isolated_env, past_racy_window

PROGRAM = str(Path(sys.executable).parent / "gibberish")
REQUEST = "how long has the computer been running"
CALL = "<start_function_call>call:uptime{}<end_function_call>"
GOALS = {"prompt": 1.5, "ask": 1.5, "json": 1.3}


class _Model(BaseHTTPRequestHandler):
    """Ollama's ``/api/generate``: one NDJSON line with the whole answer, done."""

    protocol_version = "HTTP/1.0"

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = json.dumps({"response": CALL, "done": True}).encode() + b"\n"
        self.send_response(200)
        self.send_header("Content-Type", "application/x-ndjson")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


def _timed(argv: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    result = subprocess.run(argv, env=env, capture_output=True, timeout=120)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{argv} failed ({result.returncode}): {result.stderr[-800:]!r}")
    return elapsed


def _paired(a: list[str], env_a: dict, b: list[str], env_b: dict, repeat: int) -> tuple:
    _timed(a, env_a), _timed(b, env_b)
    first, second = [], []
    for _ in range(repeat):
        first.append(_timed(a, env_a))
        second.append(_timed(b, env_b))
    return first, second


def _report(name: str, top: list[float], floor_name: str, floor: list[float], goal: float) -> None:
    for label, values in ((name, top), (floor_name, floor)):
        print(
            f"  {label:<44} min {min(values) * 1000:7.1f} ms  median "
            f"{statistics.median(values) * 1000:7.1f} ms"
        )
    ratio = statistics.median(top) / statistics.median(floor)
    verdict = "met" if ratio <= goal else "MISSED"
    print(
        f"  ratio (medians) {ratio:.2f}, mins {min(top) / min(floor):.2f}: goal <= {goal} {verdict}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", default="prompt,ask,json")
    options = parser.parse_args()
    only = set(options.only.split(","))
    root = Path(tempfile.mkdtemp(prefix="gibberish-bench-"))
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Model)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        many, none = isolated_env(root / "many"), isolated_env(root / "none")
        folder = Path(many["XDG_CONFIG_HOME"]) / "gibberish" / "skills"
        write_corpus(folder, options.skills)
        past = time.time() - 60  # no skill "racy": the parse cache is trusted
        for path in folder.rglob("*"):
            os.utime(path, (past, past))
        past_racy_window(folder)  # (their ctimes are now)
        n = options.skills
        print(f"{n} user skills x 5 tools against none; {options.repeat} runs each, alternating")
        print(f"load average before: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
        if "prompt" in only:
            argv = [PROGRAM, "prompt", "--request", REQUEST]
            top, floor = _paired(argv, many, argv, none, options.repeat)
            print("gibberish prompt --request …")
            _report(f"{n} skills", top, "no user skills (floor)", floor, GOALS["prompt"])
        if "ask" in only:
            argv = [PROGRAM, "ask", "--endpoint", endpoint, "--dry-run", REQUEST]
            top, floor = _paired(argv, many, argv, none, options.repeat)
            print("gibberish ask --dry-run … (model on loopback, answers at once)")
            _report(f"{n} skills", top, "no user skills (floor)", floor, GOALS["ask"])
        if "json" in only:
            top, floor = _paired(
                [PROGRAM, "skills", "list", "--json"],
                many,
                [PROGRAM, "skills", "list"],
                many,
                options.repeat,
            )
            print(f"gibberish skills list, {n} skills, stdout a pipe")
            _report("--json", top, "text (floor)", floor, GOALS["json"])
        print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")
    finally:
        server.shutdown()
        shutil.rmtree(root, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
