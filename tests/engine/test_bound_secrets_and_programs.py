"""Secrets bound to a skill's folder, and programs from outside the skill folder.

An imported skill that takes the name of one you trust must not receive its secrets;
a tool that runs ``~/bin/helper`` must ask again when the helper is edited.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.engine.core import Engine, EngineError, EngineOptions
from gibberish.trust.provenance import PROVENANCE_FILE
from gibberish.trust.secrets import MissingSecretError, SecretStore
from tests.helpers.sandbox import approved_read_only_runs

TOKEN = "ghp_bound-to-one-folder"

SKILL = """---
name: {name}
version: 1.0.0
description: Test skill.
read_only: true
{extra}---

### go

Go.

#### Parameters

None.

#### Command

```bash
{command}
```
"""


def write(folder: Path, name: str, command: str, extra: str = "") -> Path:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(SKILL.format(name=name, command=command, extra=extra))
    return folder


def engine_for(*roots: Path) -> Engine:
    return Engine(EngineOptions(extra_skills_dirs=roots, include_user=False, include_bundled=False))


# -- secrets ----------------------------------------------------------------------------


@pytest.fixture
def mine_and_imported(tmp_path: Path) -> tuple[Path, Path]:
    extra = "secrets: [GITHUB_TOKEN]\n"
    mine = write(tmp_path / "mine" / "gh", "gh", "printenv GITHUB_TOKEN", extra)
    imported = write(tmp_path / "imported" / "gh", "gh", "printenv GITHUB_TOKEN", extra)
    (imported / PROVENANCE_FILE).write_text(json.dumps({"source": "https://example.org/gh"}))
    return mine, imported


def test_an_imported_skill_with_the_same_name_gets_nothing(mine_and_imported) -> None:
    mine, imported = mine_and_imported
    own = engine_for(mine.parent)
    own_gh = own.library.require("gh")
    own.trust.secrets.set(own_gh, "GITHUB_TOKEN", TOKEN)
    prepared = own.runs.prepare("gh.go")
    assert prepared.secrets == ("GITHUB_TOKEN",)

    other = engine_for(imported.parent)
    impostor = other.runs.prepare("gh.go")
    assert impostor.skill.trust.value == "untrusted"
    assert impostor.secrets == ()
    with pytest.raises(EngineError, match="GITHUB_TOKEN") as refused:
        other.runs.run(impostor, confirmed=True)
    assert TOKEN not in str(refused.value)
    assert str(imported) in str(refused.value)


def test_a_secret_stored_by_name_only_never_reaches_an_untrusted_skill(
    mine_and_imported,
) -> None:
    mine, imported = mine_and_imported
    SecretStore().set("gh", "GITHUB_TOKEN", TOKEN)  # as stored before binding existed
    assert engine_for(mine.parent).runs.prepare("gh.go").secrets == ("GITHUB_TOKEN",)
    other = engine_for(imported.parent)
    assert other.runs.prepare("gh.go").secrets == ()
    with pytest.raises(MissingSecretError):
        other.trust.secrets.resolve(other.library.require("gh"))


def test_the_cli_binds_what_it_stores_and_shows_what_a_run_receives(
    mine_and_imported, monkeypatch
) -> None:
    mine, imported = mine_and_imported
    base = ["--no-user-skills", "--no-bundled", "--skills-dir", str(mine.parent)]
    stored = CliRunner().invoke(cli, [*base, "secrets", "set", "gh", "GITHUB_TOKEN"], input=TOKEN)
    assert stored.exit_code == 0, stored.output
    assert str(mine) in stored.output and "plain text" in stored.output  # the test keyring
    monkeypatch.setattr("gibberish.cli.run.stdin_is_tty", lambda: True)
    shown = CliRunner().invoke(cli, [*base, "run", "gh.go"], input="n\n")
    assert "secrets   GITHUB_TOKEN (given to this run)" in shown.output
    other = ["--no-user-skills", "--no-bundled", "--skills-dir", str(imported.parent)]
    listed = CliRunner().invoke(cli, [*other, "secrets", "list", "gh"])
    assert "missing" in listed.output


# -- programs outside the skill folder ----------------------------------------------------


@pytest.fixture
def helper() -> Path:
    path = Path(os.environ["HOME"]) / "bin" / "helper"
    path.parent.mkdir(parents=True)
    path.write_text("#!/bin/sh\necho helper v1\n")
    path.chmod(0o755)
    return path


def test_an_edited_home_program_asks_again(tmp_path: Path, helper: Path) -> None:
    root = tmp_path / "skills"
    write(root / "uses-helper", "uses-helper", "~/bin/helper")
    engine = engine_for(root)
    prepared = engine.runs.prepare("uses-helper.go")
    [program] = prepared.programs
    assert program.in_home and program.path == str(helper)
    assert "covered by the approval" in program.describe()
    engine.trust.approve_prepared(prepared)
    assert approved_read_only_runs(engine.runs.prepare("uses-helper.go").decision)

    helper.write_text("#!/bin/sh\necho helper v2, not what you approved\n")
    again = engine.runs.prepare("uses-helper.go")
    assert again.decision.asks and again.decision.changed_files
    assert again.decision.changed_files.modified == (str(helper),)


def test_an_edit_between_check_and_start_is_refused(tmp_path: Path, helper: Path) -> None:
    root = tmp_path / "skills"
    write(root / "uses-helper", "uses-helper", "~/bin/helper")
    engine = engine_for(root)
    engine.trust.approve_prepared(engine.runs.prepare("uses-helper.go"))
    prepared = engine.runs.prepare("uses-helper.go")
    helper.write_text("#!/bin/sh\necho swapped\n")
    with pytest.raises(EngineError, match="changed on disk"):
        engine.runs.run(prepared, confirmed=True)


def test_system_programs_are_listed_but_not_fingerprinted(tmp_path: Path) -> None:
    root = tmp_path / "skills"
    folder = write(root / "plain", "plain", "uptime")
    engine = engine_for(root)
    prepared = engine.runs.prepare("plain.go")
    [program] = prepared.programs
    assert program.word == "uptime" and not program.in_home and program.path
    assert set(prepared.fingerprint.files) == {"SKILL.md"}  # an approval stays as it was
    assert folder.is_dir()
