"""Benchmark ``gibberish install``: one skill against a bare copy, 40 against a peer, and a
100-skill git repository against ``git clone`` + ``cp -r``.

**One skill** (``--one``, run by default): a folder shaped like Anthropic's ``pdf`` skill
(a 10 KB SKILL.md, three Markdown references, a licence, eight Python scripts), installed
from a folder source without sync — in this process (``Installer.stage`` + ``commit``:
copy through the staging writer, validation, audit, provenance, state) against
``shutil.copytree`` of the same folder, and as a process (``gibberish install DIR -y
--no-sync``) against a Python process doing ``shutil.copytree``. Ratios printed, and
beside them a process that only imports the libraries the command is built on, as a ratio
to the same copy: the part of the figure no change to gibberish's own code can remove.

**Side by side** (``--peer CLI.mjs --node NODE``): 40 separate installs of 40 skill folders
(``--corpus DIR``, a folder of skill folders; default 40 generated ones of public shapes)
by 40 ``gibberish install`` processes and by 40 ``skills add DIR -g -y -a claude-code
--copy`` processes of vercel's ``skills`` CLI, each into its own fresh home, inside
``unshare -n`` when available (so neither reaches the network) with the peer's telemetry
turned off. Totals, per install and the ratio printed.

**Repository** (``--repo``, run by default):

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

Run: ``.venv/bin/python benchmarks/install.py [--one] [--repo] [--skills 100] [--rounds 5]
[--peer node_modules/skills/bin/cli.mjs --node node_modules/.bin/node [--corpus DIR]]``
(see benchmarks/README.md for installing the peer).
"""

from __future__ import annotations

import argparse
import os
import resource
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


PDF_LIKE_BODY = (
    "# PDF processing\n\nThis guide covers reading, merging and filling PDF files with "
    "Python libraries and command-line tools. For advanced features see REFERENCE.md; to "
    "fill a form, read [the forms guide](FORMS.md).\n\n"
)


def make_public_shape(folder: Path, name: str, index: int = 0) -> Path:
    """A skill folder shaped like the public ones (an instruction skill with scripts)."""
    (folder / "scripts").mkdir(parents=True)
    sections = "".join(
        f"## Step {n}\n\nRun `python scripts/step_{n}.py input.pdf` and check the output "
        f"against the table in reference.md (section {n}).\n\n"
        for n in range(40)
    )
    (folder / "SKILL.md").write_text(
        f"---\nname: {name}\ndescription: Work with PDF files ({index}): read, merge, split "
        "and fill forms. Use when the user mentions a PDF.\nlicense: see LICENSE.txt\n---\n\n"
        + PDF_LIKE_BODY
        + sections,
        encoding="utf-8",
    )
    for extra in ("reference.md", "forms.md"):
        (folder / extra).write_text(f"# {extra}\n\n" + "Details of one step.\n" * 300)
    (folder / "LICENSE.txt").write_text("Licensed for the benchmark.\n" * 40)
    for n in range(8):
        script = folder / "scripts" / f"step_{n}.py"
        script.write_text("import sys\n\n" + f"print(sys.argv, {n})\n" * 120)
    return folder


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def _fresh_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    for var, sub in (("HOME", "home"), ("XDG_CONFIG_HOME", "config"),
                     ("XDG_DATA_HOME", "data"), ("XDG_STATE_HOME", "state"),
                     ("XDG_CACHE_HOME", "cache")):  # fmt: skip
        (home / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(home / sub)
    env.update(DISABLE_TELEMETRY="1", DO_NOT_TRACK="1", NO_COLOR="1")
    return env


def _isolated(argv: list[str]) -> list[str]:
    """``argv`` inside a network namespace of its own when this user may make one."""
    if shutil.which("unshare") and os.geteuid() == 0:
        return ["unshare", "-n", *argv]
    return argv


FAILED: list[str] = []
CPU: list[float] = []
"""The processor time (user + system) of each process :func:`_timed` ran, in order: on a
loaded machine the wall clock mostly measures the wait for a processor."""


def _cpu_of_children() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def _timed(argv: list[str], env: dict[str, str]) -> float:
    cpu = _cpu_of_children()
    started = time.perf_counter()
    done = subprocess.run(argv, env=env, capture_output=True, stdin=subprocess.DEVNULL)
    elapsed = time.perf_counter() - started
    CPU.append(_cpu_of_children() - cpu)
    if done.returncode != 0:
        FAILED.append(f"{' '.join(argv[-6:])}: {done.stderr.decode(errors='replace')[-200:]}")
    return elapsed


LIBRARIES = (
    "import click, hashlib, msgspec, shutil, tempfile, datetime, json\n"
    "from gibberish.yaml_import import yaml"
)
"""A process that imports the libraries every install is built on (the command line's,
the records', the YAML reader, the digests, the standard modules the state and the
staging use) and does nothing else: the lower bound of the command under those choices."""


def one_skill(rounds: int) -> None:
    with tempfile.TemporaryDirectory() as root_text:
        root = Path(root_text)
        skill = make_public_shape(root / "src" / "pdf-like", "pdf-like")
        ours, floor = [], []
        for n in range(rounds):
            target = InstallTarget(root / f"s{n}" / "skills", root / f"s{n}" / "installed.json")
            started = time.perf_counter()
            installer = Installer(target)
            with installer.stage(str(skill)) as plan:
                installer.commit(plan)
            ours.append(time.perf_counter() - started)
            started = time.perf_counter()
            shutil.copytree(skill, root / f"copy{n}")
            floor.append(time.perf_counter() - started)
        files = sum(1 for p in skill.rglob("*") if p.is_file())
        size = sum(p.stat().st_size for p in skill.rglob("*") if p.is_file())
        print(f"one skill: {files} files, {size // 1024} KiB (shaped like a public pdf skill)")
        print(f"  in process: install {_median(ours) * 1000:7.1f} ms, "
              f"shutil.copytree {_median(floor) * 1000:7.1f} ms, "
              f"ratio {_median(ours) / _median(floor):.1f}x  (median of {rounds})")  # fmt: skip
        cli, copy = [], []
        env = _fresh_env(root / "warm")
        gib = [sys.executable, "-m", "gibberish", "--no-bundled"]
        subprocess.run(
            [*gib, "install", str(skill), "-y", "--no-sync"],
            env=env,
            capture_output=True,
            check=True,
        )  # fmt: skip (writes the bytecode once)
        cli_cpu, copy_cpu, libraries = [], [], []
        for n in range(rounds):
            env = _fresh_env(root / f"p{n}")
            cli.append(_timed([*gib, "install", str(skill), "-y", "--no-sync"], env))
            cli_cpu.append(CPU[-1])
            code = f"import shutil; shutil.copytree({str(skill)!r}, {str(root / f'pc{n}')!r})"
            copy.append(_timed([sys.executable, "-c", code], env))
            copy_cpu.append(CPU[-1])
            libraries.append(_timed([sys.executable, "-c", LIBRARIES], env))
        print(f"  as a process: gibberish install {_median(cli) * 1000:7.1f} ms, "
              f"python copytree {_median(copy) * 1000:7.1f} ms, "
              f"ratio {_median(cli) / _median(copy):.1f}x  (median of {rounds}; "
              "targets: <= 100 ms and <= 3x)")  # fmt: skip
        print(f"  processor time: gibberish install {_median(cli_cpu) * 1000:7.1f} ms, "
              f"python copytree {_median(copy_cpu) * 1000:7.1f} ms, "
              f"ratio {_median(cli_cpu) / _median(copy_cpu):.1f}x")  # fmt: skip
        print(f"  the libraries alone: importing them {_median(libraries) * 1000:7.1f} ms, "
              f"ratio {_median(libraries) / _median(copy):.1f}x the copy "
              "(what no install can go below; docs/adr/0102)")  # fmt: skip


def _corpus(root: Path, given: Path | None, count: int) -> list[Path]:
    if given is not None:
        return sorted(p for p in given.iterdir() if (p / "SKILL.md").is_file())[:count]
    return [make_public_shape(root / f"skill-{n:02d}", f"skill-{n:02d}", n) for n in range(count)]


def side_by_side(cli_mjs: Path, node: Path, corpus: Path | None, rounds: int) -> None:
    with tempfile.TemporaryDirectory() as root_text:
        root = Path(root_text)
        folders = _corpus(root / "corpus", corpus, 40)
        gib = [sys.executable, "-m", "gibberish", "--no-bundled"]
        totals: dict[str, list[float]] = {"gibberish": [], "skills": []}
        cpu: dict[str, list[float]] = {"gibberish": [], "skills": []}
        for n in range(rounds):  # the two take turns, so both see the same load
            env = _fresh_env(root / f"g{n}")
            del CPU[:]
            totals["gibberish"].append(sum(
                _timed(_isolated([*gib, "install", str(f), "-y", "--no-sync", "--accept-risks"]), env)
                for f in folders
            ))  # fmt: skip
            cpu["gibberish"].append(sum(CPU))
            env = _fresh_env(root / f"v{n}")
            (Path(env["HOME"]) / ".claude").mkdir()
            del CPU[:]
            totals["skills"].append(sum(
                _timed(_isolated([str(node), str(cli_mjs), "add", str(f), "-g", "-y",
                                  "-a", "claude-code", "--copy"]), env)
                for f in folders
            ))  # fmt: skip
            cpu["skills"].append(sum(CPU))
        ours, peer = min(totals["gibberish"]), min(totals["skills"])
        ours_cpu, peer_cpu = min(cpu["gibberish"]), min(cpu["skills"])
        where = corpus or "generated public-shaped skills"
        print(f"side by side: {len(folders)} separate installs from folders ({where})")
        print(
            f"  gibberish install -y --no-sync --accept-risks: {ours:6.2f} s ({ours / len(folders) * 1000:5.0f} ms each)"
        )
        print(
            f"  skills add -g -y --copy:        {peer:6.2f} s ({peer / len(folders) * 1000:5.0f} ms each)"
        )
        print(f"  ratio gibberish / skills: {ours / peer:.2f}x  (best of {rounds} rounds each; "
              "target < 1)")  # fmt: skip
        print(f"  processor time (user + system): gibberish {ours_cpu:6.2f} s, skills "
              f"{peer_cpu:6.2f} s, ratio {ours_cpu / peer_cpu:.2f}x")  # fmt: skip
        for failure in FAILED:
            print(f"  failed: {failure}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--one", action="store_true", help="Only the one-skill figures.")
    parser.add_argument("--repo", action="store_true", help="Only the repository figures.")
    parser.add_argument("--peer", type=Path, help="vercel's skills CLI (bin/cli.mjs).")
    parser.add_argument("--node", type=Path, default=Path("node"), help="Node 22 for --peer.")
    parser.add_argument("--corpus", type=Path, help="A folder of skill folders for --peer.")
    args = parser.parse_args()
    if args.peer is not None:
        side_by_side(args.peer, args.node, args.corpus, max(1, min(args.rounds, 3)))
        return
    if args.one or not args.repo:
        one_skill(args.rounds)
    if args.one:
        return
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
