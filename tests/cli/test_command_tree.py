"""``gibberish --help`` by what a person does: a short top, shelves, every old spelling.

The top lists at most twelve commands in sections; the rest live on shelves (``skills``,
``export``, ``trust``, ``voice``). Every command that moved onto a shelf still answers
under the name it had, hidden from ``--help``, and does the same thing there. Each help
page's examples are real command lines.
"""

from __future__ import annotations

import shlex

import click
import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.cli.root import LazyGroup
from gibberish.cli.shelves import ROOT_EXAMPLES, SECTIONS, SHELVES
from tests.cli.test_front_door import run_child

MOVED = {
    "approvals": ("trust", "approvals"),
    "secrets": ("trust", "secrets"),
    "project": ("trust", "project"),
    "model-key": ("trust", "model-key"),
    "mode": ("skills", "mode"),
    "prompt": ("skills", "prompt"),
    "parse-call": ("skills", "parse-call"),
    "installed": ("skills", "installed"),
    "context": ("skills", "context"),
    "outline": ("skills", "outline"),
    "show": ("skills", "read"),
    "open": ("skills", "open"),
    "sources": ("skills", "sources"),
    "search": ("skills", "search"),
    "sync": ("export", "sync"),
    "compile": ("export", "compile"),
    "web": ("export", "web"),
    "stub": ("export", "stub"),
    "mcp": ("export", "mcp"),
    "listen": ("voice", "listen"),
}
"""Every top-level command of the 30 there were that now lives on a shelf: old -> new."""


def _help(*args: str) -> str:
    result = CliRunner().invoke(cli, [*args, "--help"], prog_name="gibberish", terminal_width=100)
    assert result.exit_code == 0, result.output
    return result.output


def _listed(output: str) -> list[str]:
    """The command names a help page lists: the rows of its sections other than Options."""
    names, section = [], ""
    for line in output.splitlines():
        if line.strip() == "Examples:":
            break
        if line and not line[0].isspace() and line.endswith(":"):
            section = line
        elif section not in ("", "Options:") and line[:2] == "  " and line[2:3].strip():
            names.append(line.split()[0])
    return names


def test_the_top_lists_at_most_twelve_commands_by_what_a_person_does() -> None:
    output = _help()
    listed = _listed(output)
    assert len(listed) <= 12
    assert listed == [name for _, names in SECTIONS for name in names]
    for title, _ in SECTIONS:
        assert f"\n{title}:\n" in output
    assert "Other commands" not in output


@pytest.mark.parametrize("old", sorted(MOVED))
def test_an_old_spelling_is_hidden_and_answers_as_its_new_one(old: str) -> None:
    new = MOVED[old]
    assert old not in _listed(_help())
    assert new[1] in _listed(_help(new[0]))
    old_help, new_help = _help(old), _help(*new)
    assert old_help.splitlines()[0].startswith(f"Usage: gibberish {old}")
    assert new_help.splitlines()[0].startswith(f"Usage: gibberish {' '.join(new)}")
    assert old_help.splitlines()[1:] == new_help.splitlines()[1:]


def test_the_hand_over_to_a_running_tray_knows_both_spellings_of_listen() -> None:
    from gibberish.cli import forwarded_request

    assert forwarded_request(["voice", "listen"]) == forwarded_request(["listen"])
    assert forwarded_request(["listen"]) is not None


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (["outline", "alpha"], ["skills", "outline", "alpha"]),
        (["show", "alpha"], ["skills", "read", "alpha"]),
        (["sources", "alpha", "--json"], ["skills", "sources", "alpha", "--json"]),
        (["open", "alpha", "SKILL.md"], ["skills", "open", "alpha", "SKILL.md"]),
        (["search", "words"], ["skills", "search", "words"]),
        (["approvals", "list"], ["trust", "approvals", "list"]),
        (["secrets", "list", "alpha"], ["trust", "secrets", "list", "alpha"]),
        (["mode", "set", "dev"], ["skills", "mode", "set", "dev"]),
        (["mode", "show"], ["skills", "mode", "show"]),
        (["installed"], ["skills", "installed"]),
        (["context", "list"], ["skills", "context", "list"]),
        (["prompt", "--format", "text"], ["skills", "prompt", "--format", "text"]),
    ],
)
def test_an_old_spelling_does_what_the_new_one_does(write_skill, invoke, old, new) -> None:
    write_skill("alpha")
    before, after = invoke(*old), invoke(*new)
    assert (before.exit_code, before.output) == (after.exit_code, after.output)
    assert before.exit_code == 0, before.output


def _example_lines(epilog: str) -> list[list[str]]:
    lines = epilog.split("Examples:\n")[1].split("\n\n")[0].splitlines()
    return [shlex.split(line.split("  ")[1])[1:] for line in lines]


def _parse(args: list[str]) -> click.Command:
    """Resolve ``args`` down the tree and parse the last command's arguments, as running
    them would, without running anything (the groups on the way take no options)."""
    ctx = click.Context(cli, info_name="gibberish")
    command: click.Command = cli
    rest = list(args)
    while isinstance(command, click.Group):
        name, sub, rest = command.resolve_command(ctx, rest)
        assert sub is not None and name is not None
        if isinstance(sub, click.Group):
            ctx = click.Context(sub, info_name=name, parent=ctx)
        else:
            sub.make_context(name, list(rest), parent=ctx)
        command = sub
    return command


@pytest.mark.parametrize(
    "example",
    [
        *_example_lines(ROOT_EXAMPLES),
        *(args for shelf in SHELVES.values() for args in _example_lines(shelf.examples)),
    ],
    ids=" ".join,
)
def test_every_example_on_a_help_page_is_a_real_command_line(example: list[str]) -> None:
    if not example:
        return  # `gibberish` alone starts the tray
    assert not isinstance(_parse(example), click.Group)


def test_the_help_pages_show_examples() -> None:
    assert "Examples:" in _help()
    for name in SHELVES:
        assert "Examples:" in _help(name)


def test_a_command_with_no_place_yet_is_listed_at_the_top_for_all_to_see() -> None:
    @click.command("brand-new")
    def brand_new() -> None:
        """Do something new."""

    group = LazyGroup(name="gibberish")
    group.add_command(brand_new)
    output = CliRunner().invoke(group, ["--help"]).output
    assert "Other commands:" in output and "Do something new." in output


def test_one_command_of_a_shelf_imports_its_own_module_only() -> None:
    heavy = ("gibberish.cli.assistant", "gibberish.cli.export", "PySide6", "httpx")
    body = "from gibberish.cli import main; main()"
    report, _ = run_child(body, ["skills", "outline", "--help"], heavy)
    assert report == {"code": 0, "loaded": []}
