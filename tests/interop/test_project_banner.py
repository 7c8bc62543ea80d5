"""An untrusted project's skill says where it came from, and how to trust it (issue 26).

Its approval banner names the project folder and ``gibberish project trust DIR`` instead
of "imported from outside". Variants: the engine's decision from the project's root and
from deep inside it, the CLI prompt at a terminal, ``run --yes`` (the warning it still
prints), the tray's approval dialog; and the counter-cases: a trusted project (no
banner) and an installed skill (still "imported from outside").
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from PySide6.QtWidgets import QLabel

from gibberish import paths
from gibberish.app import Engine, EngineOptions
from gibberish.cli import cli
from gibberish.cli import run as run_module
from gibberish.trust import projects
from gibberish.ui.approval.dialog import ApprovalDialog
from tests.interop.builders import skill_text

TRUST_HINT = "gibberish project trust"


def project_with(root: Path, name: str = "helper") -> Path:
    folder = root / ".gibberish" / "skills" / name
    folder.mkdir(parents=True)
    (root / "gibberish.toml").write_text("", encoding="utf-8")
    (folder / "SKILL.md").write_text(
        skill_text(name, command="echo project").replace("read_only: true\n", ""), "utf-8"
    )
    return root.resolve()


def prepared_in(folder: Path, ref: str = "helper.hello"):  # type: ignore[no-untyped-def]
    engine = Engine(EngineOptions())
    engine.library.follow_project(folder)
    return engine.runs.prepare(ref)


@pytest.mark.parametrize("where", [".", "src/deep"])
def test_the_decision_names_the_project_and_how_to_trust_it(tmp_path: Path, where) -> None:
    project = project_with(tmp_path / "clone")
    (project / where).mkdir(parents=True, exist_ok=True)
    decision = prepared_in(project / where).decision
    assert decision.banner and f"project folder {project}" in decision.banner
    assert f"{TRUST_HINT} {project}" in decision.banner
    assert "imported from outside" not in decision.banner + decision.reason
    assert str(project) in decision.reason and not decision.can_always_allow


def test_a_trusted_project_has_no_banner(tmp_path: Path) -> None:
    project = project_with(tmp_path / "clone")
    projects.trust(project)
    decision = prepared_in(project).decision
    assert not decision.banner and TRUST_HINT not in decision.reason


def test_an_installed_skill_still_says_installed_from_outside(tmp_path: Path) -> None:
    installed = paths.user_skills_dir() / "fetched"
    installed.mkdir(parents=True)
    (installed / "SKILL.md").write_text(skill_text("fetched").replace("read_only: true\n", ""))
    (installed / ".gibberish-source.json").write_text(json.dumps({"url": "https://x"}))
    decision = prepared_in(tmp_path, "fetched.hello").decision
    assert decision.banner and "installed from outside" in decision.banner
    assert TRUST_HINT not in decision.banner


def test_the_cli_prompt_names_the_project(tmp_path: Path, monkeypatch) -> None:
    project = project_with(tmp_path / "clone")
    monkeypatch.chdir(project)
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    result = CliRunner().invoke(cli, ["run", "helper.hello"], input="n\n")
    assert result.exit_code == 1, result.output
    assert f"came with the project folder {project}" in result.output
    assert f"{TRUST_HINT} {project}" in result.output
    assert "imported from outside" not in result.output


def test_run_yes_prints_the_project_warning(tmp_path: Path, monkeypatch) -> None:
    project = project_with(tmp_path / "clone")
    monkeypatch.chdir(project)
    result = CliRunner().invoke(cli, ["run", "helper.hello", "--yes"])
    assert result.exit_code == 0, result.output
    assert f"came with the project folder {project}" in result.stderr
    assert TRUST_HINT in result.stderr


def _label(dialog: ApprovalDialog, name: str) -> str:
    widget = dialog.findChild(QLabel, name)
    assert widget is not None, name
    return widget.text().replace("\u00a0", " ")


def test_the_tray_dialog_names_the_project(qtbot, tmp_path: Path) -> None:
    project = project_with(tmp_path / "clone")
    dialog = ApprovalDialog(prepared_in(project))
    qtbot.addWidget(dialog)
    banner = _label(dialog, "approval-banner")
    assert "came with the project folder" in banner and project.name in banner
    assert TRUST_HINT in banner and "imported from outside" not in banner
    skill = _label(dialog, "approval-skill")
    assert "came with the project folder" in skill and "imported from outside" not in skill
    assert dialog.always_button is None
