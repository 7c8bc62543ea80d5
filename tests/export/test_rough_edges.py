"""The rough edges: compile takes install's sources and batches archives, SKILL.MD in any
case, real newlines in errors, and clear errors for missing or unwritable folders."""

from __future__ import annotations

from pathlib import Path

from tests.helpers.builders import loopback, zip_with
from tests.helpers.instruction_skills import instruction_text

MULTI = [
    ("coll/one/SKILL.MD", instruction_text("one").encode(), 0),
    ("coll/two/skill.md", instruction_text("two").encode(), 0),
]


def test_compile_batches_an_archive_one_toml_per_skill(tmp_path, gib) -> None:
    archive = zip_with(tmp_path / "multi.zip", MULTI)
    out = tmp_path / "out"
    out.mkdir()
    result = gib("compile", str(archive), "--out", str(out))
    assert result.exit_code == 0, result.output
    assert sorted(p.name for p in out.iterdir()) == ["one.toml", "two.toml"]
    assert "The one instructions" in (out / "one.toml").read_text()
    result = gib("compile", str(archive), "--stdout")
    assert result.exit_code == 2 and "holds 2 skills (one, two)" in result.output


def test_compile_takes_a_url_and_a_folder_with_skill_md_in_capitals(tmp_path, gib) -> None:
    one = zip_with(tmp_path / "one.zip", MULTI[:1])
    with loopback() as server:
        result = gib("compile", server.file("/one.zip", one.read_bytes()), "--stdout")
    assert result.exit_code == 0, result.output
    assert "The one instructions" in result.output
    folder = tmp_path / "caps"
    folder.mkdir()
    (folder / "SKILL.MD").write_text(instruction_text("caps"))
    result = gib("compile", str(folder), "--stdout")
    assert result.exit_code == 0 and "The caps instructions" in result.output, result.output


def test_install_finds_skill_md_in_any_case(tmp_path, gib, user_skills) -> None:
    result = gib("install", str(zip_with(tmp_path / "m.zip", MULTI)), "--yes", "--no-sync")
    assert result.exit_code == 0, result.output
    assert (user_skills / "one" / "SKILL.md").is_file()
    assert (user_skills / "two" / "SKILL.md").is_file()


def test_compile_zip_never_creates_a_missing_folder(tmp_path, gib) -> None:
    folder = tmp_path / "caps"
    folder.mkdir()
    (folder / "SKILL.md").write_text(instruction_text("caps"))
    missing = tmp_path / "missing"
    result = gib("compile", str(folder), "--zip", str(missing / "x.zip"))
    assert result.exit_code == 2 and "does not exist" in result.output
    assert not missing.exists()


def test_a_multi_line_install_error_prints_real_newlines(tmp_path, gib) -> None:
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "SKILL.md").write_text("---\nfoo: bar\n---\n\nNo name, no description.\n")
    result = gib("install", str(bad), "--yes")
    assert result.exit_code == 1
    assert "\\x0a" not in result.output
    assert "by the Agent Skills rules):\n  " in result.output  # what an instruction skill lacks
    assert "'name' is missing" in result.output and "'version'" not in result.output


def test_context_scan_of_a_missing_folder_is_an_error(tmp_path, gib) -> None:
    result = gib("context", "scan", str(tmp_path / "nonexistent"))
    assert result.exit_code == 2 and "does not exist" in result.output
    assert "No skills found" not in result.output


def test_stub_into_a_folder_that_cannot_be_made_is_a_sentence(tmp_path, gib) -> None:
    skills = tmp_path / "skills"
    (skills / "guide").mkdir(parents=True)
    (skills / "guide" / "SKILL.md").write_text(instruction_text("guide", "# Guide\n"))
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    targets = [blocker / "x"]
    if Path("/proc/1").is_dir():
        targets.append(Path("/proc/1/x"))
    for out in targets:
        result = gib("--skills-dir", str(skills), "stub", "guide", "--out", str(out))
        assert result.exit_code == 1, result.output
        assert f"cannot write the stub: {out}" in result.output
        assert "Errno" not in result.output and "E021" not in result.output
