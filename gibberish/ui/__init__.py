"""The desktop front end (PySide6). The only package that imports Qt (docs/adr/0001-layers.md).

Everything here talks to the application through ``gibberish.engine.core.Engine``; no widget
parses a skill, renders a command or starts a process itself. ``application.run_application``
is the entry point the CLI calls; ``controller.Controller`` is where a click becomes a
form, an approval and a run.
"""
