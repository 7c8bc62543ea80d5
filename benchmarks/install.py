"""Benchmark ``gibberish install`` of a 100-skill git repository against ``git clone`` + ``cp -r``.

* Corpus: a local git repository (``file://``) holding ``skills/skill-NNN/`` for 100
  skills, each a ``SKILL.md`` of 3 tools (about 1.2 KB) and a ``scripts/run.sh``;
  one commit.
* Measured: ``Installer.stage`` + ``commit`` of all 100 skills into an empty skills
  folder (shallow fetch, reading the tree object by object through the safe staging
  writer, validation of every skill by the loader, provenance files, state file) —
  the whole install except the question.
* Baseline, same run: ``git clone --depth 1`` of the same repository and ``cp -r`` of its
  ``skills/`` folder (no checks at all).

Each figure is the best of several rounds; the ratio is installer / baseline.

Run: ``.venv/bin/python benchmarks/install.py [--skills 100] [--rounds 5]``
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gibberish.install.transaction import Installer, InstallTarget

TOOL = """
### {name}

Run step {name} of the skill.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| target | string | yes | What to work on |
| count | integer | no | How many (default: 3) |

#### Command

```bash
./scripts/run.sh {name} {{{{target}}}} --count {{{{count:3}}}}
```
"""


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b",
           "GIT_COMMITTER_NAME": "b", "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip
    subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, env=env)


def make_repository(root: Path, count: int) -> Path:
    repo = root / "repo"
    for index in range(count):
        name = f"skill-{index:03d}"
        folder = repo / "skills" / name
        (folder / "scripts").mkdir(parents=True)
        tools = "".join(TOOL.format(name=f"step_{t}") for t in range(3))
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\nversion: 1.0.{index}\ndescription: Benchmark skill {index}.\n"
            f"---\n{tools}",
            encoding="utf-8",
        )
        script = folder / "scripts" / "run.sh"
        script.write_text('#!/bin/sh\necho "$@"\n')
        script.chmod(0o755)
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "skills")
    return repo


def install_once(repo: Path, scratch: Path) -> float:
    target = InstallTarget(scratch / "skills", scratch / "installed.json")
    installer = Installer(target)
    started = time.perf_counter()
    with installer.stage(f"file://{repo}#main:skills") as plan:
        installer.commit(plan)
    elapsed = time.perf_counter() - started
    assert len(list(target.skills_dir.iterdir())) == len(plan.skills)
    return elapsed


def baseline_once(repo: Path, scratch: Path) -> float:
    started = time.perf_counter()
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", f"file://{repo}", str(scratch / "clone")],
        check=True,
    )
    subprocess.run(
        ["cp", "-r", str(scratch / "clone" / "skills"), str(scratch / "skills")], check=True
    )
    return time.perf_counter() - started


def best(func, repo: Path, rounds: int) -> float:
    times = []
    for _ in range(rounds):
        with tempfile.TemporaryDirectory() as scratch:
            times.append(func(repo, Path(scratch)))
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as root:
        repo = make_repository(Path(root), args.skills)
        ours = best(install_once, repo, args.rounds)
        base = best(baseline_once, repo, args.rounds)
    print(f"corpus: {args.skills} skills (3 tools + a script each) in one git commit, file://")
    print(f"gibberish install (fetch, check, validate, provenance, state): {ours * 1000:8.1f} ms")
    print(f"baseline git clone --depth 1 + cp -r:                          {base * 1000:8.1f} ms")
    print(f"ratio: {ours / base:.2f}x  (best of {args.rounds} rounds each)")


if __name__ == "__main__":
    shutil.which("git") or sys.exit("benchmarks/install.py needs the git program")
    main()
