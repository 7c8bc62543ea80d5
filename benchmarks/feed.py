"""Benchmark the model feed: manifest rendering and call parsing, next to C json as baseline.

* Manifest: FunctionGemma declarations for 200 tools (``render_developer_turn``) against
  ``json.dumps`` of the same tools' OpenAI schemas (already built dicts — pure C).
* Parsing: 10,000 FunctionGemma calls (``parse_calls`` on each output) against
  ``json.loads`` of the same calls as ``{"name": …, "arguments": {…}}``.

The corpus is generated with a fixed seed: tool names, 0–6 parameters of every type,
descriptions of 20–200 characters; call arguments with strings holding ``, } : <`` and
spaces, integers, floats, booleans, arrays and, in one call in ten, a nested object. Each
figure is the best of several rounds. Target: each ratio ≤ 5×.

Real server (only when one answers; otherwise it says "not available" and skips):
time from asking to the first proposed call through gibberish (``Router.route`` over the
spec's example tools: prompt, HTTP, streamed reading, parsing, validation) against a bare
``httpx`` POST of the very body gibberish sends, read to the end of the stream. The
difference is gibberish's own overhead. Start a server with scripts/real-model-check.sh.

Run: ``.venv/bin/python benchmarks/feed.py [--server URL] [--api openai] [--model NAME]
[--server-rounds N]``
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import string
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gibberish.assistant.callparser import parse_calls
from gibberish.assistant.functiongemma import render_call, render_developer_turn
from gibberish.assistant.manifest import tool_schemas
from gibberish.assistant.naming import ToolCatalog
from gibberish.skills.model import (
    ParameterDefinition,
    ParameterType,
    SkillDefinition,
    ToolDefinition,
)

SEED = 20250101
TOOLS = 200
CALLS = 10_000
ROUNDS = 7
WORDS = [
    "show",
    "list",
    "the",
    "git",
    "status",
    "deploy",
    "preview",
    "build",
    "search",
    "files",
    "web",
    "page",
    "commit",
    "log",
    "diff",
]


def sentence(rng: random.Random, low: int, high: int) -> str:
    text = ""
    target = rng.randint(low, high)
    while len(text) < target:
        text += rng.choice(WORDS) + " "
    return text.strip().capitalize() + "."


def make_catalog(rng: random.Random) -> ToolCatalog:
    skills = []
    for s in range(TOOLS // 4):
        tools = []
        for t in range(4):
            params = tuple(
                ParameterDefinition(
                    f"p{i}_{rng.choice(WORDS)}",
                    rng.choice(list(ParameterType)),
                    rng.random() < 0.5,
                    sentence(rng, 10, 60),
                    rng.choice([None, None, 10]),
                )
                for i in range(rng.randint(0, 6))
            )
            tools.append(ToolDefinition(f"tool_{s}_{t}", sentence(rng, 20, 200), params))
        skills.append(
            SkillDefinition(
                name=f"skill-{s}",
                source_path=Path(f"/bench/skill-{s}/SKILL.md"),
                description=sentence(rng, 20, 120),
                tools=tuple(tools),
            )
        )
    return ToolCatalog.from_skills(skills)


def value(rng: random.Random, depth: int = 0) -> object:
    kind = rng.randrange(7 if depth == 0 else 5)
    if kind == 0:
        return rng.randint(-(10**6), 10**6)
    if kind == 1:
        return round(rng.uniform(-1000, 1000), 3)
    if kind == 2:
        return rng.random() < 0.5
    if kind in (3, 4):
        alphabet = string.ascii_letters + " ,}:<{[]"
        return "".join(rng.choice(alphabet) for _ in range(rng.randint(3, 40)))
    if kind == 5:
        return [rng.choice(WORDS) for _ in range(rng.randint(0, 4))]
    return {f"k{i}": value(rng, depth + 1) for i in range(rng.randint(1, 3))}


def make_calls(rng: random.Random, catalog: ToolCatalog) -> list[tuple[str, dict[str, object]]]:
    names = catalog.names()
    return [
        (rng.choice(names), {f"a{i}": value(rng) for i in range(rng.randint(0, 5))})
        for _ in range(CALLS)
    ]


def best(fn: Callable[[], object], rounds: int = ROUNDS) -> float:
    times = []
    for _ in range(rounds):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def report(label: str, ours: float, baseline: float, items: int, unit: str) -> float:
    ratio = ours / baseline
    print(
        f"{label:<28} ours {ours / items * 1e6:8.2f} µs/{unit}   "
        f"json {baseline / items * 1e6:8.2f} µs/{unit}   ratio {ratio:5.2f}×"
    )
    return ratio


def server_figures(url: str, api: str, model: str, rounds: int, max_tokens: int) -> None:
    """Time to the first proposed call via gibberish vs a bare httpx request (module doc)."""
    import httpx

    from gibberish.assistant.clients import ModelRequest, ModelSettings, client_for
    from gibberish.assistant.router import Router
    from gibberish.assistant.validate import validate_call
    from tests.assistant.scenarios import catalog

    try:
        httpx.get(url.rstrip("/") + ("/health" if api == "openai" else "/api/version"), timeout=2)
    except httpx.HTTPError as exc:
        print(f"real server: not available at {url} ({type(exc).__name__}) — skipped")
        print("  start one with scripts/real-model-check.sh, then pass --server")
        return
    settings = ModelSettings(endpoint=url, api=api, model=model, timeout=600, max_tokens=max_tokens)
    tools = catalog()
    request = "show me the last 5 commits"
    client = client_for(settings)
    router = Router(client)
    offered = router.select(request, list(tools.tools)).tools
    body = client.body(ModelRequest.single(offered, request))

    def ours() -> object:
        # One exchange, as the bare request: send, stream, parse, validate (a router's
        # repair retry would be a second exchange and is not part of this figure).
        reply = client.complete(ModelRequest.single(offered, request))
        return [validate_call(c, tools) for c in reply.calls]

    def bare() -> None:
        with (
            httpx.Client(timeout=600) as http,
            http.stream("POST", client.url(), json=body) as response,
        ):
            for _ in response.iter_lines():
                pass

    start = time.perf_counter()
    result = router.route(request, tools)  # what the router makes of it (and a warm-up)
    routed = time.perf_counter() - start
    bare()
    ours_t, bare_t = [], []
    for _ in range(rounds):
        for fn, times in ((ours, ours_t), (bare, bare_t)):
            start = time.perf_counter()
            fn()
            times.append(time.perf_counter() - start)
    calls = ", ".join(f"{c.name}{dict(c.arguments)}" for c in result.calls) or "none"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"real server {url} ({api}, model {model}); {rounds} rounds; load average {load}")
    print(
        f"  route: status {result.status.value}, attempts {result.attempts},"
        f" {routed:.2f} s to the outcome; calls proposed: {calls}"
    )
    for label, fn in (("min", min), ("median", statistics.median)):
        o, b = fn(ours_t), fn(bare_t)
        print(
            f"  one exchange, {label:<6}: gibberish {o * 1e3:8.1f} ms   bare httpx {b * 1e3:8.1f} ms"
            f"   ratio {o / b:5.2f}×   overhead {(o - b) * 1e3:+.1f} ms"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--server", default="http://127.0.0.1:8080")
    parser.add_argument(
        "--api", default="openai", choices=["openai", "ollama-chat", "ollama-generate"]
    )
    parser.add_argument("--model", default="smollm2-135m-instruct")
    parser.add_argument("--server-rounds", type=int, default=5)
    parser.add_argument("--max-tokens", type=int, default=32, help="Token limit per answer.")
    options = parser.parse_args()
    rng = random.Random(SEED)
    catalog = make_catalog(rng)
    tools = list(catalog)
    schemas = tool_schemas(tools)
    calls = make_calls(rng, catalog)
    texts = [render_call(n, a) for n, a in calls]
    jsons = [json.dumps({"name": n, "arguments": a}) for n, a in calls]

    # Correctness first: every rendered call parses back to its data.
    for (name, args), text in zip(calls, texts, strict=True):
        result = parse_calls(text)
        assert result.ok and result.calls[0].name == name and result.calls[0].arguments == args

    print(
        f"corpus: {len(tools)} tools (seed {SEED}), {len(calls)} calls;"
        f" python {sys.version.split()[0]}; best of {ROUNDS} rounds"
    )
    manifest_chars = len(render_developer_turn(tools))
    print(f"manifest: {manifest_chars} chars FunctionGemma, {len(json.dumps(schemas))} chars JSON")
    print(f"calls: {sum(map(len, texts))} chars FunctionGemma, {sum(map(len, jsons))} chars JSON")

    render_t = best(lambda: render_developer_turn(tools), ROUNDS * 4)
    dumps_t = best(lambda: json.dumps(schemas), ROUNDS * 4)
    r1 = report("manifest render (200 tools)", render_t, dumps_t, len(tools), "tool")

    parse_t = best(lambda: [parse_calls(t) for t in texts])
    loads_t = best(lambda: [json.loads(j) for j in jsons])
    r2 = report("parse (10,000 calls)", parse_t, loads_t, len(texts), "call")

    ok = r1 <= 5 and r2 <= 5
    print("target ≤ 5× json:", "met" if ok else "NOT met")
    server_figures(
        options.server, options.api, options.model, options.server_rounds, options.max_tokens
    )
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
