"""The ``gibberish`` command line: thin — it parses flags, calls the Engine, prints.

Every error a person can cause ends as one clear message on stderr and a non-zero exit
status, never a traceback (``main`` is the only place that catches broadly).

This module is the front door, so it imports nothing heavy: a second ``gibberish`` start
(the global hotkey) hands its request to the running instance and exits before click,
Qt, keyring or the Engine are imported, and ``--version`` answers without them. The
click group lives in :mod:`gibberish.cli.root` and imports each command's module only
when that command runs or a help page lists it.
"""

from __future__ import annotations

import sys

COMMAND_MODULES = (
    "gibberish.cli.skills",
    "gibberish.cli.run",
    "gibberish.cli.trust",
    "gibberish.cli.assistant",
    "gibberish.cli.tray",
    "gibberish.cli.install",
    "gibberish.cli.export",
    "gibberish.cli.doctor",
    "gibberish.cli.voice",
    "gibberish.cli.disclosure",
    "gibberish.cli.mcp",
    "gibberish.cli.context_blocks",
    "gibberish.cli.project",
    "gibberish.cli.plugin",
    "gibberish.cli.manage",
)
"""Modules exposing ``COMMANDS = [...]``; a new front end adds its module name here."""

COMMAND_HINTS = {
    "skills": "gibberish.cli.skills",
    "run": "gibberish.cli.run",
    "approvals": "gibberish.cli.trust",
    "secrets": "gibberish.cli.trust",
    "mode": "gibberish.cli.trust",
    "prompt": "gibberish.cli.assistant",
    "parse-call": "gibberish.cli.assistant",
    "ask": "gibberish.cli.assistant",
    "model-key": "gibberish.cli.assistant",
    "tray": "gibberish.cli.tray",
    "sync": "gibberish.cli.export",
    "compile": "gibberish.cli.export",
    "web": "gibberish.cli.export",
    "doctor": "gibberish.cli.doctor",
    "install": "gibberish.cli.install",
    "uninstall": "gibberish.cli.install",
    "update": "gibberish.cli.install",
    "installed": "gibberish.cli.install",
    "enable": "gibberish.cli.manage",
    "disable": "gibberish.cli.manage",
    "audit": "gibberish.cli.manage",
    "project": "gibberish.cli.project",
    "listen": "gibberish.cli.voice",
    "voice": "gibberish.cli.voice",
    "outline": "gibberish.cli.disclosure",
    "show": "gibberish.cli.disclosure",
    "open": "gibberish.cli.disclosure",
    "sources": "gibberish.cli.disclosure",
    "search": "gibberish.cli.disclosure",
    "stub": "gibberish.cli.disclosure",
    "mcp": "gibberish.cli.mcp",
    "context": "gibberish.cli.context_blocks",
    "plugin": "gibberish.cli.plugin",
}
"""Which module holds a command, so that running it imports that module alone. A command
missing here still works: its name is looked for in every module of the tuple above."""

_OPENED = "gibberish is already running: opened its command bar."

FORWARDED = {
    (): ("open-command-bar", _OPENED),
    ("tray",): ("open-command-bar", _OPENED),
    ("listen",): ("listen", "Listening in the running gibberish."),
    ("voice", "listen"): ("listen", "Listening in the running gibberish."),
}
"""Command lines a running instance takes over: the line it is sent (see
``gibberish.ui.single_instance``) and what this process says before it exits. When no
instance is running, the command starts normally."""


_GLOBAL_FLAGS = frozenset({"--no-user-skills", "--no-bundled", "--debug"})
"""Global options that mean nothing to a running instance (it has its own skills)."""


def forwarded_request(argv: list[str]) -> tuple[str, str] | None:
    """The request ``argv`` hands to a running instance and its note, or None.

    Leading global options are passed over (a shortcut bound to ``gibberish --no-bundled``
    is still the hotkey); anything else this does not recognise runs here as usual.
    """
    return FORWARDED.get(tuple(_after_global_options(argv)))


def _after_global_options(argv: list[str]) -> list[str]:
    """``argv`` without its leading global options: the command and what follows it."""
    rest = list(argv)
    while rest:
        if rest[0] in _GLOBAL_FLAGS or rest[0].startswith("--skills-dir="):
            del rest[0]
        elif rest[0] == "--skills-dir" and len(rest) > 1:
            del rest[:2]
        else:
            break
    return rest


def may_start_tray(argv: list[str]) -> bool:
    """Whether ``argv`` may start the tray: no command, or ``tray``. Any other command
    goes straight to the click group, without the tray's start path being imported."""
    return _after_global_options(argv)[:1] in ([], ["tray"])


def main() -> None:
    """The ``gibberish`` program: hand-off and ``--version`` first, then the click group."""
    argv = sys.argv[1:]
    forwarded = forwarded_request(argv)
    if forwarded is not None:
        from gibberish.instance_socket import send_request

        request, note = forwarded
        if send_request(request):
            print(note, file=sys.stderr)
            sys.exit(0)
    if argv == ["--version"]:
        from gibberish import __version__

        print(f"gibberish, version {__version__}")
        return
    if may_start_tray(argv):
        from gibberish.cli.tray_start import start_if_tray

        start_if_tray(argv)  # starting the tray needs no click; returns for anything else
    from gibberish.cli.root import run_main

    run_main()


def __getattr__(name: str) -> object:
    """``from gibberish.cli import cli`` imports the click group only when asked."""
    if name == "cli":
        from gibberish.cli.root import cli

        return cli
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
