"""How fast a large skills folder loads and refreshes, against skills-ref as a baseline.

Writes a corpus of 1,000 skills x 5 tools into a temporary folder (realistic SKILL.md
files: typed frontmatter, parameter tables with defaults and escaped pipes, commands
with placeholders, flags, quotes, URLs and scripts), then prints:

* the cold full load (``SkillLibrary.load()``), total and per skill;
* ``refresh()`` with nothing changed, and after editing one skill;
* ``skills_ref.validate()`` over the same 1,000 folders, in the same run (the Agent
  Skills reference validator: frontmatter only, strictyaml), and the ratio. The corpus
  uses block-style lists (``modes:`` then ``- Dev`` lines): skills-ref rejects flow lists
  such as ``[Dev, Global]`` at once, which would time an early error;
* the floor: reading each SKILL.md and loading its frontmatter with PyYAML's C loader,
  nothing else; and the ratio of a full load to it, cold (every skill parsed) and warm
  (a new library over the same folders with the parse cache a previous process saved,
  which is what a CLI command or a tray start does).

Targets: load / skills-ref <= 1.0, warm load / PyYAML floor <= 1.0 and refresh after one
edit <= 20 ms.

Run:  .venv/bin/python benchmarks/load.py [--skills N] [--repeat N] [--rounds N] [--profile]
"""

from __future__ import annotations

import argparse
import cProfile
import io
import pstats
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gibberish.skills import library as library_module
from gibberish.skills import templates
from gibberish.skills.cache import ParseCache
from gibberish.skills.library import SkillLibrary, SkillSource
from gibberish.skills.model import Trust

TOOLS_PER_SKILL = 5

_TOOL_SHAPES = [
    (
        "Search the project for text and show matching lines with their numbers.",
        [
            ("query", "string", "yes", "Text to look for, e.g. `TODO` or a \\| separated list"),
            ("ignore_case", "boolean", "no", "Match regardless of case"),
            ("max_count", "integer", "no", "Stop after this many matches per file (default: 50)"),
        ],
        "grep -rn --exclude-dir=cache-{n} {{ignore_case:-i}} --max-count={{max_count}} -- {{query}} .",
    ),
    (
        "Show the recent history of a file, newest first.",
        [
            ("path", "string", "yes", "The file to look at"),
            ("count", "integer", "no", "How many commits (default: 10)"),
        ],
        'git --no-pager log --format="%h %an: %s [{n}]" -n {{count}} -- {{path}}',
    ),
    (
        "Look a word up in the online dictionary and open the result in the browser.",
        [("word", "string", "yes", "The word to look up")],
        "xdg-open 'https://en.wiktionary.org/w/index.php?search={{word}}&go=Go&ref={n}'",
    ),
    (
        "Convert an image to another format or size with a helper script.",
        [
            ("input", "string", "yes", "Image to convert"),
            ("format", "string", "no", "Target format such as png or webp (default: png)"),
            ("width", "integer", "no", "New width in pixels; keeps the aspect ratio"),
            ("tags", "array", "no", "Labels written into the metadata"),
        ],
        "./scripts/convert.sh --format {{format}} {{width:--width=}} {{tags:--tag}} --job={n} -- "
        "{{input}}",
    ),
    (
        "List what is listening on the network, with the owning process.",
        [],
        "ss --tcp --udp --listening --numeric --processes 'sport > :{n}'",
    ),
    (
        "Summarise disk usage of a folder, biggest entries first.",
        [
            ("folder", "string", "no", "Folder to measure (default: .)"),
            ("depth", "integer", "no", "How deep to go (default: 1)"),
            (
                "ratio",
                "number",
                "no",
                "Only show entries above this share, 0.0-1.0 (default: 0.01)",
            ),
        ],
        "du --human-readable --max-depth={{depth}} --threshold={n} -- {{folder}} {{ratio:--x}}",
    ),
]


def _tool_text(skill: int, index: int, shape: int) -> str:
    description, params, command = _TOOL_SHAPES[shape]
    # A number unique to the skill keeps every command distinct, as in a real corpus
    # (the template parser caches by source text; identical commands would hit it).
    command = command.replace("{n}", str(skill))
    out = [f"### tool_{index}_{shape}", "", description, "", "#### Parameters", ""]
    if params:
        out += [
            "| Name | Type | Required | Description |",
            "|------|------|----------|-------------|",
        ]
        out += [f"| {n} | {t} | {r} | {d} |" for n, t, r, d in params]
    else:
        out.append("None.")
    out += ["", "#### Command", "", "```bash", command, "```", ""]
    return "\n".join(out)


def skill_text(name: str, index: int) -> str:
    tools = "\n".join(
        _tool_text(index, t, (index + t) % len(_TOOL_SHAPES)) for t in range(TOOLS_PER_SKILL)
    )
    return (
        "---\n"
        f"name: {name}\n"
        f"version: 1.{index % 10}.{index % 7}\n"
        f'description: "Skill number {index}: tools for searching, history and files. '
        'Use when the user asks about project files, history or the network."\n'
        "author: benchmark\n"
        "modes:\n  - Dev\n  - Global\n"
        f"read_only: {'true' if index % 2 else 'false'}\n"
        f"timeout: {10 + index % 50}\n"
        "network: false\n"
        "---\n\n"
        f"# Skill {index}\n\n"
        "Free text before the tools: what the skill is for, in a paragraph or two.\n"
        "Examples are kept in code blocks:\n\n"
        "```bash\n### not a tool: inside a fence\n```\n\n" + tools
    )


def write_corpus(root: Path, count: int) -> None:
    for i in range(count):
        name = f"skill-{i:04d}"
        folder = root / name
        (folder / "scripts").mkdir(parents=True)
        (folder / "SKILL.md").write_text(skill_text(name, i))
        script = folder / "scripts" / "convert.sh"
        script.write_text('#!/bin/sh\nexec convert "$@"\n')
        script.chmod(0o755)


def yaml_floor(folders: list[Path]) -> float:
    """Seconds to read every SKILL.md and load its frontmatter with PyYAML's C loader."""
    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    start = time.perf_counter()
    for folder in folders:
        text = (folder / "SKILL.md").read_bytes().decode("utf-8")
        front = text.split("\n---\n", 1)[0][4:]
        assert isinstance(yaml.load(front, Loader=loader), dict)
    return time.perf_counter() - start


def warm_load(root: Path, cache_dir: Path) -> float:
    """Seconds for a new library to load ``root`` from the parse cache saved before."""
    sources = [SkillSource(root, Trust.USER)]
    cache = ParseCache(cache_dir / "parsed.pickle")
    start = time.perf_counter()
    library = SkillLibrary(sources, cache=cache)
    library.load()
    elapsed = time.perf_counter() - start
    assert not library.problems()
    return elapsed


def _ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def _clear_template_cache() -> None:
    """Forget parsed templates so every timed load is a cold one (the parser caches)."""
    cached = getattr(templates, "_analyse_cached", None)
    if cached is not None:
        cached.cache_clear()


def _edit(path: Path, round_no: int) -> None:
    text = path.read_text()
    path.write_text(text.replace("Free text before", f"Edited {round_no} before", 1))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--skills", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5, help="cold loads (and baselines) to time")
    parser.add_argument("--rounds", type=int, default=10, help="refresh rounds to time")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of one cold load")
    args = parser.parse_args()

    try:
        import skills_ref
    except ImportError:  # pragma: no cover
        skills_ref = None

    tmp = Path(tempfile.mkdtemp(prefix="gibberish-bench-"))
    try:
        root = tmp / "skills"
        root.mkdir()
        write_corpus(root, args.skills)
        sample = (root / "skill-0000" / "SKILL.md").read_text()
        total_bytes = sum(p.stat().st_size for p in root.glob("*/SKILL.md"))
        print("Corpus")
        print(f"  {args.skills} skills x {TOOLS_PER_SKILL} tools in {root}")
        print(
            f"  SKILL.md: {total_bytes / args.skills:,.0f} bytes on average, "
            f"{sample.count(chr(10))} lines; each skill also has scripts/convert.sh"
        )
        print(
            "  frontmatter: 8 typed fields; per tool: a parameter table (0-4 rows of "
            "string/integer/number/boolean/array, (default: X), escaped \\|)"
        )
        print(
            "  and a command with placeholders, flags, --, quotes and URLs; every command "
            "is distinct (no template cache hits)"
        )
        # Files changed within RACY_WINDOW_NS of being read are re-verified on the next
        # refresh (coarse timestamps); let the fresh corpus age past it, as a real one is.
        time.sleep(library_module.RACY_WINDOW_NS / 1e9 + 0.1)
        folders = sorted(p for p in root.iterdir() if p.is_dir())

        loads: list[float] = []
        baselines: list[float] = []
        floors: list[float] = []
        warms: list[float] = []
        cache_dir = tmp / "cache"
        SkillLibrary(
            [SkillSource(root, Trust.USER)], cache=ParseCache(cache_dir / "parsed.pickle")
        ).load()  # what the previous process leaves behind
        lib = SkillLibrary([SkillSource(root, Trust.USER)])
        for _ in range(args.repeat):
            floors.append(yaml_floor(folders))
            warms.append(warm_load(root, cache_dir))
            _clear_template_cache()
            lib = SkillLibrary([SkillSource(root, Trust.USER)])
            start = time.perf_counter()
            changes = lib.load()
            loads.append(time.perf_counter() - start)
            assert len(changes.added) == args.skills, changes
            if skills_ref is not None:
                start = time.perf_counter()
                for folder in folders:
                    skills_ref.validate(folder)
                baselines.append(time.perf_counter() - start)
        skills = lib.skills()
        problems = lib.problems()
        assert not problems, problems[0].diagnostics
        warnings = sum(len(s.warnings) for s in skills)

        idle: list[float] = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            assert not lib.refresh()
            idle.append(time.perf_counter() - start)

        edits: list[float] = []
        for r in range(args.rounds):
            path = folders[(r * 37) % len(folders)] / "SKILL.md"
            _edit(path, r)
            start = time.perf_counter()
            changed = lib.refresh()
            edits.append(time.perf_counter() - start)
            assert changed.changed == (path.parent.name,), changed

        load_s = statistics.median(loads)
        print()
        print(f"gibberish SkillLibrary  (median of {len(loads)}, min in brackets)")
        print(
            f"  cold load()               {_ms(load_s)}  [{min(loads) * 1000:.1f}]  "
            f"{load_s / args.skills * 1e6:,.0f} us/skill; {args.skills * TOOLS_PER_SKILL} tools, "
            f"{warnings} warnings, 0 errors"
        )
        print(
            f"  refresh(), nothing changed{_ms(statistics.median(idle))}  "
            f"[{min(idle) * 1000:.1f}]  max {max(idle) * 1000:.1f} ms over {len(idle)}"
        )
        print(f"  refresh(), 1 skill edited {_ms(edits[0])}  (first edit)")
        print(
            f"                            {_ms(statistics.median(edits))}  "
            f"[{min(edits) * 1000:.1f}]  max {max(edits) * 1000:.1f} ms over {len(edits)} edits "
            "(earlier edits, still in the racy window, are re-checked by content digest)"
        )
        print()
        if baselines:
            ref_s = statistics.median(baselines)
            print(
                f"skills_ref.validate() baseline, same corpus, same run (median of {len(baselines)})"
            )
            print(
                f"  {args.skills} folders             {_ms(ref_s)}  [{min(baselines) * 1000:.1f}]  "
                f"{ref_s / args.skills * 1e6:,.0f} us/skill (frontmatter only, strictyaml)"
            )
            print(f"  ratio load / skills-ref   {load_s / ref_s:8.2f}     (target <= 1.0)")
        else:
            print("skills_ref is not installed: no baseline")
        floor_s, warm_s = statistics.median(floors), statistics.median(warms)
        print()
        print(f"floor: read each SKILL.md + PyYAML C loader on its frontmatter (of {len(floors)})")
        print(f"  {args.skills} files               {_ms(floor_s)}  [{min(floors) * 1000:.1f}]")
        print(
            f"  warm load (parse cache)   {_ms(warm_s)}  [{min(warms) * 1000:.1f}]  "
            f"ratio {warm_s / floor_s:.2f} (min {min(warms) / min(floors):.2f}; target <= 1.0) "
            f"{'met' if warm_s / floor_s <= 1.0 else 'MISSED'}"
        )
        print(
            f"  cold load (every skill parsed) ratio {load_s / floor_s:.2f} "
            f"(min {min(loads) / min(floors):.2f}; for information)"
        )
        worst = max(edits)
        verdict = "met" if statistics.median(edits) <= 0.020 else "MISSED"
        print(f"  refresh target <= 20 ms   {verdict} (median; worst {worst * 1000:.1f} ms)")

        if args.profile:
            _clear_template_cache()
            profiler = cProfile.Profile()
            fresh = SkillLibrary([SkillSource(root, Trust.USER)])
            profiler.enable()
            fresh.load()
            profiler.disable()
            out = io.StringIO()
            stats = pstats.Stats(profiler, stream=out)
            stats.sort_stats("cumulative").print_stats(25)
            stats.sort_stats("tottime").print_stats(15)
            print()
            print(out.getvalue())
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
