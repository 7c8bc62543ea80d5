"""How many public instruction skills `gibberish install FOLDER` installs.

    .venv/bin/python benchmarks/instruction_install.py SAMPLE_DIR [--floor 0.95]

SAMPLE_DIR holds one sub-folder per skill (any depth: every folder with a SKILL.md is
one). The corpus is yours to gather (the skills' text is not shipped here, for
licensing): e.g. a fixed random sample of folders from anthropics/skills,
openai/skills, vercel-labs/agent-skills and trailofbits/skills. Each skill is
installed on its own, with `--yes --no-sync`, into a throw-away HOME; the script prints
the count, the floor and their ratio, and each failure's first lines.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path


def skill_folders(root: Path) -> list[Path]:
    return sorted({p.parent for p in root.rglob("*") if p.name.lower() == "skill.md"})


def install(folder: Path, home: Path) -> tuple[bool, str]:
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_DATA_HOME": str(home / ".local/share"),
        "XDG_STATE_HOME": str(home / ".local/state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
    }
    argv = [sys.executable, "-m", "gibberish", "install", str(folder), "--yes", "--no-sync"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120)
    return done.returncode == 0, (done.stderr or done.stdout).strip()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sample", type=Path)
    parser.add_argument("--floor", type=float, default=0.95, help="share that must install")
    args = parser.parse_args()
    folders = skill_folders(args.sample)
    if not folders:
        sys.exit(f"{args.sample}: no SKILL.md found")
    installed, failures = 0, []
    with tempfile.TemporaryDirectory(prefix="gibberish-bench-") as scratch:
        for folder in folders:
            ok, output = install(folder, Path(scratch) / "home")
            installed += ok
            if not ok:
                failures.append((folder, output))
    share = installed / len(folders)
    print(
        f"installed {installed} of {len(folders)} ({share:.0%}); floor {args.floor:.0%}; "
        f"ratio {share / args.floor:.2f}"
    )
    for folder, output in failures:
        print(f"  FAILED {folder}:\n    " + "\n    ".join(output.splitlines()[-4:]))


if __name__ == "__main__":
    main()
