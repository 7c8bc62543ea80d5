"""Speaking to other agents: the MCP server, progressive disclosure, skillc-style stubs.

Qt-free. The disclosure functions read a skill folder section by section so an agent never
needs the whole folder in its context; the MCP server and the ``outline``/``show``/``open``/
``sources``/``search`` commands are two front ends over the same functions.
"""
