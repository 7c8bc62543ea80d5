"""``gibberish mcp``: serve the skills to other agents over MCP (stdio)."""

from __future__ import annotations

import click

from gibberish.cli.assistant import MODE_CHOICE, _mode
from gibberish.cli.common import CliState, fail, pass_state


@click.command("mcp")
@click.option("--mode", type=MODE_CHOICE, help="Offer the tools of this mode (default: current).")
@pass_state
def mcp_command(state: CliState, mode: str | None) -> None:
    """Run an MCP server on stdin/stdout: skill tools, skills_* disclosure tools, resources."""
    try:
        from gibberish.mcp.server import serve
    except ModuleNotFoundError as exc:
        fail(f"the MCP server needs the 'mcp' package ({exc}); pip install 'mcp>=2.3,<3'.", 1)
    engine = state.engine()
    serve(engine, _mode(engine, mode))


COMMANDS = [mcp_command]
