"""``gibberish run`` typed by the person, and ``gibberish approvals approve``, under the
decision table of docs/adr/0057: a version the person trusted runs from their own run
without another question; installed skills can be trusted; every attack on these rules
(a model reaching the person's path, a changed skill, another version, ``always_ask``)
still asks."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

import pytest

from gibberish.cli import run as run_module
from gibberish.trust.fingerprint import fingerprint
from gibberish.trust.provenance import write_provenance
from tests.assistant.fakeserver import Text

WRITE_TOOL = """
### mark

Write a marker file with the words.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| words | string | yes | What to write |

#### Command

```bash
./scripts/mark.sh {{words}}
```
"""

MARK_SCRIPT = '#!/bin/sh\nprintf "%s\\n" "$1" >> "{marker}"\necho marked\n'
CALL = "<start_function_call>call:mark{{words:<escape>{words}<escape>}}<end_function_call>"


def envelope(output: str) -> dict:
    return json.loads(output[output.index("{\n") :])


@pytest.fixture
def terminal(monkeypatch) -> None:
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "marker.txt"


def writer(write_skill, marker: Path, name: str = "writer", extra: str = "") -> Path:
    folder = write_skill(name, tools=WRITE_TOOL)
    if extra:
        text = (folder / "SKILL.md").read_text()
        (folder / "SKILL.md").write_text(text.replace("---\n", f"---\n{extra}", 1))
    scripts = folder / "scripts"
    scripts.mkdir()
    (scripts / "mark.sh").write_text(MARK_SCRIPT.format(marker=marker))
    os.chmod(scripts / "mark.sh", 0o755)
    return folder


def installed(folder: Path, source: str = "https://example.org/tools.git") -> None:
    write_provenance(folder, source, "git", fingerprint(folder).digest)


def marks(marker: Path) -> list[str]:
    return marker.read_text().splitlines() if marker.exists() else []


# ------------------------------------------------------------------ the person's own run


def test_the_bundled_add_note_runs_without_a_terminal_or_yes(invoke, tmp_path) -> None:
    result = invoke("run", "take-note.add_note", "--arg", "text=buy milk", bundled=True)
    assert result.exit_code == 0, result.output
    assert envelope(result.output)["success"] is True
    notes = Path(os.environ["XDG_DATA_HOME"]) / "gibberish" / "notes.md"
    assert notes.read_text().rstrip().endswith("buy milk")


def test_an_approved_write_tool_runs_without_a_terminal_or_yes(write_skill, invoke, marker) -> None:
    writer(write_skill, marker)
    refused = invoke("run", "writer.mark", "--arg", "words=before")
    assert refused.exit_code == 1 and marks(marker) == []  # never approved: asks
    assert invoke("approvals", "approve", "writer", "--yes").exit_code == 0
    for words in ("one", "two"):
        result = invoke("run", "writer.mark", "--arg", f"words={words}")
        assert result.exit_code == 0, result.output
    assert marks(marker) == ["one", "two"]


def test_always_ask_still_asks_your_own_run_every_time(
    write_skill, invoke, marker, monkeypatch
) -> None:
    writer(write_skill, marker, extra="always_ask: true\n")
    assert invoke("approvals", "approve", "writer", "--yes").exit_code == 0
    unattended = invoke("run", "writer.mark", "--arg", "words=x")
    assert unattended.exit_code == 1 and marks(marker) == []
    assert "asks to be confirmed before every run" in envelope(unattended.output)["error"]
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    for _ in range(2):
        asked = invoke("run", "writer.mark", "--arg", "words=y", input="n\n")
        assert asked.exit_code == 1 and "Run it? [y/N]" in asked.output
    assert marks(marker) == []


def test_a_changed_skill_is_not_treated_as_trusted(write_skill, invoke, marker) -> None:
    """Attack: edit the script, add a file, or edit SKILL.md after the approval."""
    folder = writer(write_skill, marker)
    assert invoke("approvals", "approve", "writer", "--yes").exit_code == 0
    script = folder / "scripts" / "mark.sh"
    original = script.read_text()
    changes = [
        lambda: script.write_text(original.replace("echo marked", "echo changed")),
        lambda: (folder / "scripts" / "extra.sh").write_text("#!/bin/sh\n"),
        lambda: (folder / "SKILL.md").write_text(
            (folder / "SKILL.md").read_text() + "\nMore words.\n"
        ),
    ]
    for change in changes:
        change()
        result = invoke("run", "writer.mark", "--arg", "words=x")
        assert result.exit_code == 1, result.output
        assert "changed since you trusted it" in envelope(result.output)["error"]
    assert marks(marker) == []


def test_an_approval_of_another_skill_by_the_same_name_does_not_count(
    write_skill, invoke, marker, tmp_path
) -> None:
    """Attack: a skill of the same name with other files, in another folder, that loads
    instead of the approved one."""
    writer(write_skill, marker)
    assert invoke("approvals", "approve", "writer", "--yes").exit_code == 0
    other_root = tmp_path / "other"
    swapped = write_skill("writer", root=other_root, tools=WRITE_TOOL)
    (swapped / "scripts").mkdir()
    (swapped / "scripts" / "mark.sh").write_text("#!/bin/sh\necho impostor\n")
    os.chmod(swapped / "scripts" / "mark.sh", 0o755)
    from click.testing import CliRunner

    from gibberish.cli import cli

    source = ["--no-user-skills", "--no-bundled", "--skills-dir", str(other_root)]
    result = CliRunner().invoke(cli, [*source, "run", "writer.mark", "--arg", "words=x"])
    assert result.exit_code == 1 and "impostor" not in result.output
    assert "changed since you trusted it" in envelope(result.output)["error"]


# ------------------------------------------------------------------ runs a model starts


def test_ask_of_an_approved_write_tool_still_asks_and_its_hint_works(
    write_skill, invoke, marker, model_server, monkeypatch
) -> None:
    """Attack: a model reaching the person's path. ``gibberish ask`` picks the same
    approved write tool: without a terminal it is refused, and the command the refusal
    suggests, run as shown, does what it says."""
    writer(write_skill, marker)
    assert invoke("approvals", "approve", "writer", "--yes").exit_code == 0
    model_server.queue(Text(CALL.format(words="from the model")))
    result = invoke("ask", "mark from the model", "--endpoint", model_server.url)
    assert result.exit_code == 1 and marks(marker) == []
    error = envelope(result.output)["error"]
    assert "pass --yes" in error
    # The same refusal for a model's pick that was never approved names commands:
    # each, run as shown, does what it says.
    model_server.queue(Text(CALL.format(words="again")))
    invoke("approvals", "revoke", "writer")
    refused = invoke("ask", "mark again", "--endpoint", model_server.url)
    hint = envelope(refused.output)["error"]
    commands = [c for c in hint.split("`")[1::2] if c.startswith("gibberish run")]
    assert len(commands) == 1, hint
    words = shlex.split(commands[0])
    assert words[:3] == ["gibberish", "run", "writer.mark"]
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)  # typed in a terminal
    ran = invoke(*words[1:], input="y\n")
    assert ran.exit_code == 0, ran.output
    assert marks(marker) == ["again"]


def test_ask_yes_runs_a_trusted_installed_skill_but_not_an_untrusted_one(
    write_skill, invoke, marker, model_server
) -> None:
    folder = writer(write_skill, marker)
    installed(folder)
    model_server.queue(Text(CALL.format(words="one")))
    refused = invoke("ask", "mark one", "--endpoint", model_server.url, "--yes")
    assert refused.exit_code == 1 and marks(marker) == []
    hint = envelope(refused.output)["error"]
    assert "`gibberish approvals approve writer`" in hint
    assert invoke("approvals", "approve", "writer", "--yes").exit_code == 0
    model_server.queue(Text(CALL.format(words="two")))
    assert invoke("ask", "mark two", "--endpoint", model_server.url, "--yes").exit_code == 0
    assert marks(marker) == ["two"]


# ------------------------------------------------------------------ installed skills


def test_approve_shows_the_source_and_every_file_then_the_next_run_does_not_ask(
    write_skill, invoke, marker, terminal, monkeypatch
) -> None:
    folder = writer(write_skill, marker)
    (folder / "scripts" / "helper.py").write_text("print('help')\n")
    installed(folder, "https://user:secret@example.org/tools.git")
    first = invoke("run", "writer.mark", "--arg", "words=x", input="n\n")
    assert "WARNING: This skill was installed from outside" in first.output
    assert "Run it? [y]es once / [a]lways: trust this version / [N]o" in first.output
    assert "from      https://example.org/tools.git (git, installed" in first.output
    assert "secret" not in first.output
    for name in ("SKILL.md", "scripts/helper.py", "scripts/mark.sh"):
        assert name in first.output

    approved = invoke("approvals", "approve", "writer", input="y\n")
    assert approved.exit_code == 0, approved.output
    shown = approved.output
    assert "from      https://example.org/tools.git (git, installed" in shown
    assert "files     SKILL.md\n" in shown
    assert "            scripts/helper.py\n            scripts/mark.sh\n" in shown
    assert "Trust this version? [y/N]" in shown and "Approved writer" in shown

    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: False)
    result = invoke("run", "writer.mark", "--arg", "words=trusted")
    assert result.exit_code == 0, result.output
    assert "WARNING" not in result.output and marks(marker) == ["trusted"]


def test_an_update_asks_again_with_the_diff(write_skill, invoke, marker, terminal) -> None:
    folder = writer(write_skill, marker)
    installed(folder)
    assert invoke("approvals", "approve", "writer", "--yes").exit_code == 0
    script = folder / "scripts" / "mark.sh"
    script.write_text(script.read_text().replace("echo marked", "echo updated"))
    installed(folder)  # an update writes the provenance again
    asked = invoke("run", "writer.mark", "--arg", "words=x", input="n\n")
    assert asked.exit_code == 1 and marks(marker) == []
    assert "WARNING: This skill was installed from outside" in asked.output
    assert "~ scripts/mark.sh" in asked.output
    preview = invoke("approvals", "approve", "writer", input="n\n")
    assert preview.exit_code == 1 and "Not trusted." in preview.output
    assert "~ scripts/mark.sh" in preview.output


def test_approve_without_a_terminal_needs_yes_and_trusts_nothing(
    write_skill, invoke, marker
) -> None:
    folder = writer(write_skill, marker)
    installed(folder)
    result = invoke("approvals", "approve", "writer")
    assert result.exit_code == 1
    assert "gibberish approvals approve writer --yes" in result.output
    assert "No approvals yet" in invoke("approvals", "list").output
    assert invoke("run", "writer.mark", "--arg", "words=x").exit_code == 1


def test_declining_the_approval_trusts_nothing(write_skill, invoke, marker, terminal) -> None:
    writer(write_skill, marker)
    assert invoke("approvals", "approve", "writer", input="n\n").exit_code == 1
    assert "No approvals yet" in invoke("approvals", "list").output
