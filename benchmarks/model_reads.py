"""What the limits of a model-started run cost: ``engine.runs.prepare`` for a model vs a person.

Not a test: it prints the figure next to its floor, as a ratio, in the same run.

    .venv/bin/python benchmarks/model_reads.py [--rounds N]

A model-started run (MCP, ``ask``, voice) also lists the credential places, resolves
them once, checks each argument against them and the project (trust/model_reads.py).
The floor is the same ``prepare`` for a person (both given the mode, so the mode
detection's microphone probe is not timed); the target is at most 2 ms added.
Runs in a throw-away HOME so nothing of the person's is read.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_MS = 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=300)
    rounds = parser.parse_args().rounds
    with tempfile.TemporaryDirectory(prefix="gibberish-bench-") as folder:
        base = Path(folder)
        for var in ("HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
            os.environ[var] = str(base / var.lower())
        os.environ["PYTHON_KEYRING_BACKEND"] = "keyrings.alt.file.PlaintextKeyring"
        sys.path.insert(0, str(ROOT))
        from gibberish.engine.core import Engine, EngineOptions
        from gibberish.skills.model import Mode
        from gibberish.trust.model_reads import RunOrigin

        engine = Engine(EngineOptions(include_user=False))
        args = {"path": "README.md"}

        def once(origin: RunOrigin) -> float:
            begin = time.perf_counter()
            engine.runs.prepare(
                "files.read_file", args, context_dir=ROOT, mode=Mode.GLOBAL, origin=origin
            )
            return time.perf_counter() - begin

        samples: dict[RunOrigin, list[float]] = {RunOrigin.PERSON: [], RunOrigin.MODEL: []}
        for _ in range(20 + rounds):  # interleaved; the first 20 are the warm-up
            for origin, values in samples.items():
                values.append(once(origin))
        person, model = (statistics.median(v[20:]) * 1e3 for v in samples.values())
    added = model - person
    print(
        f"model-started prepare, median of {rounds} interleaved rounds, load {os.getloadavg()[0]:.2f}"
    )
    print(f"  person (floor)  {person:.3f} ms")
    print(
        f"  model           {model:.3f} ms   ratio {model / person:.2f}x, added {added:.3f} ms"
        f" (target <= {TARGET_MS:g} ms) {'OK' if added <= TARGET_MS else 'MISSED'}"
    )


if __name__ == "__main__":
    main()
