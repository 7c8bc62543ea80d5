"""Benchmark ``gibberish mcp``: round-trip latency of ``tools/list`` and a read-only
``tools/call``, next to a bare SDK server (``MCPServer`` with one tool that does nothing),
both measured in this run through the SDK's stdio client.

The gibberish server has the bundled skills (about 16 tools plus the six ``skills_*``
tools); its call is ``uptime`` of the bundled ``system`` skill (read-only, so it runs
without approval): the figure includes the Engine's render, fingerprint check and
decision, and a real process start. The bare server's call returns an empty string.
Each figure is the median of ROUNDS requests after a warm-up; start-up is not counted.

A second floor for ``tools/list``: a bare SDK server whose ``list_tools`` returns, as
fixed data, the very tools gibberish listed (read from its answer in this run): the
protocol, validation and JSON of the same answer, with none of gibberish's own work.

Run: ``.venv/bin/python benchmarks/mcp.py``
"""

from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

# This file is called mcp.py: drop its folder from the path so ``import mcp`` finds the SDK.
_HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != _HERE]

import anyio  # noqa: E402
from mcp.client.session import ClientSession  # noqa: E402
from mcp.client.stdio import StdioServerParameters, stdio_client  # noqa: E402

ROUNDS = 50
BARE_SERVER = """
from mcp.server.mcpserver import MCPServer
server = MCPServer("bare", log_level="WARNING")

@server.tool()
def noop() -> str:
    return ""

server.run("stdio")
"""
SAME_TOOLS_SERVER = """
import json, sys
from mcp.server.mcpserver import MCPServer
from mcp_types import Tool

TOOLS = [Tool.model_validate(t) for t in json.loads(open(sys.argv[1]).read())]

class Listed(MCPServer):
    async def list_tools(self):
        return list(TOOLS)

Listed("bare", log_level="WARNING").run("stdio")
"""


async def median_ms(action: Callable[[], Awaitable[object]]) -> float:
    for _ in range(3):
        await action()
    times = []
    for _ in range(ROUNDS):
        start = time.perf_counter()
        await action()
        times.append((time.perf_counter() - start) * 1000)
    return statistics.median(times)


async def measure(
    params: StdioServerParameters, tool: str | None, keep: Path | None = None
) -> tuple[float, float]:
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        listed = await median_ms(session.list_tools)
        if keep is not None:
            tools = (await session.list_tools()).tools
            dumped = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
            keep.write_text(json.dumps(dumped))
        if tool is None:
            return listed, float("nan")

        async def call() -> object:
            result = await session.call_tool(tool, {})
            if result.is_error:
                raise SystemExit(f"{tool} failed: {result.content}")
            return result

        return listed, await median_ms(call)


async def main() -> None:
    root = Path(__file__).resolve().parent.parent
    home = Path(tempfile.mkdtemp(prefix="gibberish-bench-"))
    env = {**os.environ, "HOME": str(home)}
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME"):
        env[var] = str(home / var.lower())
    env["XDG_RUNTIME_DIR"] = str(home)  # no tray to find
    gibberish = StdioServerParameters(
        command=sys.executable,
        args=["-m", "gibberish", "--no-user-skills", "mcp"],
        env=env,
        cwd=root,
    )
    bare = StdioServerParameters(command=sys.executable, args=["-c", BARE_SERVER], env=env)
    tools_file = home / "tools.json"
    g_list, g_call = await measure(gibberish, "uptime", keep=tools_file)
    b_list, b_call = await measure(bare, "noop")
    same = StdioServerParameters(
        command=sys.executable, args=["-c", SAME_TOOLS_SERVER, str(tools_file)], env=env
    )
    s_list, _ = await measure(same, None)
    count = len(json.loads(tools_file.read_text()))
    print(f"median of {ROUNDS} round trips over stdio (ms)")
    print(f"{'':22}{'gibberish':>10}{'bare SDK':>10}{'ratio':>8}")
    print(f"{'tools/list':22}{g_list:>10.2f}{b_list:>10.2f}{g_list / b_list:>7.1f}x")
    print(f"{'tools/call read-only':22}{g_call:>10.2f}{b_call:>10.2f}{g_call / b_call:>7.1f}x")
    print(
        f"tools/list against a bare SDK server listing the same {count} tools as fixed data: "
        f"{g_list:.2f} / {s_list:.2f} ms = {g_list / s_list:.2f}x (goal <= 1.2)"
    )


if __name__ == "__main__":
    anyio.run(main)
