"""``gibberish mcp``: the skills as an MCP server, and asking the tray to approve its calls."""
