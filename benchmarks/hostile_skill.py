"""How long a hostile SKILL.md takes to refuse, against an ordinary one of the same size.

Two files of just under 1 MiB (the size limit): one made only of ``###`` lines (each
would be a tool), and one of ordinary prose under a single tool. Both are parsed with
:func:`parse_skill_file`; the script prints the median time of each and the ratio.
Before the tool limit, the ``###`` file took about 25 s (``skills list``) and 1.9 GB;
parsing must stay linear, so the ratio should stay small (target <= 10).

Run:  .venv/bin/python benchmarks/hostile_skill.py [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gibberish.skills import fields as F
from gibberish.skills.parser import parse_skill_file

_FRONT = "---\nname: big\ndescription: A big skill.\nversion: 1.0.0\n---\n"
_TOOL = "### read\n\nReads.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```\ncat /etc/hostname\n```\n"


def _write(folder: Path, name: str, body: str) -> Path:
    path = folder / name / "SKILL.md"
    path.parent.mkdir()
    room = F.MAX_SKILL_FILE_BYTES - len(_FRONT) - 16
    path.write_text(_FRONT + body[:room], encoding="utf-8")
    return path


def _median(path: Path, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        parse_skill_file(path)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        n = F.MAX_SKILL_FILE_BYTES
        headings = _write(folder, "headings", "###\n" * (n // 4))
        prose = _write(folder, "prose", _TOOL + "Some ordinary prose, a line of it.\n" * (n // 35))
        hostile = _median(headings, args.repeat)
        baseline = _median(prose, args.repeat)
    print(f"1 MiB of '###' lines: {hostile * 1000:8.1f} ms  (limit: {F.MAX_TOOLS} tools)")
    print(f"1 MiB of prose      : {baseline * 1000:8.1f} ms  (baseline)")
    print(f"ratio               : {hostile / baseline:8.2f}  (target <= 10)")


if __name__ == "__main__":
    main()
