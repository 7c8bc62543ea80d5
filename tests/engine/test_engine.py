"""The Engine as the tray uses it: long-lived, one library, runs in the background."""

from __future__ import annotations

import time
from pathlib import Path

import psutil
import pytest

from gibberish.engine.core import Engine, EngineError
from gibberish.runner import RunStatus
from gibberish.skills.render import RenderError
from gibberish.trust.decision import DecisionKind
from tests.helpers.sandbox import approved_read_only_runs
from tests.skills.fixtures import skillkit
from tests.skills.fixtures.skillkit import param_table, tool_block


def make_skill(root: Path, name: str = "eng", *, read_only: bool = True) -> Path:
    seconds = param_table([("seconds", "integer", "yes", "How long")])
    return skillkit.make_skill(
        root,
        name,
        tools=[
            tool_block("go", "Run the script.", "./scripts/go.sh"),
            tool_block("wait", "Sleep.", "sleep {{seconds}}", seconds),
        ],
        scripts={"scripts/go.sh": "#!/bin/sh\necho inside\n"},
        description="Engine test skill.",
        extra=f"read_only: {str(read_only).lower()}",
    )


def test_first_run_asks_then_always_allow_runs(engine: Engine, root: Path) -> None:
    make_skill(root)
    prepared = engine.runs.prepare("eng.go")
    assert prepared.decision.kind is DecisionKind.ASK and prepared.decision.first_run
    with pytest.raises(EngineError, match="needs your approval"):
        engine.runs.start(prepared)
    engine.trust.approve_prepared(prepared)
    again = engine.runs.prepare("eng.go")
    assert approved_read_only_runs(again.decision)
    result = engine.runs.run(again, confirmed=again.decision.asks)
    assert result.envelope.output == "inside\n"
    assert [r.ref for r in engine.runs.recent()] == ["eng.go"]


def test_a_change_between_prepare_and_start_is_refused(engine: Engine, root: Path) -> None:
    folder = make_skill(root)
    prepared = engine.runs.prepare("eng.go")
    (folder / "scripts" / "go.sh").write_text("#!/bin/sh\necho changed\n")
    with pytest.raises(EngineError, match="changed on disk"):
        engine.runs.start(prepared, confirmed=True)


def test_a_script_swapped_for_an_outside_link_after_load_is_refused(
    engine: Engine, root: Path, tmp_path: Path
) -> None:
    folder = make_skill(root)
    engine.library.skills()
    outside = tmp_path / "evil.sh"
    outside.write_text("#!/bin/sh\necho outside\n")
    script = folder / "scripts" / "go.sh"
    script.unlink()
    script.symlink_to(outside)
    with pytest.raises(EngineError, match="E-PATH-ESCAPE"):
        engine.runs.prepare("eng.go")


def test_a_vanished_skill_folder_is_a_clear_error(engine: Engine, root: Path) -> None:
    import shutil

    folder = make_skill(root)
    engine.library.skills()
    shutil.rmtree(folder)
    with pytest.raises(EngineError, match="gone"):
        engine.runs.prepare("eng.go")


def test_bad_arguments_raise_render_errors(engine: Engine, root: Path) -> None:
    make_skill(root)
    with pytest.raises(RenderError, match="seconds"):
        engine.runs.prepare("eng.wait", {"seconds": "soon"})


def test_cancel_all_leaves_no_process(engine: Engine, root: Path) -> None:
    make_skill(root)
    handles = []
    for _ in range(3):
        prepared = engine.runs.prepare("eng.wait", {"seconds": 60})
        handles.append(engine.runs.start(prepared, confirmed=True))
    deadline = time.monotonic() + 5
    while any(h.status is not RunStatus.RUNNING for h in handles) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert len(engine.runs.running()) == 3
    engine.runs.cancel_all()
    assert all(h.status is RunStatus.CANCELLED for h in handles)
    assert engine.runs.running() == []
    me = psutil.Process()
    assert [c for c in me.children(recursive=True) if c.name() == "sleep"] == []


def test_reload_reports_changes(engine: Engine, root: Path) -> None:
    assert engine.library.skills() == []
    make_skill(root, "late")
    changes = engine.library.reload()
    assert changes.added == ("late",)
    assert [s.name for s in engine.library.skills()] == ["late"]


def test_an_unchanged_skill_keeps_its_tool_refs(engine: Engine, root: Path) -> None:
    """Views compare tools by identity to reuse what they made from them (the command
    bar's index): only an edited skill's tools are new objects after a reload."""
    make_skill(root, "kept")
    edited = make_skill(root, "edited")
    before = {ref.ref: ref for ref in engine.library.tools()}
    assert {ref.ref: ref for ref in engine.library.tools()} == before
    text = (edited / "SKILL.md").read_text(encoding="utf-8")
    (edited / "SKILL.md").write_text(text.replace("Run the script.", "Run it."), encoding="utf-8")
    assert engine.library.reload().changed == ("edited",)
    after = {ref.ref: ref for ref in engine.library.tools()}
    assert after.keys() == before.keys()
    assert all(after[r] is before[r] for r in after if r.startswith("kept."))
    assert not any(after[r] is before[r] for r in after if r.startswith("edited."))
    assert after["edited.go"].tool.description == "Run it."


def test_model_settings_overrides(engine: Engine) -> None:
    settings = engine.feed.model_settings(endpoint="http://127.0.0.1:9", model=None)
    assert settings.endpoint == "http://127.0.0.1:9" and settings.model == "functiongemma"


def echo_skill(word: str) -> str:
    """The SKILL.md of ``swap``: a read-only ``say`` that echoes ``word``."""
    return skillkit.skill_text(
        "swap",
        body=tool_block("say", "Say it.", f"echo {word}"),
        description="Echo something.",
        extra="read_only: true",
    )


def test_the_argv_always_comes_from_the_skill_md_that_is_on_disk(
    engine: Engine, root: Path
) -> None:
    """Approve A, reload B, put A back: the run must be A's, never B's under A's approval."""
    folder = root / "swap"
    folder.mkdir()
    skill_md = folder / "SKILL.md"
    skill_md.write_text(echo_skill("from-A"))
    engine.trust.approve_prepared(engine.runs.prepare("swap.say"))
    skill_md.write_text(echo_skill("EVIL-from-B"))
    engine.library.reload()
    assert engine.runs.prepare("swap.say").decision.asks  # B is not approved
    skill_md.write_text(echo_skill("from-A"))  # no reload: parsed B, disk A
    prepared = engine.runs.prepare("swap.say")
    assert prepared.argv == ("echo", "from-A")
    assert approved_read_only_runs(prepared.decision)
    assert engine.runs.run(prepared, confirmed=True).envelope.output == "from-A\n"


def test_a_stale_definition_never_gets_an_approval_for_other_bytes(
    engine: Engine, root: Path
) -> None:
    folder = root / "swap"
    folder.mkdir()
    skill_md = folder / "SKILL.md"
    skill_md.write_text(echo_skill("from-A"))
    engine.library.skills()
    skill_md.write_text(echo_skill("from-B"))  # not reloaded
    prepared = engine.runs.prepare("swap.say")
    assert prepared.argv == ("echo", "from-B")  # what is shown is what is on disk
    engine.trust.approve_prepared(prepared)
    approved = engine.runs.prepare("swap.say")
    assert approved_read_only_runs(approved.decision)
    assert engine.runs.run(approved, confirmed=True).envelope.output == "from-B\n"


def test_a_program_outside_the_fingerprint_is_refused(engine: Engine, root: Path) -> None:
    """Files under the skill's top-level .git/ are not fingerprinted, so they may not run."""
    folder = make_skill(root)
    skill_md = folder / "SKILL.md"
    skill_md.write_text(skill_md.read_text().replace("./scripts/go.sh", "./.git/go.sh"))
    (folder / ".git").mkdir()
    hidden = folder / ".git" / "go.sh"
    hidden.write_text("#!/bin/sh\necho hidden\n")
    hidden.chmod(0o755)
    with pytest.raises(EngineError, match="not covered"):
        engine.runs.prepare("eng.go")


def test_the_engine_never_names_a_command_line_flag(engine: Engine, root: Path) -> None:
    """Flags belong to the CLI (cli/arguments.py); the Engine's messages fit every front end."""
    import ast
    import re

    import gibberish.engine.core

    source = Path(gibberish.engine.core.__file__).read_text(encoding="utf-8")
    flags = [
        node.value
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Constant)
        and isinstance(node.value, str)
        and re.search(r"(^|\s)--[a-z]", node.value)
    ]
    assert flags == []
    make_skill(root)
    with pytest.raises(EngineError, match=r"timeout must be more than 0 and at most 300 seconds"):
        engine.runs.prepare("eng.go", timeout=0)
