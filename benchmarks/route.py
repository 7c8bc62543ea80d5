"""What choosing the tools for one model request costs, at 100, 1,000 and 5,000 skills.

Writes a corpus of N skills x 5 tools (descriptions draw from ~160 common words — verbs,
nouns, adjectives — followed by 6,000 made-up ones, with Zipf-Mandelbrot frequencies, so
the commonest word is in about one skill in six and most words in very few; a quarter are
function words; ``--zipf-offset 0`` puts the first few words in nearly every skill;
tool names repeat across skills, so many exposed names are qualified) into a temporary folder, loads it through a real ``Engine``, then times
``engine.feed.route`` — the mode's tool index, scoring, the budgeted selection, the context
feed and the prompt the client would send — with a client that renders its real request
body (``OllamaGenerateClient.body``) and answers at once instead of over HTTP. The
model's own time is not counted: this is gibberish's cost per request.

Three situations, each timed 5 times (min and median printed):

* ``cold`` — the first request after start: no index yet (the library is loaded).
* ``after edit`` — one skill's SKILL.md rewritten with a new word in a tool's description,
  ``engine.library.reload()``, then a request naming that word (checked: the edited tool is
  offered, with its new description).
* ``steady`` — the next requests, each with different words, nothing changed.

Floor, timed in the same run: rendering just the chosen tools' declarations
(``render_developer_turn`` of what the request offered) — what any router must pay to
put those tools in a prompt. The ratio is steady / floor. Targets: <= 20 ms per request at
1,000 skills and <= 100 ms at 5,000.

As in the tray, automatic garbage collection is off while requests run (the tray collects
on the GUI thread, ``gibberish/ui/gui_gc.py``, and the model router runs on a worker);
``--gc`` leaves it on.

Run:  .venv/bin/python benchmarks/route.py [--skills 100,1000,5000] [--repeat 5] [--gc]
      [--zipf-offset 100]
"""

from __future__ import annotations

import argparse
import gc
import os
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

_TMP = tempfile.TemporaryDirectory(prefix="gibberish-route-bench-")
for _var in ("HOME", "XDG_CONFIG_HOME", "XDG_CACHE_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
    os.environ[_var] = str(Path(_TMP.name) / _var.lower())

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gibberish.assistant.clients import (  # noqa: E402
    Api,
    ModelReply,
    ModelRequest,
    ModelSettings,
    OllamaGenerateClient,
)
from gibberish.assistant.functiongemma import render_call, render_developer_turn  # noqa: E402
from gibberish.engine.core import Engine, EngineOptions  # noqa: E402
from gibberish.skills.model import Mode  # noqa: E402

TOOLS_PER_SKILL = 5
SEED = 12
VERBS = [
    "show",
    "list",
    "find",
    "search",
    "open",
    "build",
    "run",
    "deploy",
    "check",
    "convert",
    "compress",
    "extract",
    "sync",
    "upload",
    "download",
    "backup",
    "restore",
    "clean",
    "format",
    "lint",
    "test",
    "start",
    "stop",
    "restart",
    "watch",
    "count",
    "measure",
    "compare",
    "merge",
    "split",
    "rename",
    "move",
    "copy",
    "delete",
    "archive",
    "publish",
    "render",
    "preview",
    "translate",
    "summarize",
]
NOUNS = [
    "file",
    "folder",
    "commit",
    "branch",
    "tag",
    "issue",
    "ticket",
    "page",
    "image",
    "photo",
    "video",
    "audio",
    "track",
    "album",
    "playlist",
    "note",
    "task",
    "event",
    "invoice",
    "receipt",
    "contact",
    "email",
    "message",
    "calendar",
    "meeting",
    "server",
    "container",
    "volume",
    "network",
    "port",
    "process",
    "service",
    "log",
    "metric",
    "alert",
    "dashboard",
    "database",
    "table",
    "query",
    "index",
    "schema",
    "backup",
    "snapshot",
    "cluster",
    "node",
    "pod",
    "secret",
    "token",
    "key",
    "certificate",
    "domain",
    "record",
    "package",
    "dependency",
    "release",
    "build",
    "artifact",
    "report",
    "chart",
    "invoice",
    "budget",
    "expense",
    "account",
    "project",
    "repository",
    "document",
    "draft",
    "slide",
    "sheet",
    "recipe",
    "song",
    "podcast",
    "episode",
    "feed",
    "article",
    "bookmark",
    "tab",
    "window",
    "screen",
    "clipboard",
    "font",
    "theme",
    "icon",
    "printer",
    "scanner",
    "battery",
    "disk",
    "memory",
    "cpu",
    "sensor",
    "weather",
    "forecast",
    "map",
    "route",
]
ADJECTIVES = [
    "recent",
    "latest",
    "old",
    "large",
    "small",
    "empty",
    "broken",
    "shared",
    "private",
    "public",
    "remote",
    "local",
    "staged",
    "pending",
    "failed",
    "running",
    "stopped",
    "unread",
    "starred",
    "hidden",
    "temporary",
    "daily",
    "weekly",
]
FILLER = ["the", "a", "of", "for", "with", "in", "from", "to", "and", "by", "on", "as", "when"]


SYLLABLES = [
    "ka",
    "lo",
    "mi",
    "ter",
    "van",
    "sol",
    "rix",
    "bel",
    "dun",
    "po",
    "fa",
    "gen",
    "hu",
    "zar",
    "mel",
    "tis",
    "nor",
    "quo",
    "bra",
    "ced",
]
RARE_WORDS = 6000


def _vocabulary(offset: int) -> tuple[list[str], list[float]]:
    """The common words (verbs, nouns, adjectives, in a shuffled order), then made-up ones,
    with Zipf-Mandelbrot frequencies: the k-th word is used in proportion to 1/(k + offset),
    as content words are in natural text (the function words, which take the top ranks of
    a real text, are drawn apart). With the default offset of 100 the commonest word is in
    about one skill in six; with 0 the first few are in nearly every skill."""
    rng = random.Random(SEED - 1)
    common = list(dict.fromkeys(VERBS + NOUNS + ADJECTIVES))
    rng.shuffle(common)
    found: dict[str, None] = dict.fromkeys(common)
    while len(found) < len(common) + RARE_WORDS:
        found["".join(rng.choice(SYLLABLES) for _ in range(rng.randint(2, 4)))] = None
    cumulative, total = [], 0.0
    for rank in range(1, len(found) + 1):
        total += 1 / (rank + offset)
        cumulative.append(total)
    return list(found), cumulative


VOCABULARY, CUMULATIVE = _vocabulary(100)


def word(rng: random.Random) -> str:
    """A function word (one in four), else a word of the Zipf vocabulary."""
    if rng.random() < 0.25:
        return rng.choice(FILLER)
    return rng.choices(VOCABULARY, cum_weights=CUMULATIVE)[0]


def sentence(rng: random.Random, low: int, high: int) -> str:
    text = " ".join(word(rng) for _ in range(rng.randint(low, high)))
    return text.capitalize() + "."


def tool_text(rng: random.Random, index: int) -> str:
    name = f"{rng.choice(VERBS)}_{rng.choice(NOUNS)}"
    params = rng.sample(NOUNS, rng.randint(0, 4))
    out = [f"### {name}_{index}", "", sentence(rng, 8, 20), "", "#### Parameters", ""]
    if params:
        out += ["| Name | Type | Required | Description |", "|---|---|---|---|"]
        for p in params:
            kind = rng.choice(("string", "integer", "boolean"))
            out.append(f"| {p} | {kind} | {rng.choice(('yes', 'no'))} | {sentence(rng, 3, 9)} |")
    else:
        out.append("None.")
    placeholders = " ".join(f"{{{{{p}}}}}" for p in params)
    out += ["", "#### Command", "", "```bash", f"echo {name} {placeholders}".strip(), "```", ""]
    return "\n".join(out)


def skill_text(rng: random.Random, name: str) -> str:
    tools = "\n".join(tool_text(rng, t % 3) for t in range(TOOLS_PER_SKILL))
    return (
        f"---\nname: {name}\nversion: 1.0.0\n"
        f'description: "{sentence(rng, 10, 25)}"\n'
        "modes:\n  - Dev\n  - Global\n"
        "---\n\n"
        f"# {name}\n\n" + tools
    )


def write_corpus(root: Path, count: int) -> list[Path]:
    rng = random.Random(SEED)
    files = []
    for i in range(count):
        name = f"{rng.choice(NOUNS)}-{rng.choice(NOUNS)}-{i}"
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(skill_text(rng, name))
        files.append(folder / "SKILL.md")
    return files


def requests(count: int) -> list[str]:
    rng = random.Random(SEED + 1)
    return [
        f"{rng.choice(VERBS)} the {rng.choice(ADJECTIVES)} {rng.choice(NOUNS)} "
        f"of {word(rng)} for {word(rng)}"
        for _ in range(count)
    ]


class InstantClient(OllamaGenerateClient):
    """The real client's request body (the prompt with the chosen declarations), and an
    answer at once: the first offered tool, called with no arguments."""

    def complete(self, request: ModelRequest, *, cancel=None, on_text=None) -> ModelReply:
        self.last_body = self.body(request)
        return self.reply(render_call(request.tools[0].name, {}), [], {}, None)


def timed(action: Callable[[], object]) -> tuple[float, object]:
    start = time.perf_counter()
    out = action()
    return time.perf_counter() - start, out


def floor_of(tools) -> float:
    start = time.perf_counter()
    render_developer_turn(tools)
    return time.perf_counter() - start


def ms(values: list[float]) -> str:
    return f"{min(values) * 1000:8.1f} {statistics.median(values) * 1000:8.1f}"


def edit(path: Path, word: str) -> None:
    """A new word at the start of the first tool's description (a real content change)."""
    text = path.read_text()
    start = text.index("\n\n", text.index("\n### ") + 1) + 2
    path.write_text(text[:start] + f"Handles {word} requests. " + text[start:])


def bench(count: int, repeat: int) -> dict[str, list[float]]:
    root = Path(_TMP.name) / f"skills-{count}"
    files = write_corpus(root, count)
    engine = Engine(
        EngineOptions(extra_skills_dirs=(root,), include_user=False, include_bundled=False)
    )
    load, _ = timed(engine.library.ensure_loaded)
    client = InstantClient(ModelSettings(api=Api.OLLAMA_GENERATE, budget=2048))
    asks = requests(repeat * 3)
    out: dict[str, list[float]] = {"cold": [], "after edit": [], "steady": [], "floor": []}

    def route(text: str):
        return engine.feed.route(text, mode=Mode.DEV, client=client)

    for i in range(repeat):
        engine.feed._tool_indexes = None  # the first request after start: no index yet
        seconds, _ = timed(lambda i=i: route(asks[i]))
        out["cold"].append(seconds)
    for i in range(repeat):
        word = f"zq{i}x{count}"
        edit(files[(i * 7919) % len(files)], word)
        engine.library.reload()
        seconds, result = timed(lambda word=word: route(f"handle the {word} request"))
        first = engine.feed.catalog(Mode.DEV).resolve(result.offered[0])
        assert first is not None and word in first.description, "the edit was not seen"
        out["after edit"].append(seconds)
    for i in range(repeat):
        seconds, result = timed(lambda i=i: route(asks[repeat + i]))
        out["steady"].append(seconds)
        offered = engine.feed.catalog(Mode.DEV).subset(result.offered)
        out["floor"].append(min(floor_of(offered) for _ in range(3)))
    print(f"  {count:>5} skills, {count * TOOLS_PER_SKILL:>6} tools (loaded in {load:.1f} s)")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skills", default="100,1000,5000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--gc", action="store_true", help="leave automatic GC on")
    parser.add_argument(
        "--zipf-offset", type=int, default=100, help="0: common words in nearly every skill"
    )
    args = parser.parse_args()
    global VOCABULARY, CUMULATIVE
    VOCABULARY, CUMULATIVE = _vocabulary(args.zipf_offset)
    targets = {1000: 20.0, 5000: 100.0}
    print(
        f"load average {os.getloadavg()[0]:.1f}; Zipf offset {args.zipf_offset}; "
        f"per request, ms (min, median of {args.repeat})"
    )
    rows = []
    for count in (int(c) for c in args.skills.split(",")):
        gc.collect()
        if not args.gc:
            gc.disable()
        try:
            rows.append((count, bench(count, args.repeat)))
        finally:
            gc.enable()
    print()
    print(f"{'skills':>6} {'situation':<11} {'min':>8} {'median':>8}  ratio to floor  target")
    for count, out in rows:
        floor = statistics.median(out["floor"])
        target = targets.get(count)
        for name in ("cold", "after edit", "steady"):
            values = out[name]
            ratio = statistics.median(values) / floor
            verdict = ""
            if target is not None and name != "cold":
                met = statistics.median(values) * 1000 <= target
                verdict = f"<= {target:.0f} ms {'met' if met else 'MISSED'}"
            print(f"{count:>6} {name:<11} {ms(values)}  {ratio:10.1f}x    {verdict}")
        print(f"{count:>6} {'floor':<11} {ms(out['floor'])}  (render the chosen declarations)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
