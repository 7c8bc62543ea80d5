"""Moving skills between gibberish and the outside: bringing them in, sending them out.

Nothing here imports Qt; the CLI and the tray call into this package, which sits above
the Engine (docs/adr/0001-layers.md): ``installer.installer_for`` sets up the installer
from it.
``fetch`` turns a source string (folder, archive, URL, git repository) into a private
staging folder; ``install`` validates, records and moves skills into place.

Export: ``agents`` is the table of other coding agents and their folders, ``sync`` copies
skills into those folders and ``mcp_sync`` merges MCP server entries into their
configuration (``ownership`` records what gibberish wrote), ``compile`` turns one skill
into a Gemini CLI command file, ``web`` serves the local compile page.

Agents, from here: ``mcp_server`` serves the skills over MCP (``gibberish mcp``) and
``mcp_approval`` asks the running tray to approve its calls; ``disclosure`` reads a skill
folder a section at a time (the ``skills_*`` tools and ``outline``/``show``/``open``/
``sources``/``search``); ``stub`` compiles a skillc-style gateway stub.
"""
