"""An MCP call that needs a question, with no tray to ask: refused, and every command the
refusal suggests, run as shown, does what the sentence says (docs/adr/0057).

A run a model starts of a tool that is not read-only asks every time, even for a version
the person trusted; so the refusal never suggests trusting it (that would change
nothing), and does suggest it where it settles the question.
"""

from __future__ import annotations

import os
import shlex
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result

from gibberish.app import Engine, EngineOptions
from gibberish.cli import cli
from gibberish.cli import run as run_module
from gibberish.mcp.server import GibberishMCP
from gibberish.trust.fingerprint import fingerprint
from gibberish.trust.provenance import write_provenance
from tests.helpers.sandbox import requires_sandbox
from tests.skills.fixtures.skillkit import make_skill, param_table, tool_block

WORDS = param_table([("words", "string", "yes", "What to write")])


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    marker = tmp_path / "marker.txt"
    writer = make_skill(
        root,
        "writer",
        tools=[tool_block("mark", "Write the words.", "./scripts/mark.sh {{words}}", WORDS)],
        scripts={"scripts/mark.sh": f'#!/bin/sh\nprintf "%s\\n" "$1" >> "{marker}"\n'},
    )
    os.chmod(writer / "scripts" / "mark.sh", 0o755)
    reader = make_skill(
        root,
        "reader",
        tools=[tool_block("look", "Print the words.", "echo {{words}}", WORDS)],
        extra="read_only: true",
    )
    write_provenance(reader, "https://example.org/reader.git", "git", fingerprint(reader).digest)
    make_skill(
        root,
        "careful",
        tools=[tool_block("check", "Print the words.", "echo {{words}}", WORDS)],
        extra="read_only: true\nalways_ask: true",
    )
    return root


def server(skills: Path, tmp_path: Path, approver: Any = None) -> GibberishMCP:
    """The MCP server, called from a project (a git work tree) the words stay inside."""
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True, exist_ok=True)
    engine = Engine(
        EngineOptions(extra_skills_dirs=(skills,), include_bundled=False, include_user=False)
    )
    return GibberishMCP(engine, approver=approver or (lambda p, c=None: None), cwd=project)


def call(mcp: GibberishMCP, tool: str, words: str) -> dict[str, Any]:
    exposed = next(e for e in mcp.skill_tools.values() if e.tool.name == tool)
    result = mcp.run_skill_tool(exposed, {"words": words})
    return {"error": result.is_error, **result.structured_content}


def commands(hint: str) -> list[str]:
    """The commands a hint names, in the order it names them."""
    return [c for c in hint.split("`")[1::2] if c.startswith("gibberish")]


def gibberish(skills: Path, command: str, input: str | None = None) -> Result:
    """Run a suggested ``gibberish …`` command as typed, with only ``skills`` loaded."""
    words = shlex.split(command)
    assert words[0] == "gibberish"
    base = ["--no-user-skills", "--no-bundled", "--skills-dir", str(skills)]
    return CliRunner().invoke(cli, [*base, *words[1:]], input=input)


def marks(skills: Path) -> list[str]:
    marker = skills.parent / "marker.txt"
    return marker.read_text().splitlines() if marker.exists() else []


def test_a_models_write_of_a_trusted_version_is_refused_with_commands_that_work(
    skills: Path, tmp_path: Path
) -> None:
    mcp = server(skills, tmp_path)
    mcp.engine.trust.approve_skill_by_name("writer")
    refused = call(mcp, "mark", "from the model")
    assert refused["error"] and refused["exit_code"] is None and marks(skills) == []
    hint = refused["error"]
    assert "approvals approve" not in hint  # trusting again would not stop the question
    tray, run = commands(hint)
    assert tray == "gibberish"  # with no command, gibberish starts the tray
    assert "With no command, starts the tray" in gibberish(skills, "gibberish --help").output
    ran = gibberish(skills, run)  # no terminal, no --yes: your own run of a trusted version
    assert ran.exit_code == 0, ran.output
    assert marks(skills) == ["from the model"]
    asked: list[str] = []
    with_tray = server(skills, tmp_path, lambda p, c=None: asked.append(p.ref) or ("once", ""))
    assert not call(with_tray, "mark", "through the tray")["error"]  # "call again" works
    assert asked == ["writer.mark"] and marks(skills) == ["from the model", "through the tray"]


def test_always_from_the_tray_does_not_make_a_models_writes_run_unasked(
    skills: Path, tmp_path: Path
) -> None:
    """Attack: the answer "always" to a model's write of a trusted version is one run."""
    answered = server(skills, tmp_path, lambda p, c=None: ("always", ""))
    answered.engine.trust.approve_skill_by_name("writer")
    assert not call(answered, "mark", "once")["error"]
    again = call(server(skills, tmp_path), "mark", "twice")
    assert again["error"] and marks(skills) == ["once"]


@requires_sandbox
def test_a_never_trusted_installed_reader_suggests_trusting_it_and_that_works(
    skills: Path, tmp_path: Path, monkeypatch
) -> None:
    mcp = server(skills, tmp_path)
    refused = call(mcp, "look", "hello")
    assert refused["error"]
    found = commands(refused["error"])
    assert "gibberish approvals approve reader" in found
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)  # typed in a terminal
    trusted = gibberish(skills, "gibberish approvals approve reader", input="y\n")
    assert trusted.exit_code == 0, trusted.output
    assert "https://example.org/reader.git" in trusted.output  # it showed where from
    ran = call(server(skills, tmp_path), "look", "hello")  # "then calls like this one run"
    assert not ran["error"] and ran["output"] == "hello\n"


def test_without_a_sandbox_trusting_a_reader_is_not_suggested(
    skills: Path, tmp_path: Path, no_sandbox
) -> None:
    """Unsandboxed, a model's read-only run asks even once trusted: no such promise."""
    refused = call(server(skills, tmp_path), "look", "hello")
    assert refused["error"] and "approvals approve" not in refused["error"]


def test_always_ask_is_never_told_to_trust_and_its_run_yourself_works(
    skills: Path, tmp_path: Path, monkeypatch
) -> None:
    mcp = server(skills, tmp_path)
    mcp.engine.trust.approve_skill_by_name("careful")
    refused = call(mcp, "check", "careful words")
    assert refused["error"] and "approvals approve" not in refused["error"]
    run = next(c for c in commands(refused["error"]) if c.startswith("gibberish run"))
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    ran = gibberish(skills, run, input="y\n")  # always_ask: it asks you, then runs
    assert ran.exit_code == 0 and "Run it? [y/N]" in ran.output
    assert '"output": "careful words\\n"' in ran.output
