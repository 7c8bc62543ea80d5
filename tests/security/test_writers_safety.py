"""Names from skill files are never paths; writers never replace what gibberish did not write.

Issue 26, finding 1, as a class: every writer (stub, sync, install's lock, compile, the web
page's builder) takes names through :class:`gibberish.pathsafety.PathComponent`, checks
that what it writes stays inside its target, and leaves someone else's file alone unless
``--force`` names it.
"""

from __future__ import annotations

import os
from pathlib import Path

import msgspec.structs
import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.export.compile import compile_skill, write_outputs
from gibberish.export.stub import StubTargetError, build_stub
from gibberish.export.sync import Action, apply_folder, plan_folder
from gibberish.export.web.service import ServiceError, build
from gibberish.install.discover import InstallError
from gibberish.install.project import read_lock
from gibberish.pathsafety import (
    OutsideTargetError,
    PathComponent,
    UnsafeNameError,
    WouldReplaceError,
    resolve_inside,
)
from gibberish.skills.model import SkillDefinition, Trust
from gibberish.skills.parser import parse_skill_file

HOSTILE_NAMES = [
    "/tmp/abs-target",
    "../escaped",
    "a/../../escaped",
    "..",
    ".",
    "nested/dir",
    "back\\slash",
    "-rf",
    "tab\tname",
    " padded",
    "x" * 300,
]
STRIPPED_NAMES = [n for n in HOSTILE_NAMES if n == n.strip()]
"""Names a reader strips first (frontmatter values) keep their hostile part."""


def skill_md(name: str, body: str = "# Title\n\nText.\n") -> str:
    quoted = name.replace("\\", "\\\\").replace('"', '\\"').replace("\t", "\\t")
    return f'---\nname: "{quoted}"\ndescription: A skill.\nversion: 1.0.0\n---\n\n{body}'


def make(root: Path, folder: str, name: str | None = None) -> Path:
    path = root / folder
    path.mkdir(parents=True)
    (path / "SKILL.md").write_text(skill_md(name or folder), encoding="utf-8")
    return path


def hostile(tmp_path: Path, name: str) -> SkillDefinition:
    """A loaded skill carrying ``name`` (the parser falls back to the folder's name, so the
    name is set afterwards: the writers must not rely on the parser for their safety)."""
    name = name.replace("/tmp/", f"{tmp_path}/", 1)
    src = make(tmp_path / "src", "victim", name)
    return msgspec.structs.replace(
        parse_skill_file(src / "SKILL.md", trust=Trust.UNTRUSTED), name=name
    )


def files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_path_component_refuses_every_name_that_is_not_one_plain_component(name: str) -> None:
    with pytest.raises(UnsafeNameError) as caught:
        PathComponent(name, "skill name")
    assert "skill name" in str(caught.value)


@pytest.mark.parametrize("name", ["writing", "pdf-tools", "a.b_c", "ünïcode", "X1"])
def test_path_component_keeps_plain_names(name: str) -> None:
    assert PathComponent(name) == name


def test_resolve_inside_refuses_a_link_on_the_way_out(tmp_path: Path) -> None:
    (tmp_path / "out").mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", tmp_path / "out" / "skill")
    with pytest.raises(OutsideTargetError):
        resolve_inside(tmp_path / "out", "skill", "SKILL.md")


# -- stub -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", STRIPPED_NAMES)
def test_stub_never_writes_outside_out_for_a_hostile_name(tmp_path: Path, name: str) -> None:
    name = name.replace("/tmp/", f"{tmp_path}/", 1)  # an absolute path, kept in the test
    src = make(tmp_path / "src", "victim", name)
    out = tmp_path / "work" / "out"
    out.mkdir(parents=True)
    before = files_under(tmp_path)
    with pytest.raises((StubTargetError, UnsafeNameError)):
        build_stub(src, out)
    assert files_under(tmp_path) == before


def test_stub_into_the_parent_of_its_source_keeps_the_source(tmp_path: Path) -> None:
    src = make(tmp_path / "skills", "writing")
    original = (src / "SKILL.md").read_bytes()
    for force in (False, True):
        result = CliRunner().invoke(
            cli,
            ["stub", str(src), "--out", str(src.parent), *(["--force"] if force else [])],
        )
        assert result.exit_code == 1, result.output
        assert "inside the skill" in result.output
        assert (src / "SKILL.md").read_bytes() == original
        assert not (src / ".skillc").exists()


def test_stub_into_the_source_itself_keeps_the_source(tmp_path: Path) -> None:
    src = make(tmp_path / "skills", "writing")
    original = (src / "SKILL.md").read_bytes()
    with pytest.raises(StubTargetError):
        build_stub(src, src, force=True)
    assert (src / "SKILL.md").read_bytes() == original


def test_stub_leaves_a_skill_md_it_did_not_write_unless_forced_and_names_it(
    tmp_path: Path,
) -> None:
    src = make(tmp_path / "src", "writing")
    out = tmp_path / "out"
    theirs = make(out, "writing")
    (theirs / "SKILL.md").write_text("someone else's skill\n", encoding="utf-8")
    refused = CliRunner().invoke(cli, ["stub", str(src), "--out", str(out)])
    assert refused.exit_code == 1
    assert "did not write" in refused.output
    assert (theirs / "SKILL.md").read_text(encoding="utf-8") == "someone else's skill\n"
    forced = CliRunner().invoke(cli, ["stub", str(src), "--out", str(out), "--force"])
    assert forced.exit_code == 0, forced.output
    assert f"replaced {theirs / 'SKILL.md'}" in forced.output
    assert "gateway" in (theirs / "SKILL.md").read_text(encoding="utf-8")


def test_stub_rebuilds_its_own_output_without_force(tmp_path: Path) -> None:
    src = make(tmp_path / "src", "writing")
    out = tmp_path / "out"
    first = build_stub(src, out)
    (src / "more.md").write_text("# More\n", encoding="utf-8")
    second = build_stub(src, out)
    assert second.rebuilt and not second.replaced
    assert first.folder == second.folder


def test_stub_refuses_an_edited_stub_and_a_planted_manifest(tmp_path: Path) -> None:
    src = make(tmp_path / "src", "writing")
    out = tmp_path / "out"
    built = build_stub(src, out)
    (built.folder / "SKILL.md").write_text("edited by a person\n", encoding="utf-8")
    (src / "more.md").write_text("# More\n", encoding="utf-8")
    with pytest.raises(StubTargetError):
        build_stub(src, out)
    assert (built.folder / "SKILL.md").read_text(encoding="utf-8") == "edited by a person\n"


def test_stub_refuses_a_target_folder_that_is_a_link_elsewhere(tmp_path: Path) -> None:
    src = make(tmp_path / "src", "writing")
    out = tmp_path / "out"
    out.mkdir()
    victim = tmp_path / "other-agent"
    victim.mkdir()
    os.symlink(victim, out / "writing")
    with pytest.raises(StubTargetError):
        build_stub(src, out)
    assert list(victim.iterdir()) == []


# -- sync -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["../escaped", "/tmp/abs-target", "a/../../b", ".."])
def test_sync_skips_a_skill_whose_name_is_not_a_plain_component(tmp_path: Path, name: str) -> None:
    skill = hostile(tmp_path, name)
    dest = tmp_path / "agent" / "skills"
    dest.mkdir(parents=True)
    plan = plan_folder(dest, ["claude-code"], [skill])
    name = skill.name
    assert [s.action for s in plan.steps] == [Action.SKIP_INVALID]
    before = files_under(tmp_path)
    assert apply_folder(plan) == []
    assert files_under(tmp_path) == before


def test_sync_never_writes_through_a_link_planted_in_a_folder_it_made(tmp_path: Path) -> None:
    src = make(tmp_path / "src", "writing")
    (src / "refs").mkdir()
    (src / "refs" / "a.md").write_text("# A\n", encoding="utf-8")
    skill = parse_skill_file(src / "SKILL.md", trust=Trust.USER)
    dest = tmp_path / "agent"
    assert apply_folder(plan_folder(dest, ["claude-code"], [skill])) == []
    # someone swaps the folder gibberish made for a link to elsewhere, then the skill changes
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (dest / "writing" / "refs" / "a.md").unlink()
    (dest / "writing" / "refs").rmdir()
    os.symlink(elsewhere, dest / "writing" / "refs")
    (src / "refs" / "a.md").write_text("# A changed\n", encoding="utf-8")
    problems = apply_folder(plan_folder(dest, ["claude-code"], [skill]))
    assert list(elsewhere.iterdir()) == []
    assert any("outside" in p for p in problems), problems


# -- install's lock, compile, web -------------------------------------------------------


@pytest.mark.parametrize("name", ["../../outside", "/etc/x", "a/b", ".."])
def test_a_lock_entry_whose_name_is_a_path_is_refused(tmp_path: Path, name: str) -> None:
    key = name.replace('"', '\\"')
    (tmp_path / "gibberish.lock").write_text(
        f'format = 1\n[skills."{key}"]\nsource = "x"\n', encoding="utf-8"
    )
    with pytest.raises(InstallError, match="not a plain skill name"):
        read_lock(tmp_path)


def test_compile_leaves_a_file_it_did_not_write_unless_forced(tmp_path: Path) -> None:
    src = make(tmp_path / "src", "writing")
    command = compile_skill(parse_skill_file(src / "SKILL.md", trust=Trust.USER))
    theirs = tmp_path / "out" / command.toml_name
    theirs.parent.mkdir()
    theirs.write_text("mine\n", encoding="utf-8")
    with pytest.raises(WouldReplaceError):
        write_outputs(command, out_dir=theirs.parent, zip_path=None)
    assert theirs.read_text(encoding="utf-8") == "mine\n"
    notes: list[str] = []
    write_outputs(command, out_dir=theirs.parent, zip_path=None, force=True, notes=notes)
    assert notes and str(theirs) in notes[0]
    write_outputs(command, out_dir=theirs.parent, zip_path=None)  # its own output: fine


def test_compile_cli_refuses_to_replace_and_says_how(tmp_path: Path) -> None:
    src = make(tmp_path / "src", "writing")
    zipped = tmp_path / "theirs.zip"
    zipped.write_bytes(b"not ours")
    result = CliRunner().invoke(cli, ["compile", str(src), "--zip", str(zipped)])
    assert result.exit_code != 0
    assert "--force" in result.output
    assert zipped.read_bytes() == b"not ours"


@pytest.mark.parametrize("name", ["../escaped", "/abs", "a/b"])
def test_the_web_builder_refuses_a_name_that_would_be_a_zip_path(tmp_path: Path, name: str) -> None:
    skill = hostile(tmp_path, name)
    for target in ("agent-skills", "skillc-stub"):
        with pytest.raises(ServiceError, match="skill name"):
            build(skill, target)
