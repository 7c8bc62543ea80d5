"""``gibberish listen --yes`` covers what ``ask --yes`` covers, and nothing more.

What was heard is a proposal: misheard speech, or audio someone else plays near the
microphone, must not run a skill the person never approved. Each test speaks a real WAV
("show git status") at a user skill whose tool says that phrase and writes a marker file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from gibberish.cli import cli
from gibberish.trust.fingerprint import fingerprint
from gibberish.trust.provenance import write_provenance
from tests.skills.fixtures.skillkit import make_skill, tool_block
from tests.voice.corpus import IN_GRAMMAR, fixture

SPOKEN = IN_GRAMMAR[0]  # "show git status"


def spoken_skill(root: Path, marker: Path, *, read_only: bool = False) -> Path:
    command = f"touch {marker}" if not read_only else "true"
    block = tool_block("status_now", "Mark that it ran.", command)
    block = block.replace("#### Command", f"#### Phrases\n\n- {SPOKEN.text}\n\n#### Command")
    extra = "read_only: true" if read_only else ""
    return make_skill(root, "heard", tools=[block], extra=extra)


def listen(root: Path, *extra: str) -> Result:
    args = ["--no-user-skills", "--no-bundled", "--skills-dir", str(root)]
    args += ["listen", "--file", str(fixture(SPOKEN, "slt")), "--yes", *extra]
    return CliRunner().invoke(cli, args, catch_exceptions=False)


def approve(root: Path) -> None:
    args = ["--no-user-skills", "--no-bundled", "--skills-dir", str(root)]
    done = CliRunner().invoke(cli, [*args, "approvals", "approve", "heard", "--yes"])
    assert done.exit_code == 0, done.output


@pytest.mark.parametrize("compact", [False, True], ids=["text", "json"])
def test_yes_does_not_run_a_skill_never_approved(root: Path, tmp_path: Path, compact) -> None:
    marker = tmp_path / "ran"
    spoken_skill(root, marker)
    result = listen(root, *(["--json"] if compact else []))
    assert result.exit_code == 1
    assert not marker.exists()
    assert "--yes does not cover a skill you never approved" in result.stderr
    assert "gibberish approvals approve heard" in result.stderr


def test_yes_does_not_run_a_skill_changed_since_its_approval(root: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    folder = spoken_skill(root, marker)
    approve(root)
    (folder / "notes.txt").write_text("added after the approval")
    result = listen(root)
    assert result.exit_code == 1 and not marker.exists()
    assert "--yes does not cover" in result.stderr


def test_yes_does_not_run_an_installed_skill_until_its_version_is_trusted(
    root: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran"
    folder = spoken_skill(root, marker)
    write_provenance(folder, "https://example.invalid/heard.zip", "zip", fingerprint(folder).digest)
    result = listen(root)
    assert result.exit_code == 1 and not marker.exists()
    assert "--yes does not cover" in result.stderr
    approve(root)  # trusting this version makes it like your own skill
    assert listen(root).exit_code == 0 and marker.exists()


def test_yes_does_not_run_a_read_only_skill_never_approved(root: Path, tmp_path: Path) -> None:
    spoken_skill(root, tmp_path / "unused", read_only=True)
    result = listen(root, "--json")
    assert result.exit_code == 1
    assert "--yes does not cover" in result.stderr
    assert json.loads(result.stdout.splitlines()[-1])["exit_code"] is None


def test_yes_confirms_a_skill_the_person_approved(root: Path, tmp_path: Path) -> None:
    """The control: an approved skill's confirmation is what --yes is for."""
    marker = tmp_path / "ran"
    spoken_skill(root, marker)
    approve(root)
    result = listen(root)
    assert result.exit_code == 0, result.output
    assert marker.exists()


def test_what_was_heard_is_prepared_as_a_model_started_run(root: Path, tmp_path, monkeypatch):
    """So the limits of a model's pick (no credentials, reads outside asked) apply to it."""
    from gibberish.engine.runs import RunsFacade
    from gibberish.trust.model_reads import RunOrigin

    seen: list[RunOrigin] = []
    original = RunsFacade.prepare

    def spy(self, *args, **kwargs):
        seen.append(kwargs.get("origin", RunOrigin.PERSON))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(RunsFacade, "prepare", spy)
    spoken_skill(root, tmp_path / "ran")
    listen(root, "--dry-run")
    assert seen == [RunOrigin.MODEL]
