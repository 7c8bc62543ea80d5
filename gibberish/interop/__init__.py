"""Moving skills between gibberish and other coding agents.

Qt-free and process-free except where a module says otherwise: ``agents`` is the table
of agents and their folders, ``sync`` copies skills into those folders (and merges MCP
server entries into their configuration), ``compile`` turns one skill into a Gemini CLI
command file, ``archive`` reads uploaded archives and packs results, ``webapp`` serves
the local compile page.
"""
