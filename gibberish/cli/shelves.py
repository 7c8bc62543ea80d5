"""Where each command is listed: the top of ``gibberish --help`` by what a person does,
and the shelves (``skills``, ``export``, ``trust``, ``voice``) that hold the rest.

Each command module keeps its commands under the names they always had (``COMMANDS``);
this module only places them. A command on a shelf still works under its old spelling
at the top (``gibberish outline`` is ``gibberish skills outline``), hidden from
``--help``. A command placed nowhere is listed at the top under "Other commands", so a
new one is seen at once: give it a place here (a shelf's ``modules`` places every
command of a module; ``moved`` places one) and the top stays short.

Nothing is imported to list a shelf's names until a shelf is asked for, and asking for
one command of a shelf imports only the module that holds it.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, MutableMapping
from typing import NamedTuple

import click

from gibberish.cli.common import FullHelpGroup

SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Run and ask", ("run", "ask")),
    ("Skills", ("skills",)),
    ("Install and update", ("install", "update", "uninstall", "audit")),
    ("Export", ("export",)),
    ("Trust", ("trust",)),
    ("Voice", ("voice",)),
    ("Desktop and doctor", ("tray", "doctor")),
)
"""The top-level commands, grouped by what a person does, in the order ``--help`` lists them."""


def _examples(*pairs: tuple[str, str]) -> str:
    """An ``Examples:`` block for a help page: each command line, then what it does,
    in one column (``\\b`` keeps click from rewrapping it)."""
    width = max(len(command) for command, _ in pairs) + 2
    lines = [f"  {command.ljust(width)}{what}" for command, what in pairs]
    return "\b\nExamples:\n" + "\n".join(lines)


class Shelf(NamedTuple):
    help: str
    modules: tuple[str, ...] = ()
    """Command modules whose every command is on this shelf; a group named like the shelf
    is opened, so its subcommands (and any added to it later) are on the shelf."""
    moved: Mapping[str, str] = {}
    """Name on the shelf -> the top-level name the command had (and still answers to)."""
    examples: str = ""


SHELVES: dict[str, Shelf] = {
    "skills": Shelf(
        "List, check, read and render skills, and see what a model is shown of them.",
        modules=("gibberish.cli.skills",),
        moved={
            "read": "show",
            "outline": "outline",
            "open": "open",
            "sources": "sources",
            "search": "search",
            "installed": "installed",
            "enable": "enable",
            "disable": "disable",
            "mode": "mode",
            "context": "context",
            "prompt": "prompt",
            "parse-call": "parse-call",
        },
        examples=_examples(
            ("gibberish skills list", "every skill found, broken ones included"),
            ("gibberish skills show git", "one skill: its tools, parameters, commands"),
            ("gibberish skills read git", "its SKILL.md, as a model reads it"),
            ("gibberish skills search commits", "sections of every skill about a word"),
            ("gibberish skills disable NAME", "turn a skill off without uninstalling it"),
            ("gibberish skills mode set Dev", "offer the skills of one mode"),
        ),
    ),
    "export": Shelf(
        "Your skills for other agents: copy them, compile them, serve them.",
        modules=("gibberish.cli.export",),
        moved={"stub": "stub", "mcp": "mcp", "plugin": "plugin"},
        examples=_examples(
            ("gibberish export sync", "copy your skills to the agents installed"),
            ("gibberish export sync --dry-run", "say what would change, change nothing"),
            ("gibberish export compile git", "one skill as a Gemini CLI command"),
            ("gibberish export plugin build --out DIR", "your skills as one plugin folder"),
            ("gibberish export mcp", "serve your skills to an agent over MCP"),
        ),
    ),
    "trust": Shelf(
        "What may run without asking, and the secrets and keys runs use.",
        moved={
            "approvals": "approvals",
            "secrets": "secrets",
            "project": "project",
            "model-key": "model-key",
        },
        examples=_examples(
            ("gibberish trust approvals list", "what runs without asking"),
            ("gibberish trust approvals revoke git", "ask again before its next run"),
            ("gibberish trust secrets set SKILL NAME", "keep a secret of a skill in the keyring"),
        ),
    ),
    "voice": Shelf(
        "Speak a request; the voice grammar and the microphones.",
        modules=("gibberish.cli.voice",),
        examples=_examples(
            ("gibberish voice listen", "listen for one request, then approve and run it"),
            ("gibberish voice devices", "the microphones this computer has"),
            ("gibberish voice setup", "install the better speech recognizer"),
        ),
    ),
}

ROOT_EXAMPLES = (
    _examples(
        ("gibberish", "start the tray"),
        ("gibberish run git.git_status", "run one tool and print its result"),
        ('gibberish ask "recent commits"', "ask the local model in your own words"),
        ("gibberish skills list", "every skill found"),
        ("gibberish install github:OWNER/REPO", "install skills from a GitHub repository"),
        ("gibberish export sync", "copy your skills to your other agents"),
        ("gibberish trust approvals list", "what may run without asking"),
        ("gibberish voice listen", "say what to run"),
        ("gibberish doctor", "which protections are active here"),
    )
    + "\n\nEach command says more with --help: gibberish skills --help."
)


def placed(name: str, module: str) -> bool:
    """Whether the top-level command ``name`` (of ``module``) has a place on a shelf."""
    return name not in SHELVES and any(
        module in shelf.modules or name in shelf.moved.values() for shelf in SHELVES.values()
    )


_module_commands: dict[str, list[click.Command]] = {}


def module_commands(module_name: str) -> list[click.Command]:
    """The ``COMMANDS`` of a command module (imported once); none for a front end that is
    not built yet."""
    if module_name not in _module_commands:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name != module_name:
                raise
            _module_commands[module_name] = []
        else:
            _module_commands[module_name] = list(module.COMMANDS)
    return _module_commands[module_name]


class ShelfGroup(FullHelpGroup):
    """One shelf as a click group: its commands are found in their modules when asked
    for; ``find`` gives a command by its old top-level name."""

    def __init__(
        self, name: str, shelf: Shelf, find: Callable[[str], click.Command | None]
    ) -> None:
        super().__init__(name=name, help=shelf.help, epilog=shelf.examples or None)
        self._shelf = shelf
        self._find = find

    @property
    def commands(self) -> MutableMapping[str, click.Command]:
        found = {}
        for name in self.list_commands(click.Context(self)):
            command = self.get_command(click.Context(self), name)
            if command is not None:
                found[name] = command
        return found

    @commands.setter
    def commands(self, value: MutableMapping[str, click.Command]) -> None:
        """Click's own constructor sets an empty table; a shelf's commands are placed above."""

    def _from_module(self, module_name: str) -> dict[str, click.Command]:
        found: dict[str, click.Command] = {}
        for command in module_commands(module_name):
            if command.name == self.name and isinstance(command, click.Group):
                found.update(command.commands)
            else:
                found[command.name or ""] = command
        return found

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        old = self._shelf.moved.get(cmd_name)
        if old is not None:
            return self._find(old)
        for module_name in self._shelf.modules:
            command = self._from_module(module_name).get(cmd_name)
            if command is not None:
                return command
        return None

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(self._shelf.moved)
        for module_name in self._shelf.modules:
            names.update(self._from_module(module_name))
        return sorted(names)
