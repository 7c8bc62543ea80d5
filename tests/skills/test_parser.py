"""parse_skill_file: reading the file safely; whatever the content, it never raises."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gibberish.skills import parser
from gibberish.skills.model import Profile, SkillDefinition, Trust
from gibberish.skills.parser import parse_skill_file, parse_skill_text
from tests.skills.fixtures.skillkit import (
    HELLO_TOOL,
    assert_located,
    codes,
    front,
    only,
    skill_text,
    write_skill,
)


def test_good_skill_file(tmp_path):
    path = write_skill(tmp_path, "demo", skill_text(extra="read_only: true"))
    skill = parse_skill_file(path, trust=Trust.BUNDLED)
    assert skill.ok and skill.diagnostics == ()
    assert skill.name == "demo"
    assert skill.source_path == path
    assert skill.directory == path.parent
    assert skill.trust is Trust.BUNDLED
    assert skill.profile is Profile.GIBBERISH
    assert skill.read_only is True
    assert [t.name for t in skill.tools] == ["hello"]


def test_profile_is_recorded(tmp_path):
    path = write_skill(tmp_path, "demo", front(version=None) + "Prose only.\n")
    skill = parse_skill_file(path, profile=Profile.AGENTSKILLS)
    assert skill.ok
    assert skill.profile is Profile.AGENTSKILLS
    assert skill.is_instruction_skill


def test_binary_file(tmp_path):
    path = write_skill(tmp_path, "demo", b"---\nname: demo\n\x00\x01\x02binary")
    skill = parse_skill_file(path)
    assert_located(only(skill, "E-BINARY-FILE"), path, 3)
    assert skill.name == "demo"
    assert not skill.ok


def test_non_utf8_file(tmp_path):
    data = skill_text().replace("A skill used", "A skill \u00e9 used").encode("latin-1")
    path = write_skill(tmp_path, "demo", data)
    skill = parse_skill_file(path)
    diag = only(skill, "E-NOT-UTF8")
    assert_located(diag, path, 4)
    assert "0xe9" in diag.message


def test_utf16_file(tmp_path):
    path = write_skill(tmp_path, "demo", skill_text().encode("utf-16"))
    assert_located(only(parse_skill_file(path), "E-NOT-UTF8"), path, 1)


def test_five_megabyte_file_is_refused_quickly(tmp_path):
    big = skill_text() + ("filler line of text\n" * 262144)
    path = write_skill(tmp_path, "demo", big)
    assert path.stat().st_size > 5_000_000
    start = time.perf_counter()
    skill = parse_skill_file(path)
    assert time.perf_counter() - start < 0.5
    diag = only(skill, "E-FILE-TOO-LARGE")
    assert_located(diag, path, None)
    assert skill.tools == ()


def test_size_limit_boundary(tmp_path):
    base = skill_text()
    pad = parser.F.MAX_SKILL_FILE_BYTES - len(base.encode())
    ok_path = write_skill(tmp_path, "demo", base + "x" * pad)
    assert ok_path.stat().st_size == parser.F.MAX_SKILL_FILE_BYTES
    assert "E-FILE-TOO-LARGE" not in codes(parse_skill_file(ok_path))
    big_path = write_skill(tmp_path / "b", "demo", base + "x" * (pad + 1))
    assert "E-FILE-TOO-LARGE" in codes(parse_skill_file(big_path))


def test_missing_file(tmp_path):
    path = tmp_path / "demo" / "SKILL.md"
    skill = parse_skill_file(path)
    assert_located(only(skill, "E-UNREADABLE"), path, None)


def test_skill_md_that_is_a_directory(tmp_path):
    path = tmp_path / "demo" / "SKILL.md"
    path.mkdir(parents=True)
    diag = only(parse_skill_file(path), "E-UNREADABLE")
    assert "directory" in diag.message


def test_unreadable_file(tmp_path, monkeypatch):
    # Tests run as root here, so chmod 000 would not stop the read: simulate it.
    path = write_skill(tmp_path, "demo")
    real_open = os.open

    def deny(p, *args, **kwargs):
        if os.fspath(p) == str(path):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(p, *args, **kwargs)

    monkeypatch.setattr(parser.os, "open", deny)
    diag = only(parse_skill_file(path), "E-UNREADABLE")
    assert_located(diag, path, None)
    assert "Permission denied" in diag.message


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_chmod_000_file(tmp_path):  # pragma: no cover - only as a normal user
    path = write_skill(tmp_path, "demo")
    path.chmod(0)
    try:
        assert "E-UNREADABLE" in codes(parse_skill_file(path))
    finally:
        path.chmod(0o644)


@pytest.mark.timeout(10)
def test_fifo_never_hangs(tmp_path):
    folder = tmp_path / "demo"
    folder.mkdir()
    os.mkfifo(folder / "SKILL.md")
    diag = only(parse_skill_file(folder / "SKILL.md"), "E-UNREADABLE")
    assert "regular file" in diag.message


def test_skill_md_symlink_out_of_the_folder(tmp_path):
    outside = tmp_path / "outside.md"
    outside.write_text(skill_text())
    folder = tmp_path / "skills" / "demo"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").symlink_to(outside)
    skill = parse_skill_file(folder / "SKILL.md")
    diag = only(skill, "E-PATH-ESCAPE")
    assert str(outside) in diag.message
    assert skill.tools == ()


def test_skill_md_symlink_inside_the_folder_is_fine(tmp_path):
    folder = tmp_path / "demo"
    folder.mkdir()
    (folder / "real.md").write_text(skill_text())
    (folder / "SKILL.md").symlink_to("real.md")
    assert parse_skill_file(folder / "SKILL.md").diagnostics == ()


def test_crlf_file_with_bom(tmp_path):
    text = "\ufeff" + (front() + "\n" + HELLO_TOOL + "### t2\n").replace("\n", "\r\n")
    path = write_skill(tmp_path, "demo", text)
    skill = parse_skill_file(path)
    diag = only(skill, "E-MISSING-COMMAND")
    assert_located(diag, path, 20)
    assert skill.tools[0].line == 7
    assert skill.tools[0].command.source == "echo hello"
    assert "\r" not in skill.body


def test_old_mac_line_ends(tmp_path):
    text = (front(extra="timeout: 0") + "\n" + HELLO_TOOL).replace("\n", "\r")
    skill = parse_skill_file(write_skill(tmp_path, "demo", text))
    assert only(skill, "E-INVALID-FIELD").line == 5
    assert skill.tools[0].line == 8


def test_diagnostics_are_sorted_by_line(tmp_path):
    text = front(extra="colour: x") + "\n" + HELLO_TOOL + "### Bad\n"
    skill = parse_skill_text(text, path=tmp_path / "demo" / "SKILL.md")
    lines = [d.line or 0 for d in skill.diagnostics]
    assert lines == sorted(lines)
    assert len(lines) >= 3


def test_expected_name_defaults_to_the_folder(tmp_path):
    skill = parse_skill_text(skill_text("demo"), path=tmp_path / "other" / "SKILL.md")
    assert skill.name == "other"
    assert "W-NAME-MISMATCH" in codes(skill)


def assert_wellformed(skill: SkillDefinition, path: Path) -> None:
    assert skill.name
    for d in skill.diagnostics:
        assert d.code and d.message and d.file == str(path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("-#|`~{}[]&*!,:\n\r \t\"'\\ab1_|.")), max_size=400))
def test_any_markdown_like_text_never_raises(text):
    path = Path("/s/demo/SKILL.md")
    for profile in Profile:
        assert_wellformed(parse_skill_text(text, path=path, profile=profile), path)
        assert_wellformed(parse_skill_text(front() + text, path=path, profile=profile), path)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_never_raise(tmp_path_factory, data):
    root = tmp_path_factory.mktemp("bytes")
    path = write_skill(root, "demo", data)
    assert_wellformed(parse_skill_file(path), path)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.sampled_from(
            [
                "name: demo", "version: 1.0.0", "description: d", "modes: &m [*m]",
                "metadata: &a {x: *a}", "timeout: 1e3", "secrets: [A, [B]]", "a: b: c",
                "  - x", "? [a]", ": v", "read_only: !!str true", "x: !!python/object {}",
                "license: 2024-01-01", "description: |", "  text: here", "&x y: *x",
            ]
        ),
        max_size=10,
    )
)  # fmt: skip
def test_any_yaml_like_frontmatter_never_raises(lines):
    path = Path("/s/demo/SKILL.md")
    text = "---\n" + "\n".join(lines) + "\n---\n### t\n"
    skill = parse_skill_text(text, path=path)
    assert_wellformed(skill, path)
    assert skill == parse_skill_text(text, path=path)  # comparable: the library relies on it


# --- source_sha256  ---------------------------------------------------


def test_source_sha256_is_the_digest_of_the_exact_file_bytes(tmp_path):
    raw = ("\ufeff" + skill_text()).replace("\n", "\r\n").encode("utf-8")
    path = write_skill(tmp_path, "demo", raw)
    skill = parse_skill_file(path)
    assert skill.ok
    assert skill.source_sha256 == hashlib.sha256(raw).hexdigest()
    # Not the digest of the normalised text the parser worked on.
    assert skill.source_sha256 != hashlib.sha256(skill_text().encode()).hexdigest()


def test_source_sha256_of_parse_skill_bytes_and_text(tmp_path):
    text = skill_text()
    path = tmp_path / "demo" / "SKILL.md"
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert parser.parse_skill_bytes(text.encode(), path=path).source_sha256 == digest
    assert parse_skill_text(text, path=path).source_sha256 == digest
    edited = parse_skill_text(text + "\n", path=path)
    assert edited.source_sha256 != digest
    assert edited != parse_skill_text(text, path=path)


@pytest.mark.parametrize(
    "raw", [b"\xff\xfe---\n", b"---\nname: demo\x00\n", b"---\nname: d\xe9mo\n---\n"]
)
def test_source_sha256_is_set_for_files_that_do_not_decode(tmp_path, raw):
    skill = parse_skill_file(write_skill(tmp_path, "demo", raw))
    assert not skill.ok
    assert skill.source_sha256 == hashlib.sha256(raw).hexdigest()


def test_source_sha256_is_empty_when_nothing_was_read(tmp_path):
    assert parse_skill_file(tmp_path / "demo" / "SKILL.md").source_sha256 == ""


# --- a parser bug never escapes -------------------------------------------------------


def test_an_exception_while_parsing_becomes_e_internal(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise RecursionError("maximum recursion depth exceeded")

    monkeypatch.setattr(parser, "parse_body", broken)
    path = write_skill(tmp_path, "demo")
    skill = parse_skill_file(path)
    diag = only(skill, "E-INTERNAL")
    assert diag.message == (
        "gibberish could not read this skill: RecursionError: maximum recursion depth "
        "exceeded; please report it."
    )
    assert diag.file == str(path)
    assert skill.name == "demo" and not skill.ok
    assert skill.source_sha256 == hashlib.sha256(path.read_bytes()).hexdigest()


def test_deeply_nested_metadata_does_not_raise(tmp_path):
    text = front(extra="metadata: " + "[" * 3000 + "]" * 3000) + "\n" + HELLO_TOOL
    skill = parse_skill_file(write_skill(tmp_path, "demo", text))
    assert codes(skill) == ["E-YAML"]


# --- control characters ---------------------------------------------------------------


def test_raw_escape_in_the_frontmatter_is_a_control_character_error(tmp_path):
    text = front().replace("A skill used in tests.", "Lists files.\x1b[8m and more") + HELLO_TOOL
    path = write_skill(tmp_path, "demo", text)
    skill = parse_skill_file(path)
    assert_located(only(skill, "E-CONTROL-CHARACTER"), path, 4)
    assert not skill.ok


def test_raw_bidi_override_in_the_description_is_an_error_and_shown_escaped(tmp_path):
    text = front().replace("A skill used in tests.", "Safe \u202eelif eht eteled") + HELLO_TOOL
    path = write_skill(tmp_path, "demo", text)
    skill = parse_skill_file(path)
    assert codes(skill) == ["E-CONTROL-CHARACTER"]
    assert_located(skill.diagnostics[0], path, 4)
    assert skill.description == "Safe \\u202eelif eht eteled"


def test_control_character_in_a_crlf_file_is_on_the_editor_line(tmp_path):
    text = (skill_text() + "\nMore\x9b prose.\n").replace("\n", "\r\n")
    path = write_skill(tmp_path, "demo", text)
    assert_located(only(parse_skill_file(path), "E-CONTROL-CHARACTER"), path, 21)


def test_folder_name_with_control_characters_is_escaped(tmp_path):
    path = write_skill(tmp_path, "demo\x1b[8m", skill_text("demo"))
    skill = parse_skill_file(path)
    assert skill.name == "demo\\x1b[8m"
    assert "E-CONTROL-CHARACTER" in codes(skill) and not skill.ok
    for d in skill.diagnostics:
        assert "\x1b" not in d.message and "\x1b" not in (d.file or "")
