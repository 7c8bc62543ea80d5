"""The trusted-projects list is signed like the approvals file (issue 26; ADR 0043).

Another program that may write the data folder must not be able to trust its own
project folder. Variants: the file tampered with (a folder added to a signed list), a
file written by hand (new format, and the unsigned format of earlier versions), a file
cut short, a file signed with another key, and a file that is not even a JSON object.
Each counts as no trusted project, says so once (a notice), and never raises.
"""

from __future__ import annotations

import json
import secrets
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.engine.core import Engine, EngineOptions
from gibberish.skills.model import Trust
from gibberish.trust import projects
from gibberish.trust.signing import dump_signed
from tests.helpers.builders import skill_text


def project_with(root: Path, name: str = "helper") -> Path:
    folder = root / ".gibberish" / "skills" / name
    folder.mkdir(parents=True)
    (root / "gibberish.toml").write_text("", encoding="utf-8")
    (folder / "SKILL.md").write_text(skill_text(name, command="echo project"), "utf-8")
    return root


def _tampered(store: Path, intruder: Path) -> None:
    document = json.loads(store.read_text(encoding="utf-8"))
    document["trusted"][str(intruder.resolve())] = "2026-01-01T00:00:00+00:00"
    store.write_text(json.dumps(document), encoding="utf-8")


def _by_hand(store: Path, intruder: Path) -> None:
    entry = {str(intruder.resolve()): "2026-01-01T00:00:00+00:00"}
    store.write_text(json.dumps({"format": 2, "trusted": entry}), encoding="utf-8")


def _by_hand_old_format(store: Path, intruder: Path) -> None:
    entry = {str(intruder.resolve()): "2026-01-01T00:00:00+00:00"}
    store.write_text(json.dumps({"format": 1, "trusted": entry}), encoding="utf-8")


def _truncated(store: Path, intruder: Path) -> None:
    store.write_bytes(store.read_bytes()[: len(store.read_bytes()) // 2])


def _other_key(store: Path, intruder: Path) -> None:
    entry = {str(intruder.resolve()): "2026-01-01T00:00:00+00:00"}
    payload = {"format": 2, "trusted": entry}
    store.write_bytes(dump_signed(payload, secrets.token_bytes(32)))


def _not_an_object(store: Path, intruder: Path) -> None:
    store.write_text('["' + str(intruder.resolve()) + '"]', encoding="utf-8")


FORGERIES = [_tampered, _by_hand, _by_hand_old_format, _truncated, _other_key, _not_an_object]


def test_a_trusted_project_round_trips_through_the_signed_file(tmp_path: Path) -> None:
    project = project_with(tmp_path / "mine")
    projects.trust(project)
    document = json.loads(projects.store_path().read_text(encoding="utf-8"))
    assert isinstance(document.get("signature"), str) and len(document["signature"]) == 64
    assert projects.is_trusted(project)
    assert projects.notices() == []
    assert projects.untrust(project) and not projects.is_trusted(project)


@pytest.mark.parametrize("forge", FORGERIES, ids=lambda f: f.__name__.strip("_"))
def test_a_forged_list_trusts_no_project_and_says_so(tmp_path: Path, forge) -> None:
    mine = project_with(tmp_path / "mine")
    intruder = project_with(tmp_path / "intruder")
    projects.trust(mine)
    store = projects.store_path()
    forge(store, intruder)
    assert not projects.is_trusted(intruder)
    assert not projects.is_trusted(mine)  # the whole file is unusable, not just a line
    said = projects.notices()
    assert len(said) == 1 and "signature check" in said[0] and "project trust" in said[0]
    assert list(store.parent.glob(f"{store.name}.bad-*")), "the bad file is kept aside"
    projects.trust(mine)  # trusting again starts a fresh, signed list
    assert projects.is_trusted(mine) and not projects.is_trusted(intruder)


@pytest.mark.parametrize("forge", FORGERIES[:4], ids=lambda f: f.__name__.strip("_"))
def test_the_engine_loads_a_forged_projects_skills_untrusted(tmp_path: Path, forge) -> None:
    mine = project_with(tmp_path / "mine")
    intruder = project_with(tmp_path / "intruder")
    projects.trust(mine)
    forge(projects.store_path(), intruder)
    engine = Engine(EngineOptions())
    engine.library.follow_project(intruder)
    assert engine.library.require("helper").trust is Trust.UNTRUSTED
    assert any("signature check" in n for n in engine.notices())


@pytest.mark.parametrize("forge", FORGERIES[:4], ids=lambda f: f.__name__.strip("_"))
def test_the_cli_lists_no_project_and_the_notice_without_a_traceback(tmp_path, forge) -> None:
    mine = project_with(tmp_path / "mine")
    intruder = project_with(tmp_path / "intruder")
    projects.trust(mine)
    forge(projects.store_path(), intruder)
    result = CliRunner().invoke(cli, ["project", "list"])
    assert result.exit_code == 0, result.output
    assert result.exception is None
    assert "No project folder is trusted." in result.stdout
    assert "signature check" in result.stderr and str(intruder) not in result.stdout


def test_a_key_that_cannot_be_read_trusts_nothing_and_says_why(tmp_path, monkeypatch) -> None:
    mine = project_with(tmp_path / "mine")
    projects.trust(mine)

    class Broken:
        def key(self) -> bytes:
            raise RuntimeError("keyring locked")

    monkeypatch.setattr(projects, "key_provider", Broken)
    assert not projects.is_trusted(mine)
    assert any("could not be read" in n for n in projects.notices())
    result = CliRunner().invoke(cli, ["project", "trust", str(mine)])
    assert result.exit_code == 1 and result.exception.__class__ is SystemExit
    assert "could not be trusted" in result.stderr
