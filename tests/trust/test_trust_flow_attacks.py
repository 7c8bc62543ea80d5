"""Attacks on the rules of docs/adr/0057, through the Engine: a caller that does not say
the person started the run, an approval of a version the person did not see, a skill of
an untrusted project that borrows an approval, and ``--yes`` standing in for a person."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gibberish.app import Engine, EngineError, EngineOptions
from gibberish.cli import cli
from gibberish.session import Answer, authorize, never_approved
from gibberish.trust.fingerprint import fingerprint
from gibberish.trust.model_reads import RunOrigin
from gibberish.trust.provenance import write_provenance
from tests.interop.test_project_banner import project_with
from tests.skills.fixtures.skillkit import make_skill, tool_block


@pytest.fixture
def skills(tmp_path: Path) -> Path:
    root = tmp_path / "skills"
    folder = make_skill(root, "writer", tools=[tool_block("mark", "Write.", "./scripts/mark.sh")])
    (folder / "scripts").mkdir()
    (folder / "scripts" / "mark.sh").write_text(f"#!/bin/sh\necho x >> {tmp_path / 'marker'}\n")
    os.chmod(folder / "scripts" / "mark.sh", 0o755)
    return root


@pytest.fixture
def engine(skills: Path) -> Engine:
    return Engine(
        EngineOptions(extra_skills_dirs=(skills,), include_user=False, include_bundled=False)
    )


def test_a_caller_that_does_not_say_who_started_the_run_gets_the_stricter_rule(
    engine: Engine,
) -> None:
    engine.trust.approve_skill_by_name("writer")
    for origin in (RunOrigin.PERSON, RunOrigin.MODEL):
        prepared = engine.runs.prepare("writer.mark", origin=origin)
        assert prepared.decision.asks and not prepared.own_run
        with pytest.raises(EngineError, match="needs your approval"):
            engine.runs.start(prepared)  # nothing starts without a person's yes
    own = engine.runs.prepare("writer.mark", own_run=True)
    assert own.decision.runs and own.own_run


def test_own_run_lifts_the_read_question_but_never_a_credential_refusal(
    engine: Engine, tmp_path: Path
) -> None:
    """A confirmed proposal: the person saw the path in the form and pressed Run, which
    answers the read-outside-the-project question (the output goes to them); a credential
    place stays refused, and the same call sent straight to run still asks."""
    make_skill(
        tmp_path / "skills",
        "reader",
        tools=[
            tool_block(
                "cat",
                "Read.",
                "cat {{path}}",
                "| Name | Type | Required | "
                "Description |\n|---|---|---|---|\n| path | string | yes | A file |",
            )
        ],
    )
    engine.library.reload()
    engine.trust.approve_skill_by_name("reader")
    outside = {"path": "/etc/hostname"}
    straight = engine.runs.prepare("reader.cat", outside, origin=RunOrigin.MODEL)
    assert straight.decision.asks and straight.decision.person_must_answer
    confirmed = engine.runs.prepare("reader.cat", outside, origin=RunOrigin.MODEL, own_run=True)
    assert confirmed.decision.runs and not confirmed.decision.person_must_answer
    key = Path(os.environ["HOME"]) / ".ssh" / "id_ed25519"
    key.parent.mkdir(parents=True, exist_ok=True)
    key.write_text("secret\n")
    refused = engine.runs.prepare(
        "reader.cat", {"path": str(key)}, origin=RunOrigin.MODEL, own_run=True
    )
    assert refused.decision.refused


def test_trusting_a_version_you_did_not_see_is_refused(engine: Engine, skills: Path) -> None:
    """Attack: the files change between ``approvals approve`` showing them and the yes."""
    preview = engine.trust.approval_preview("writer")
    script = skills / "writer" / "scripts" / "mark.sh"
    script.write_text(script.read_text() + "echo more\n")
    with pytest.raises(EngineError, match="changed on disk while you were looking"):
        engine.trust.approve_preview(preview)
    assert engine.trust.approvals.list() == []
    assert engine.runs.prepare("writer.mark", own_run=True).decision.first_run


def test_trusting_one_version_does_not_trust_the_next(engine: Engine, skills: Path) -> None:
    folder = skills / "writer"
    write_provenance(folder, "https://example.org/w.git", "git", fingerprint(folder).digest)
    engine.library.reload()
    engine.trust.approve_skill_by_name("writer")
    assert engine.runs.prepare("writer.mark", own_run=True).decision.runs
    (folder / "scripts" / "new.sh").write_text("#!/bin/sh\n")  # an update adds a file
    decision = engine.runs.prepare("writer.mark", own_run=True).decision
    assert decision.asks and decision.banner and decision.changed_files.added == ("scripts/new.sh",)
    (folder / "scripts" / "new.sh").unlink()  # back to the trusted version
    assert engine.runs.prepare("writer.mark", own_run=True).decision.runs


def test_a_project_skill_never_borrows_an_approval(tmp_path: Path) -> None:
    """Attack: a skill of an untrusted project with the same name and files as one you
    trusted — or approved directly in the store — still asks with the project's warning,
    cannot be trusted by version, and ``--yes`` for a model's pick does not cover it."""
    project = project_with(tmp_path / "clone")
    engine = Engine(EngineOptions())
    engine.library.follow_project(project)
    prepared = engine.runs.prepare("helper.hello", own_run=True)
    engine.trust.approvals.approve("helper", prepared.fingerprint)  # as if trusted before
    again = engine.runs.prepare("helper.hello", own_run=True)
    assert again.decision.asks and again.decision.banner and not again.decision.can_always_allow
    assert never_approved(again)
    asked: list[str] = []
    verdict = authorize(
        engine, again, lambda p: asked.append(p.ref) or Answer.CANCEL, yes=True, model_chose=True
    )
    assert asked == ["helper.hello"] and verdict.refused
    with pytest.raises(EngineError, match="gibberish project trust"):
        engine.trust.approve_skill_by_name("helper")


def test_the_project_trust_hint_works(tmp_path: Path, monkeypatch) -> None:
    """The refusal to trust a project skill by version names a command; it works."""
    project = project_with(tmp_path / "clone")
    monkeypatch.chdir(project)
    refused = CliRunner().invoke(cli, ["approvals", "approve", "helper", "--yes"])
    assert refused.exit_code == 1
    command = refused.output.split("instead: ", 1)[1].split()[:4]
    assert command[:3] == ["gibberish", "project", "trust"]
    done = CliRunner().invoke(cli, command[1:])
    assert done.exit_code == 0, done.output
    engine = Engine(EngineOptions())
    engine.library.follow_project(project)
    assert not engine.runs.prepare("helper.hello", own_run=True).decision.banner


def test_yes_from_a_model_never_stands_in_for_trusting_an_installed_skill(
    engine: Engine, skills: Path
) -> None:
    folder = skills / "writer"
    write_provenance(folder, "https://example.org/w.git", "git", fingerprint(folder).digest)
    engine.library.reload()
    prepared = engine.runs.prepare("writer.mark", origin=RunOrigin.MODEL)
    answers: list[str] = []

    def ask(p):  # type: ignore[no-untyped-def]
        answers.append(p.ref)
        return Answer.CANCEL

    verdict = authorize(engine, prepared, ask, yes=True, model_chose=True)
    assert answers == ["writer.mark"] and verdict.refused  # asked a person, who said no
