"""Bringing skills in from outside: fetching sources safely, installing, tracking them.

Nothing here imports Qt; the Engine, the CLI and the tray all call into this package.
``fetch`` turns a source string (folder, archive, URL, git repository) into a private
staging folder; ``install`` validates, records and moves skills into place.
"""
