"""A model cannot read the person's secrets through a tool; a person still can.

Every credential place gets a canary (tests/helpers/credentials.py). A run a model
started (``origin=MODEL``: MCP, ``ask``, voice) that names one is refused before it runs,
with and without the sandbox; inside the sandbox every undeclared place is also hidden,
so a tool that walks the home folder by itself finds nothing. A run a person started
reads what they chose (the control that shows each canary is really readable).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gibberish.engine.core import Engine, EngineOptions
from gibberish.runner import sandbox
from gibberish.trust.model_reads import RunOrigin
from tests.helpers.credentials import Planted, plant
from tests.skills.fixtures.skillkit import make_skill, param_table, tool_block

MODEL = RunOrigin.MODEL
requires_bwrap = pytest.mark.skipif(
    not sandbox.status().active,
    reason=f"no working bubblewrap here ({sandbox.status().detail}); apt install bubblewrap",
)


@pytest.fixture
def planted(tmp_path: Path) -> Planted:
    return plant(tmp_path)


@pytest.fixture(params=["sandbox", "no-sandbox"])
def sandboxing(request, monkeypatch):
    """Each test runs with the sandbox (skipped where bwrap does not work) and without."""
    if request.param == "sandbox":
        if not sandbox.status().active:
            pytest.skip(f"no working bubblewrap here ({sandbox.status().detail})")
    else:
        monkeypatch.setenv(sandbox.SWITCH_VAR, "off")
    sandbox.reset()
    yield request.param
    sandbox.reset()


def bundled() -> Engine:
    return Engine(EngineOptions(include_user=False))


def spellings(planted: Planted, name: str) -> list[str]:
    """Ways a model can name one file: absolute, from ~, relative to the project."""
    path = planted.files[name]
    out = [str(path), os.path.relpath(path, planted.project)]
    if path.is_relative_to(planted.home):
        out.append("~/" + str(path.relative_to(planted.home)))
    return out


NAMES = ["ssh", "gnupg", "aws", "gcloud", "kube", "netrc", "docker", "keyring", "browser"]
NAMES += ["git-credentials", "dotenv", "gibberish-log"]


@pytest.mark.parametrize("name", NAMES)
def test_a_model_cannot_name_a_credential_place(planted, sandboxing, name) -> None:
    engine = bundled()
    for spelled in spellings(planted, name):
        prepared = engine.runs.prepare(
            "files.read_file", {"path": spelled}, context_dir=planted.project, origin=MODEL
        )
        assert prepared.decision.refused, (spelled, prepared.decision)
        reason = prepared.decision.reason
        assert "never reads credentials" in reason and "gibberish run files.read_file" in reason
        if sandboxing == "no-sandbox":
            assert "no sandbox (bubblewrap)" in reason
        assert not planted.leaked(reason)


def test_a_link_in_the_project_to_a_key_is_refused_too(planted, sandboxing) -> None:
    (planted.project / "innocent.txt").symlink_to(planted.files["ssh"])
    (planted.project / "keys").symlink_to(planted.files["ssh"].parent)
    engine = bundled()
    for spelled in ("innocent.txt", "keys/id_ed25519", str(planted.project / "keys")):
        prepared = engine.runs.prepare(
            "files.read_file", {"path": spelled}, context_dir=planted.project, origin=MODEL
        )
        assert prepared.decision.refused, spelled


@pytest.mark.parametrize(
    "where",
    [
        "other-home/.ssh/id_rsa",
        "mnt/backup/home/.gnupg/secring.gpg",
        "project/deploy/.env.production",
        "project/config/.aws/credentials",
        "project/.npmrc",
    ],
)
def test_a_credential_by_its_name_anywhere_is_refused(planted, sandboxing, tmp_path, where) -> None:
    """Not only the person's own home: another home, a backup, a subfolder's ``.env``."""
    target = tmp_path / where
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text("secret\n")
    prepared = bundled().runs.prepare(
        "files.read_file", {"path": str(target)}, context_dir=planted.project, origin=MODEL
    )
    assert prepared.decision.refused, where


def test_an_env_template_in_the_project_is_read(planted, sandboxing) -> None:
    (planted.project / ".env.example").write_text("API_TOKEN=\n")
    prepared = bundled().runs.prepare(
        "files.read_file", {"path": ".env.example"}, context_dir=planted.project, origin=MODEL
    )
    assert prepared.decision.runs
    assert bundled().runs.run(prepared).envelope.output == "API_TOKEN=\n"


def test_a_person_reads_what_they_chose(planted, sandboxing) -> None:
    """The control: by hand, the same call reads the key."""
    engine = bundled()
    prepared = engine.runs.prepare(
        "files.read_file", {"path": str(planted.files["ssh"])}, context_dir=planted.project
    )
    assert prepared.decision.runs
    assert planted.leaked(engine.runs.run(prepared).envelope.output) == ["ssh"]


def test_a_model_read_outside_the_project_asks_and_names_it(planted, sandboxing) -> None:
    outside = planted.home / "Documents" / "plan.txt"
    outside.parent.mkdir(parents=True)
    outside.write_text("plans\n")
    engine = bundled()
    for spelled in (str(outside), "../home/Documents/plan.txt", "/etc/hostname", "~"):
        prepared = engine.runs.prepare(
            "files.read_file", {"path": spelled}, context_dir=planted.project, origin=MODEL
        )
        decision = prepared.decision
        assert decision.asks and decision.person_must_answer, spelled
        assert decision.reads_outside and "outside" in decision.reason
    inside = engine.runs.prepare(
        "files.read_file", {"path": "README.md"}, context_dir=planted.project, origin=MODEL
    )
    assert inside.decision.runs  # inside the project a read-only tool still runs unasked


def grep_skill(root: Path, *, credentials: str = "") -> None:
    """An approved read-only skill that searches a folder's files for the canaries."""
    params = param_table([("folder", "string", "yes", "Where to search")])
    block = tool_block("grep_all", "Search.", "grep -r -h -s canary- {{folder}}", params)
    extra = "read_only: true" + (f"\ncredentials: [{credentials}]" if credentials else "")
    make_skill(root, "searcher", tools=[block], extra=extra)


@requires_bwrap
@pytest.mark.parametrize("declared", ["", "~/.aws"])
def test_the_sandbox_hides_every_undeclared_place_from_a_model_run(
    planted, root: Path, declared: str
) -> None:
    grep_skill(root, credentials=declared)
    engine = Engine(EngineOptions(extra_skills_dirs=(root,), include_bundled=False))
    engine.trust.approve_skill_by_name("searcher")
    for folder in (str(planted.home), str(planted.project)):
        person = engine.runs.prepare(
            "searcher.grep_all", {"folder": folder}, context_dir=planted.project
        )
        model = engine.runs.prepare(
            "searcher.grep_all", {"folder": folder}, context_dir=planted.project, origin=MODEL
        )
        seen = planted.leaked(engine.runs.run(person, confirmed=True).envelope.output)
        leaked = planted.leaked(engine.runs.run(model, confirmed=True).envelope.output)
        assert seen, "the person's own run reads the canaries"
        assert leaked == (["aws"] if declared and "aws" in seen else []), leaked


def test_a_declared_place_is_shown_before_approval(root: Path) -> None:
    grep_skill(root, credentials="~/.aws")
    engine = Engine(EngineOptions(extra_skills_dirs=(root,), include_bundled=False))
    skill = engine.library.require("searcher")
    assert skill.credentials == ("~/.aws",)
    from gibberish.cli.run import describe

    prepared = engine.runs.prepare("searcher.grep_all", {"folder": "."})
    assert "~/.aws (credentials it declares:" in describe(prepared)


@pytest.mark.parametrize("declared", [False, True])
def test_a_command_that_names_a_credential_needs_it_declared(
    planted, sandboxing, root: Path, declared: bool
) -> None:
    """The skill's own template, not the model, names the file: the same rule holds."""
    aws = planted.files["aws"]
    block = tool_block("show_keys", "Show the AWS keys.", f"cat {aws}")
    extra = "read_only: true" + ("\ncredentials: [~/.aws]" if declared else "")
    make_skill(root, "keys", tools=[block], extra=extra)
    engine = Engine(EngineOptions(extra_skills_dirs=(root,), include_bundled=False))
    engine.trust.approve_skill_by_name("keys")
    prepared = engine.runs.prepare("keys.show_keys", context_dir=planted.project, origin=MODEL)
    if not declared:
        assert prepared.decision.refused and str(aws) in prepared.decision.reason
        return
    if sandboxing == "no-sandbox":  # an approved user skill's read-only claim is unenforced
        assert prepared.decision.asks
    output = engine.runs.run(prepared, confirmed=True).envelope.output
    assert planted.leaked(output) == ["aws"]


def test_no_bundled_tool_is_refused_for_a_model_by_its_own_command(planted) -> None:
    engine = bundled()
    for ref in engine.library.tools():
        if ref.tool.parameters and any(p.required for p in ref.tool.parameters):
            continue
        prepared = engine.runs.prepare(ref, {}, context_dir=planted.project, origin=MODEL)
        assert not prepared.decision.refused, (ref.ref, prepared.decision.reason)


def test_without_a_git_root_the_project_is_the_folder_the_request_came_from(
    planted, sandboxing, tmp_path: Path
) -> None:
    """An agent working in a plain folder: the home folder (where the run works) is not
    the project, so a model's read there asks; a file in the agent's folder does not."""
    agent = tmp_path / "plain-folder"
    agent.mkdir()
    (agent / "todo.txt").write_text("todo\n")
    diary = planted.home / "diary.txt"
    diary.write_text("dear diary\n")
    engine = bundled()

    def decided(path: str):
        return engine.runs.prepare(
            "files.read_file", {"path": path}, context_dir=agent, origin=MODEL
        ).decision

    assert decided(str(agent / "todo.txt")).runs
    asked = decided(str(diary))
    assert asked.person_must_answer and str(diary) in asked.reason and str(agent) in asked.reason
