"""What the limits of a model-started run cost: ``engine.runs.prepare`` for a model vs a person.

Not a test: it prints the figure next to its floor, as a ratio, in the same run.

    .venv/bin/python benchmarks/model_reads.py [--rounds N]

A model-started run (MCP, ``ask``, voice) also lists the credential places, resolves
them once, checks each argument against them, the version-control folders, the
project and the places its skill declares, and tells the home folder from a project
(trust/model_reads.py). The floor is the same ``prepare`` for a person (both given the
mode, so the mode detection's microphone probe is not timed); the target is at most
1 ms added, for a request from a project and for one from an agent started in the home
folder (no project). Runs in a throw-away HOME so nothing of the person's is read.
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
TARGET_MS = 1.0


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
        from gibberish.app import Engine, EngineOptions
        from gibberish.skills.model import Mode
        from gibberish.trust.model_reads import RunOrigin

        engine = Engine(EngineOptions(include_user=False))
        args = {"path": "README.md"}

        home = Path(os.environ["HOME"])
        home.mkdir(parents=True, exist_ok=True)
        (home / "README.md").write_text("a file in the home folder\n")

        def once(origin: RunOrigin, context: Path) -> float:
            begin = time.perf_counter()
            engine.runs.prepare(
                "files.read_file", args, context_dir=context, mode=Mode.GLOBAL, origin=origin
            )
            return time.perf_counter() - begin

        cases = {
            "person (floor)": (RunOrigin.PERSON, ROOT),
            "model, from a project": (RunOrigin.MODEL, ROOT),
            "model, agent in home": (RunOrigin.MODEL, home),
        }
        samples: dict[str, list[float]] = {name: [] for name in cases}
        for _ in range(20 + rounds):  # interleaved; the first 20 are the warm-up
            for name, (origin, context) in cases.items():
                samples[name].append(once(origin, context))
        med = {name: statistics.median(v[20:]) * 1e3 for name, v in samples.items()}
    person = med["person (floor)"]
    print(
        f"model-started prepare, median of {rounds} interleaved rounds, load {os.getloadavg()[0]:.2f}"
    )
    print(f"  {'person (floor)':<24}{person:.3f} ms")
    for name in list(cases)[1:]:
        model = med[name]
        added = model - person
        print(
            f"  {name:<24}{model:.3f} ms   ratio {model / person:.2f}x, added {added:.3f} ms"
            f" (target <= {TARGET_MS:g} ms) {'OK' if added <= TARGET_MS else 'MISSED'}"
        )


if __name__ == "__main__":
    main()
