"""The writers instruction skills brought (stub deployment, the opt-in instruction files,
context blocks, compile of a collection, the sync offered after install, relative
dependencies) under the same rules as every other writer (docs/trust.md): names are
never paths, a file gibberish did not write is never replaced, an MCP server entry is
written only with consent, and no credential is kept or shown."""

from __future__ import annotations

import json
import os
from pathlib import Path

import msgspec.structs
import pytest

from gibberish.assistant.context_folders import ImportError_, context_dir, install_block
from gibberish.cli import sync_offer
from gibberish.export.compile import CompiledCommand, write_outputs
from gibberish.export.instruction_files import apply_format, instruction_format, plan_format
from gibberish.export.stub_deploy import deploy
from gibberish.export.sync import Action
from gibberish.install import context_import
from gibberish.install.fetch import FetchError
from gibberish.install.relative_deps import same_repository
from gibberish.install.sources import Source
from gibberish.pathsafety import UnsafeNameError
from gibberish.skills.model import Profile, Trust
from gibberish.skills.parser import parse_skill_file
from tests.helpers.builders import zip_with
from tests.helpers.instruction_skills import instruction_text

HOSTILE_NAMES = ["..", "../escape", "/abs/escape", "a/b", "-rf"]
SECRET = "s3cr3t-T0KEN"


@pytest.fixture
def home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    empty = tmp_path / "empty-path"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    return Path(os.environ["HOME"])


def _guide(root: Path, name: str = "guide", body: str = "# Guide\n\n## Tone\n") -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(instruction_text(name, body))
    return folder


def _hostile(name: str, tmp_path: Path) -> str:
    """``name``, its absolute variant pointed into the test's own folder."""
    return f"{tmp_path}{name}" if name.startswith("/abs") else name


def _files_under(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")} if root.exists() else set()


# ------------------------------------------------------------------ stub --target


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_stub_target_refuses_a_hostile_name_and_writes_nothing(tmp_path, home, gib, name) -> None:
    source = tmp_path / "src" / "odd"
    source.mkdir(parents=True)
    name = _hostile(name, tmp_path)
    (source / "SKILL.md").write_text(f'---\nname: "{name}"\ndescription: D.\n---\n\n# Odd\n')
    before = _files_under(tmp_path)
    result = gib("stub", str(source), "--target", "claude-code")
    assert result.exit_code == 1, result.output
    assert "internal error" not in result.output and "Traceback" not in result.output
    assert "plain name" in result.output or "not a skill name" in result.output
    assert _files_under(tmp_path) - before <= {"empty-path"}
    assert not (home / ".skillc").exists() and not (home / ".claude" / "skills").exists()


@pytest.mark.parametrize("built", ["..", "a/..", "/"])
def test_deploy_refuses_a_runtime_folder_that_names_no_component(tmp_path, home, built) -> None:
    from gibberish.export import agents

    done = deploy(
        Path(tmp_path, built), [agents.target("claude-code")], home=home, project=None, copy=True
    )
    assert [d.method for d in done] == ["left alone"]
    assert not (home / ".claude" / "skills").exists()


def _build_runtime(tmp_path: Path, gib) -> Path:
    skills = tmp_path / "skills"
    _guide(skills)
    runtime = tmp_path / "rt"
    assert gib("--skills-dir", str(skills), "stub", "guide", "--out", str(runtime)).exit_code == 0
    return runtime / "guide"


def test_stub_copy_never_replaces_a_planted_stub_lookalike(tmp_path, home, gib) -> None:
    """A folder with a foreign SKILL.md and a manifest naming the skill is not a stub
    gibberish wrote (the manifest's digest does not match): left alone."""
    from gibberish.export import agents

    built = _build_runtime(tmp_path, gib)
    planted = home / ".claude" / "skills" / "guide"
    (planted / ".skillc").mkdir(parents=True)
    (planted / "SKILL.md").write_text("their own instructions\n")
    manifest = json.loads((built / ".skillc" / "manifest.json").read_text())
    (planted / ".skillc" / "manifest.json").write_text(json.dumps(manifest))
    done = deploy(built, [agents.target("claude-code")], home=home, project=None, copy=True)
    assert [d.method for d in done] == ["left alone"], done
    assert (planted / "SKILL.md").read_text() == "their own instructions\n"
    # gibberish's own copy (the digest matches) is replaced: that is what --copy is for
    (planted / "SKILL.md").write_bytes((built / "SKILL.md").read_bytes())
    done = deploy(built, [agents.target("claude-code")], home=home, project=None, copy=True)
    assert [d.method for d in done] == ["copy"], done


def test_stub_copy_never_writes_through_a_planted_link(tmp_path, home, gib) -> None:
    from gibberish.export import agents

    built = _build_runtime(tmp_path, gib)
    outside = tmp_path / "outside"
    outside.mkdir()
    planted = home / ".claude" / "skills" / "guide"
    planted.mkdir(parents=True)
    (planted / "SKILL.md").write_bytes((built / "SKILL.md").read_bytes())
    (planted / ".skillc").symlink_to(outside, target_is_directory=True)
    (outside / "manifest.json").write_text((built / ".skillc" / "manifest.json").read_text())
    before = (outside / "manifest.json").read_text()
    done = deploy(built, [agents.target("claude-code")], home=home, project=None, copy=True)
    assert [d.method for d in done] == ["left alone"], done
    assert (outside / "manifest.json").read_text() == before


# ------------------------------------------------------------------ instruction files


def _instruction_skill(tmp_path: Path, name: str):
    folder = _guide(tmp_path / "skills", "guide", "Rules.\n")
    skill = parse_skill_file(folder / "SKILL.md", profile=Profile.AGENTSKILLS, trust=Trust.USER)
    assert skill.kind == "instructions"
    return msgspec.structs.replace(skill, name=name)


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_cursor_rules_skip_a_hostile_name(tmp_path, home, name) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    fmt = instruction_format("cursor-rules")
    hostile = _instruction_skill(tmp_path, _hostile(name, tmp_path))
    plan = plan_format(fmt, [hostile], home=home, project=project)
    assert plan is not None
    assert [s.action for s in plan.steps] == [Action.SKIP_INVALID], plan.steps
    assert apply_format(plan) == []
    assert _files_under(tmp_path / "proj") == set()
    assert not (tmp_path / "escape.mdc").exists() and not (tmp_path / "abs").exists()


def test_cursor_rules_never_replace_a_planted_rule(tmp_path, home) -> None:
    project = tmp_path / "proj"
    rules = project / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "guide.mdc").write_text("their rule\n")
    fmt = instruction_format("cursor-rules")
    plan = plan_format(fmt, [_instruction_skill(tmp_path, "guide")], home=home, project=project)
    assert [s.action for s in plan.steps] == [Action.SKIP_FOREIGN]
    apply_format(plan)
    assert (rules / "guide.mdc").read_text() == "their rule\n"


@pytest.mark.parametrize(
    ("fmt_name", "planted"),
    [
        ("agents-md", "AGENTS.md"),
        ("copilot-instructions", ".github"),
        ("copilot-instructions", ".github/copilot-instructions.md"),
        ("cursor-rules", ".cursor"),
    ],
)
def test_instruction_files_never_write_through_a_link_out_of_the_project(
    tmp_path, home, fmt_name, planted
) -> None:
    project = tmp_path / "proj"
    outside = tmp_path / "outside"
    outside.mkdir()
    victim = outside / "victim"
    victim.write_text("the person's own file\n")
    link = project / planted
    link.parent.mkdir(parents=True, exist_ok=True)
    is_folder = planted in (".github", ".cursor")
    link.symlink_to(outside if is_folder else victim, target_is_directory=is_folder)
    fmt = instruction_format(fmt_name)
    plan = plan_format(fmt, [_instruction_skill(tmp_path, "guide")], home=home, project=project)
    assert [s.action for s in plan.steps] == [Action.SKIP_FOREIGN], plan.steps
    assert apply_format(plan) == []
    assert sorted(p.name for p in outside.iterdir()) == ["victim"]
    assert victim.read_text() == "the person's own file\n"


# ------------------------------------------------------------------ context blocks


@pytest.mark.parametrize("name", HOSTILE_NAMES)
def test_a_context_block_name_is_never_a_path(tmp_path, name) -> None:
    folder = _guide(tmp_path / "src")
    with pytest.raises(ImportError_, match="it must be a plain name"):
        install_block(folder, _hostile(name, tmp_path), str(folder), "folder")
    assert not (tmp_path / "escape").exists() and not (tmp_path / "abs").exists()
    assert not context_dir().exists() or not any(context_dir().iterdir())


def test_a_context_import_never_replaces_a_folder_gibberish_did_not_write(tmp_path, gib) -> None:
    notes = tmp_path / "guide.md"
    notes.write_text("---\nname: guide\ndescription: Ours.\n---\n\nUse tabs.\n")
    planted = context_dir() / "guide"
    planted.mkdir(parents=True)
    (planted / "SKILL.md").write_text("their own\n")
    result = gib("context", "import", str(notes))
    assert result.exit_code == 1 and "gibberish did not write it" in result.output
    assert (planted / "SKILL.md").read_text() == "their own\n"
    planted.rename(tmp_path / "moved")
    outside = tmp_path / "outside"
    outside.mkdir()
    planted.symlink_to(outside, target_is_directory=True)  # a link out of the context folder
    result = gib("context", "import", str(notes))
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert list(outside.iterdir()) == [] and planted.is_symlink()
    planted.unlink()
    assert gib("context", "import", str(notes)).exit_code == 0  # now ours
    notes.write_text("---\nname: guide\ndescription: Ours.\n---\n\nUse spaces.\n")
    again = gib("context", "import", str(notes))
    assert again.exit_code == 0 and "Replaced guide" in again.output  # ours: replaced


@pytest.mark.parametrize(
    "url",
    [
        f"https://someone:{SECRET}@example.invalid/notes.md",
        f"https://{SECRET}@example.invalid/notes.md",
        f"https://example.invalid/notes.md?token={SECRET}",
    ],
)
def test_context_import_fetches_with_credentials_and_keeps_none(
    tmp_path, monkeypatch, gib, url
) -> None:
    fetched: list[str] = []

    def fake_download(address, target, limits):
        fetched.append(address)
        Path(target).write_text("# Notes\n\nBe brief.\n")  # its file name stands in

    monkeypatch.setattr(context_import, "download", fake_download)
    result = gib("context", "import", url)
    assert result.exit_code == 0, result.output
    assert fetched == [url]  # the fetch uses what the person typed
    record = (context_dir() / "notes" / ".gibberish-source.json").read_text()
    assert SECRET not in record and "example.invalid/notes.md" in record
    assert SECRET not in (context_dir() / "notes" / "SKILL.md").read_text()
    assert SECRET not in result.output
    listed = gib("context", "list", "--json").output
    assert SECRET not in listed

    def failing(address, target, limits):
        raise FetchError(f"cannot download {address}: connection refused")

    monkeypatch.setattr(context_import, "download", failing)
    with pytest.raises(ImportError_) as caught:
        context_import.import_context(url)
    assert SECRET not in str(caught.value) and "example.invalid" in str(caught.value)


# ------------------------------------------------------------------ relative dependencies


@pytest.mark.parametrize(
    "location",
    [
        f"https://someone:{SECRET}@example.invalid/skills.git",
        f"https://{SECRET}@example.invalid/skills.git",
        f"https://example.invalid/skills.git?access_token={SECRET}",
    ],
)
def test_a_relative_dependency_keeps_no_credentials(location) -> None:
    source = Source("git", location, "main", "top", f"git+{location}#main:top")
    sibling = same_repository(source, "base")
    assert sibling.location == location  # fetched with what was typed
    assert SECRET not in sibling.text and SECRET not in sibling.pinned("0" * 40)
    assert sibling.text.endswith("#main:base") and "example.invalid/skills.git" in sibling.text


# ------------------------------------------------------------------ compile of a collection


@pytest.mark.parametrize("name", ["../escape", "/abs/escape", "a/b", "x/../../escape"])
def test_compile_writes_a_toml_only_under_its_own_name(tmp_path, name) -> None:
    out = tmp_path / "out"
    out.mkdir()
    command = CompiledCommand(_hostile(name, tmp_path), "D.", "prompt", ())
    with pytest.raises((UnsafeNameError, OSError)):
        write_outputs(command, out_dir=out, zip_path=None)
    assert list(out.iterdir()) == [] and not (tmp_path / "escape.toml").exists()
    assert not (tmp_path / "abs").exists()


def test_compile_of_an_archive_never_replaces_a_toml_it_did_not_write(tmp_path, gib) -> None:
    archive = zip_with(
        tmp_path / "c.zip",
        [
            ("c/alpha/SKILL.md", instruction_text("alpha").encode(), 0),
            ("c/beta/SKILL.md", instruction_text("beta").encode(), 0),
        ],
    )
    out = tmp_path / "commands"
    out.mkdir()
    (out / "beta.toml").write_text("their own command\n")
    result = gib("compile", str(archive), "--out", str(out))
    assert result.exit_code == 1 and "gibberish did not write it" in result.output
    assert "Traceback" not in result.output
    assert (out / "beta.toml").read_text() == "their own command\n"
    forced = gib("compile", str(archive), "--out", str(out), "--force")
    assert forced.exit_code == 0, forced.output
    assert "replaced" in forced.output and "beta.toml" in forced.output
    assert (out / "alpha.toml").is_file() and "Follow the house style" in (
        out / "beta.toml"
    ).read_text()


# ------------------------------------------------------------------ the sync offered after install


NEEDS_SERVER = (
    "---\nname: needs-files\ndescription: Needs an MCP server.\ndependencies:\n  mcp:\n"
    "    files:\n      command: files-server\n---\n\nUse the files server.\n"
)


@pytest.fixture
def needs_files(tmp_path: Path, home: Path) -> Path:
    (home / ".claude").mkdir()
    folder = tmp_path / "src" / "needs-files"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(NEEDS_SERVER)
    return folder


def _servers(home: Path) -> dict:
    config = home / ".claude.json"
    return json.loads(config.read_text()).get("mcpServers", {}) if config.exists() else {}


def test_the_sync_after_install_skips_an_unapproved_server_without_a_terminal(
    home, gib, needs_files
) -> None:
    result = gib("install", str(needs_files), "--yes", "--sync")
    assert result.exit_code == 0, result.output
    assert (home / ".claude" / "skills" / "needs-files" / "SKILL.md").is_file()
    assert "files" not in _servers(home)
    assert "skip-unapproved" in result.output and "--allow-mcp files" in result.output


def test_the_sync_after_install_writes_a_server_agreed_to_ahead(home, gib, needs_files) -> None:
    result = gib("install", str(needs_files), "--yes", "--sync", "--allow-mcp", "files")
    assert result.exit_code == 0, result.output
    assert _servers(home)["files"]["command"] == "files-server"


@pytest.mark.parametrize(("answer", "written"), [("n\n", False), ("y\n", True)])
def test_the_sync_after_install_asks_at_a_terminal(
    home, gib, needs_files, monkeypatch, answer, written
) -> None:
    monkeypatch.setattr(sync_offer, "interactive", lambda: True)
    result = gib("install", str(needs_files), "--yes", "--sync", input=answer)
    assert result.exit_code == 0, result.output
    assert "MCP server 'files'" in result.output and "files-server" in result.output
    assert ("files" in _servers(home)) is written
