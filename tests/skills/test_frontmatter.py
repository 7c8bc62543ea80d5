"""Frontmatter: finding it, YAML errors and their lines, and every field's checks."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import msgspec.structs
import pytest
import yaml

from gibberish.skills import frontmatter
from gibberish.skills.model import Mode, Profile, Severity, SkillDefinition
from gibberish.skills.parser import parse_skill_text
from tests.skills.fixtures.skillkit import HELLO_TOOL, assert_located, codes, front, only

PATH = Path("/skills/demo/SKILL.md")


def parse(text: str, profile: Profile = Profile.GIBBERISH) -> SkillDefinition:
    return parse_skill_text(text, path=PATH, profile=profile)


def with_fields(extra: str, profile: Profile = Profile.GIBBERISH) -> SkillDefinition:
    return parse(front(extra=extra) + "\n" + HELLO_TOOL, profile)


def test_valid_frontmatter_has_no_diagnostics_and_defaults():
    skill = with_fields("")
    assert skill.diagnostics == ()
    assert skill.name == "demo"
    assert skill.version == "1.0.0"
    assert skill.description == "A skill used in tests."
    assert skill.modes == (Mode.GLOBAL,)
    assert skill.timeout_secs == 30
    assert (skill.read_only, skill.always_ask, skill.network) == (False, False, False)
    assert skill.author is None
    assert skill.secrets == ()


def test_c_loader_is_used_when_available():
    if hasattr(yaml, "CSafeLoader"):
        assert frontmatter._Loader is yaml.CSafeLoader
    else:  # pragma: no cover
        assert frontmatter._Loader is yaml.SafeLoader


# --- finding the block ---------------------------------------------------------------


def test_missing_frontmatter():
    skill = parse("# Just markdown\n\n" + HELLO_TOOL)
    assert_located(only(skill, "E-NO-FRONTMATTER"), PATH, 1)
    assert skill.name == "demo"
    assert not skill.ok


def test_frontmatter_after_a_blank_line_is_explained():
    skill = parse("\n" + front() + HELLO_TOOL)
    diag = only(skill, "E-NO-FRONTMATTER")
    assert "Line 2" in diag.message


def test_empty_file_has_no_frontmatter():
    assert codes(parse("")) == ["E-NO-FRONTMATTER"]


def test_unterminated_frontmatter():
    skill = parse("---\nname: demo\nversion: 1.0.0\ndescription: x\n\n" + HELLO_TOOL)
    assert_located(only(skill, "E-UNTERMINATED-FRONTMATTER"), PATH, 1)
    assert not skill.ok


def test_closing_line_must_be_exactly_three_dashes():
    text = "---\nname: demo\n----\nversion: 1.0.0\n"
    assert "E-UNTERMINATED-FRONTMATTER" in codes(parse(text))


# --- YAML ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("bad", "line"),
    [
        ("modes: [Dev, Global", 5),
        ("author: @me", 5),
        ("timeout: 10\n\tauthor: tab", 6),
        ("author: x\n  - y: [", 6),
    ],
)
def test_invalid_yaml_reports_the_skill_md_line(bad, line):
    text = f"---\nname: demo\nversion: 1.0.0\ndescription: d\n{bad}\n---\n\n" + HELLO_TOOL
    skill = parse(text)
    diag = only(skill, "E-YAML")
    assert_located(diag, PATH, line)
    assert diag.severity is Severity.ERROR
    assert "column" in diag.message


def test_yaml_error_line_after_unicode_line_separator():
    # YAML counts U+2028 as a line break, editors do not: the reported line must not move.
    text = '---\nname: demo\nversion: 1.0.0\ndescription: "a\u2028b"\nauthor: @me\n---\n'
    diag = only(parse(text + HELLO_TOOL), "E-YAML")
    assert diag.line == 5


def test_unquoted_colon_gets_one_lenient_retry():
    text = (
        "---\nname: demo\nversion: 1.0.0\n"
        "description: Use when: the user asks about it\n---\n\n" + HELLO_TOOL
    )
    skill = parse(text)
    diag = only(skill, "W-YAML-LENIENT")
    assert_located(diag, PATH, 4)
    assert diag.severity is Severity.WARNING
    assert skill.description == "Use when: the user asks about it"
    assert skill.ok


def test_lenient_retry_keeps_single_quotes_in_the_value():
    text = "---\nname: demo\nversion: 1.0.0\ndescription: It's: here\n---\n" + HELLO_TOOL
    assert parse(text).description == "It's: here"


def test_lenient_retry_that_still_fails_reports_the_original_error():
    text = (
        "---\nname: demo\nversion: 1.0.0\ndescription: Use when: asked\n"
        "modes: [Dev\n---\n" + HELLO_TOOL
    )
    skill = parse(text)
    assert "E-YAML" in codes(skill)
    assert "W-YAML-LENIENT" not in codes(skill)


def test_frontmatter_that_is_not_a_mapping():
    skill = parse("---\n- a\n- b\n---\n" + HELLO_TOOL)
    assert_located(only(skill, "E-FRONTMATTER-NOT-MAPPING"), PATH, 2)


def test_empty_frontmatter_lists_every_missing_field():
    skill = parse("---\n---\n" + HELLO_TOOL)
    assert codes(skill).count("E-MISSING-FIELD") == 3


def test_duplicate_field_is_an_error():
    skill = with_fields("read_only: false\nread_only: true")
    diag = only(skill, "E-DUPLICATE-FIELD")
    assert diag.line == 6
    assert "5, 6" in diag.message


# --- name ------------------------------------------------------------------------------


def test_missing_name_falls_back_to_the_folder():
    skill = parse("---\nversion: 1.0.0\ndescription: d\n---\n" + HELLO_TOOL)
    diag = only(skill, "E-MISSING-FIELD")
    assert "'name'" in diag.message
    assert skill.name == "demo"


@pytest.mark.parametrize(
    "bad", ["-git", "git-", "my--tool", "Git_Status", "a" * 65, "über", "'has space'", "42"]
)
def test_invalid_names(bad):
    skill = parse(front().replace("name: demo", f"name: {bad}") + HELLO_TOOL)
    assert_located(only(skill, "E-INVALID-NAME"), PATH, 2)
    assert skill.name == "demo"


@pytest.mark.parametrize("good", ["git-status", "a", "my-tool-v2", "a" * 64, "x1-2y"])
def test_valid_names(good):
    text = front(good) + HELLO_TOOL
    skill = parse_skill_text(text, path=Path(f"/s/{good}/SKILL.md"))
    assert skill.diagnostics == ()
    assert skill.name == good


def test_name_must_equal_the_folder_name():
    skill = parse(front("other") + HELLO_TOOL)
    diag = only(skill, "W-NAME-MISMATCH")
    assert_located(diag, PATH, 2)
    assert "'other'" in diag.message and "'demo'" in diag.message
    assert skill.name == "demo"


def test_expected_name_overrides_the_folder_name():
    skill = parse_skill_text(front("demo") + HELLO_TOOL, path=PATH, expected_name="renamed")
    assert "W-NAME-MISMATCH" in codes(skill)


# --- version ---------------------------------------------------------------------------


def test_missing_version_in_gibberish_profile():
    skill = parse(front(version=None) + HELLO_TOOL)
    assert "'version'" in only(skill, "E-MISSING-FIELD").message


def test_version_is_optional_in_agentskills_profile():
    skill = parse(front(version=None) + HELLO_TOOL, Profile.AGENTSKILLS)
    assert skill.diagnostics == ()


@pytest.mark.parametrize("bad", ["1.0", "1", "v1.0.0", "1.0.0.0", "01.0.0", "1.0.0-", "latest"])
def test_invalid_versions(bad):
    skill = parse(front(version=bad) + HELLO_TOOL)
    assert_located(only(skill, "E-INVALID-VERSION"), PATH, 3)
    assert skill.version == ""


def test_version_leading_v_gets_a_hint():
    assert (
        "drop the leading 'v'" in only(parse(front(version="v2.0.0")), "E-INVALID-VERSION").message
    )


@pytest.mark.parametrize("good", ["0.0.1", "1.0.0-beta.1", "2.10.3+build.5", "1.0.0-rc.1+sha.abc"])
def test_valid_versions(good):
    skill = parse(front(version=good) + HELLO_TOOL)
    assert skill.diagnostics == ()
    assert skill.version == good


# --- description -----------------------------------------------------------------------


def test_long_description_is_a_warning_and_truncated_in_gibberish_profile():
    long = "x" * 300
    text = front().replace("A skill used in tests.", long) + HELLO_TOOL
    skill = parse(text)
    assert_located(only(skill, "W-DESCRIPTION-LONG"), PATH, 4)
    assert skill.description == "x" * 256
    assert skill.ok


def test_description_of_256_chars_is_fine():
    text = front().replace("A skill used in tests.", "y" * 256) + HELLO_TOOL
    assert parse(text).diagnostics == ()


def test_too_long_description_is_an_error_in_agentskills_profile():
    text = front().replace("A skill used in tests.", "x" * 1025) + HELLO_TOOL
    assert_located(only(parse(text, Profile.AGENTSKILLS), "E-DESCRIPTION-TOO-LONG"), PATH, 4)


def test_description_of_1024_chars_is_fine_in_agentskills_profile():
    text = front().replace("A skill used in tests.", "x" * 1024) + HELLO_TOOL
    assert parse(text, Profile.AGENTSKILLS).diagnostics == ()


@pytest.mark.parametrize("bad", ['""', "42", "[a, b]", "~"])
def test_empty_or_non_text_description(bad):
    text = front().replace("A skill used in tests.", bad) + HELLO_TOOL
    assert_located(only(parse(text), "E-INVALID-FIELD"), PATH, 4)


def test_block_scalar_description_is_stripped():
    text = front().replace("A skill used in tests.", "|\n  Line one.\n  Line two.") + HELLO_TOOL
    assert parse(text).description == "Line one.\nLine two."


# --- typed optional fields --------------------------------------------------------------


def test_all_optional_fields():
    skill = with_fields(
        "author: Jane\nmodes: [Dev, Meeting]\nread_only: true\nalways_ask: true\n"
        "network: true\ntimeout: 120\nsecrets: [API_TOKEN, _X2]"
    )
    assert skill.diagnostics == ()
    assert skill.author == "Jane"
    assert skill.modes == (Mode.DEV, Mode.MEETING)
    assert (skill.read_only, skill.always_ask, skill.network) == (True, True, True)
    assert skill.timeout_secs == 120
    assert skill.secrets == ("API_TOKEN", "_X2")


def test_modes_as_a_bare_string():
    assert with_fields("modes: Writer").modes == (Mode.WRITER,)


def test_modes_are_case_insensitive_and_deduplicated():
    assert with_fields("modes: [dev, Dev, GLOBAL]").modes == (Mode.DEV, Mode.GLOBAL)


@pytest.mark.parametrize("bad", ["[Gaming]", "[]", "42", "[Dev, 3]"])
def test_invalid_modes(bad):
    skill = with_fields(f"modes: {bad}")
    assert_located(only(skill, "E-INVALID-FIELD"), PATH, 5)
    assert skill.modes == (Mode.GLOBAL,)


@pytest.mark.parametrize("field", ["read_only", "always_ask", "network"])
@pytest.mark.parametrize("bad", ['"yes"', '"true"', "1", "maybe"])
def test_booleans_must_be_yaml_booleans(field, bad):
    skill = with_fields(f"{field}: {bad}")
    diag = only(skill, "E-INVALID-FIELD")
    assert_located(diag, PATH, 5)
    assert field in diag.message
    assert getattr(skill, field) is False


@pytest.mark.parametrize("bad", ["0", "301", '"30"', "30.5", "true", "-5"])
def test_invalid_timeouts(bad):
    skill = with_fields(f"timeout: {bad}")
    assert_located(only(skill, "E-INVALID-FIELD"), PATH, 5)
    assert skill.timeout_secs == 30


@pytest.mark.parametrize("good", [1, 300])
def test_timeout_bounds(good):
    assert with_fields(f"timeout: {good}").timeout_secs == good


@pytest.mark.parametrize("bad", ["[api-token]", "[lower]", "[1ABC]", "[A, 3]", "{a: b}"])
def test_invalid_secrets(bad):
    skill = with_fields(f"secrets: {bad}")
    assert_located(only(skill, "E-INVALID-FIELD"), PATH, 5)
    assert skill.secrets == ()


def test_secret_as_a_bare_string():
    assert with_fields("secrets: GITHUB_TOKEN").secrets == ("GITHUB_TOKEN",)


def test_author_must_be_text():
    assert_located(only(with_fields("author: [a, b]"), "E-INVALID-FIELD"), PATH, 5)


def test_agent_skills_fields_are_kept_in_extra_in_both_profiles():
    extra = (
        "license: MIT\ncompatibility: Linux only\nmetadata:\n  owner: team\n"
        "allowed-tools: Bash(git:*) Read"
    )
    for profile in Profile:
        skill = with_fields(extra, profile)
        assert skill.diagnostics == (), profile
        assert skill.extra["license"] == "MIT"
        assert skill.extra["compatibility"] == "Linux only"
        assert dict(skill.extra["metadata"]) == {"owner": "team"}
        assert skill.extra["allowed-tools"] == "Bash(git:*) Read"


@pytest.mark.parametrize(
    "bad",
    ["license: [MIT]", "metadata: just text", "compatibility: " + "c" * 501, "allowed-tools: 3"],
)
def test_invalid_agent_skills_fields(bad):
    assert_located(only(with_fields(bad), "E-INVALID-FIELD"), PATH, 5)


def test_unknown_field_is_a_warning_with_its_line():
    skill = with_fields("colour: blue")
    diag = only(skill, "W-UNKNOWN-FIELD")
    assert_located(diag, PATH, 5)
    assert "colour" in diag.message
    assert skill.ok


def test_unknown_field_suggests_the_close_known_one():
    diag = only(with_fields("read-only: true"), "W-UNKNOWN-FIELD")
    assert "Did you mean 'read_only'" in diag.message


# --- line ends ---------------------------------------------------------------------------


def test_crlf_and_bom():
    text = "\ufeff" + (front(extra="timeout: 0") + "\n" + HELLO_TOOL).replace("\n", "\r\n")
    skill = parse(text)
    assert_located(only(skill, "E-INVALID-FIELD"), PATH, 5)
    assert skill.description == "A skill used in tests."
    assert skill.tools[0].line == 8
    assert skill.tools[0].command is not None
    assert skill.tools[0].command.source == "echo hello"


def test_metadata_is_kept_as_plain_data():
    skill = with_fields("metadata:\n  created: 2024-01-02\n  tags: [a, b]\n  n: 3")
    assert skill.diagnostics == ()
    assert dict(skill.extra["metadata"]) == {"created": "2024-01-02", "tags": ["a", "b"], "n": 3}


@pytest.mark.parametrize(
    "bad",
    [
        "metadata:\n  deep: " + "[" * 12 + "]" * 12,
        "metadata:\n  bin: !!binary aGVsbG8=",
    ],
)
def test_metadata_that_is_not_plain_data(bad):
    skill = with_fields(bad)
    assert_located(only(skill, "E-INVALID-FIELD"), PATH, 5)
    assert "metadata" not in skill.extra


# --- hostile YAML (aliases, anchors, deep nesting) -------------------------------------------------


def _alias_bomb(levels: int = 8, fanout: int = 10) -> str:
    """A few hundred bytes that expand to fanout**levels values ("billion laughs")."""
    lines = ["metadata:", "  l0: &l0 [x]"]
    for i in range(1, levels + 1):
        refs = ", ".join([f"*l{i - 1}"] * fanout)
        lines.append(f"  l{i}: &l{i} [{refs}]")
    return "\n".join(lines)


def test_alias_bomb_is_refused_quickly():
    bomb = _alias_bomb()
    assert len(bomb) < 700
    start = time.perf_counter()
    skill = with_fields(bomb)
    elapsed = time.perf_counter() - start
    assert elapsed < 0.5, f"took {elapsed:.2f} s"
    diag = only(skill, "E-YAML-ALIAS")
    assert_located(diag, PATH, 6)  # the first anchor, on the line after 'metadata:'
    assert "&name / *name" in diag.message
    assert not skill.ok and "metadata" not in skill.extra


@pytest.mark.parametrize(
    ("extra", "line"),
    [
        ("metadata: &a\n  self: *a", 5),
        ("modes: &m [Dev]\nlicense: *m", 5),
        ("license: MIT\nmetadata:\n  a: &x 1\n  b: *x", 7),
        ("metadata:\n  list: [a, *undefined]", 6),
        ("&k author: x", 5),
    ],
)
def test_anchors_and_aliases_are_refused(extra, line):
    skill = with_fields(extra)
    assert_located(only(skill, "E-YAML-ALIAS"), PATH, line)
    assert not skill.ok


def test_alias_in_a_value_retried_leniently_is_still_refused():
    skill = with_fields("author: Ann: the writer\nmetadata: {a: &x 1, b: *x}")
    assert_located(only(skill, "E-YAML-ALIAS"), PATH, 6)


@pytest.mark.parametrize(
    "text",
    [
        "description: 'Search & replace *.py files'",
        'description: "5 * 3 & more"',
        "description: a*b&c",
        "description: R&D *and* more",
    ],
)
def test_ampersand_and_star_in_text_are_fine(text):
    skill = parse(front().replace("description: A skill used in tests.", text) + "\n" + HELLO_TOOL)
    assert skill.diagnostics == (), [d.format() for d in skill.diagnostics]


def test_plain_data_gives_up_after_its_value_budget():
    """Defence in depth: shared sub-lists handed to check_fields by other code."""
    level: list = ["x"]
    for _ in range(8):
        level = [level] * 10  # 10**8 leaves, a few hundred objects
    start = time.perf_counter()
    front_, diags = frontmatter.check_fields(
        {"name": "demo", "version": "1.0.0", "description": "d", "metadata": {"k": level}},
        profile=Profile.GIBBERISH,
        file=str(PATH),
        expected_name="demo",
    )
    assert time.perf_counter() - start < 0.5
    assert [d.code for d in diags] == ["E-INVALID-FIELD"]
    assert "10,000 values" in diags[0].message
    assert "metadata" not in front_.extra


def test_plain_data_within_the_budget_is_kept():
    data = {f"k{i}": list(range(9)) for i in range(900)}  # 9,001 values
    plain = frontmatter._plain_data(
        data, depth=0, stack=set(), budget=frontmatter._Budget(frontmatter.MAX_PLAIN_VALUES)
    )
    assert plain == data


def test_deeply_nested_metadata_is_an_error_not_a_crash():
    """3,000 nested '[' used to raise RecursionError in _describe's repr.

    Who answers first depends on the PyYAML release (6.0.4 refuses such nesting itself,
    before gibberish's depth check), so only the behaviour is pinned: one E-YAML at the
    right line, a one-line message, no crash.
    """
    skill = with_fields("metadata: " + "[" * 3000 + "]" * 3000)
    diag = only(skill, "E-YAML")
    assert_located(diag, PATH, 5)
    assert diag.message and "\n" not in diag.message


def test_unclosed_deep_nesting_is_an_error():
    skill = with_fields("metadata: " + "[" * 3000)
    assert only(skill, "E-YAML").line == 5


@pytest.mark.parametrize(
    "extra",
    [
        "metadata:\n" + "".join("  " * (i + 1) + f"k{i}:\n" for i in range(40)) + "  " * 41 + "x",
        "metadata: " + "{a: " * 40 + "1" + "}" * 40,
    ],
)
def test_deep_block_and_flow_mappings_are_refused(extra):
    skill = with_fields(extra)
    assert "nested more than" in only(skill, "E-YAML").message


def test_nesting_at_the_limit_is_read():
    depth = frontmatter.MAX_YAML_DEPTH - 1  # the frontmatter mapping itself is a level
    skill = with_fields("license: " + "[" * depth + "]" * depth)
    assert "E-YAML" not in codes(skill)
    assert "E-INVALID-FIELD" in codes(skill)  # a list is not text; no recursion either


def test_nesting_that_crashed_the_c_loader_is_refused(tmp_path):
    """300,000 nested '[' (under 1 MiB) overflowed the C stack in PyYAML's C composer:
    a segmentation fault of the whole application. Checked in a child process."""
    script = tmp_path / "deep.py"
    script.write_text(
        "from pathlib import Path\n"
        "from gibberish.skills.parser import parse_skill_text\n"
        "n = 300_000\n"
        "text = '---\\nname: demo\\nmetadata: ' + '[' * n + ']' * n + '\\n---\\n'\n"
        "skill = parse_skill_text(text, path=Path('/s/demo/SKILL.md'))\n"
        "print(sorted({d.code for d in skill.diagnostics}))\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": root + os.pathsep + os.environ.get("PYTHONPATH", "")}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "E-YAML" in done.stdout


def test_recursion_error_in_pyyaml_is_an_e_yaml(monkeypatch):
    """The pure-Python loader recurses once per level: RecursionError becomes E-YAML."""
    monkeypatch.setattr(frontmatter, "_Loader", yaml.SafeLoader)
    monkeypatch.setattr(frontmatter, "MAX_YAML_DEPTH", 10**9)
    skill = with_fields("metadata: " + "[" * 5000 + "]" * 5000)
    diag = only(skill, "E-YAML")
    assert_located(diag, PATH, 2)
    assert "nested too deeply" in diag.message


def test_describe_is_bounded_for_deep_values():
    value: list = []
    for _ in range(5000):
        value = [value]
    text = frontmatter._describe(value)
    assert text.startswith("list [[[") and len(text) <= 60


# --- control characters in values ---------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "line", "char"),
    [
        ('author: "Ann\\e[8m hidden"', 5, "U+001B (ESC)"),
        ('author: "Ann\\x9b8m"', 5, "U+009B (CSI)"),
        ('author: "Ann\\u202eevil"', 5, "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        ('author: "line\\rover"', 5, "U+000D (CARRIAGE RETURN)"),
        ('author: "a\\N"', 5, "U+0085 (NEXT LINE)"),
        ('license: MIT\nmetadata:\n  note: "\\u2066x"', 6, "U+2066 (LEFT-TO-RIGHT ISOLATE)"),
        ('metadata:\n  "k\\u2067": x', 5, "U+2067 (RIGHT-TO-LEFT ISOLATE)"),
        ('allowed-tools: ["a", "\\x7f"]', 5, "U+007F (DEL)"),
    ],
)
def test_yaml_escapes_that_make_control_characters_are_errors(extra, line, char):
    skill = with_fields(extra)
    diag = only(skill, "E-CONTROL-CHARACTER")
    assert_located(diag, PATH, line)
    assert char in diag.message
    assert not skill.ok
    assert not any(c in (skill.author or "") for c in "\x1b\x9b\u202e\r\x85")


def test_escaped_control_character_in_the_description_is_shown_escaped():
    text = front().replace(
        "description: A skill used in tests.", 'description: "Lists files.\\e[8m rm -rf ~"'
    )
    skill = parse(text + "\n" + HELLO_TOOL)
    assert_located(only(skill, "E-CONTROL-CHARACTER"), PATH, 4)
    assert skill.description == "Lists files.\\x1b[8m rm -rf ~"


def test_newlines_and_tabs_in_values_are_fine():
    skill = with_fields(
        'author: "Ann\\tB"\nmetadata:\n  note: "two\\nlines"\n  more: |\n    a\n    b'
    )
    assert skill.diagnostics == ()
    assert skill.author == "Ann\tB"


def test_frontmatter_and_skill_defaults_are_the_same_values() -> None:
    Frontmatter = frontmatter.Frontmatter
    front = Frontmatter()
    skill = SkillDefinition(name="x", source_path=Path("/x/SKILL.md"))
    shared = {f.name for f in msgspec.structs.fields(Frontmatter)} & {
        f.name for f in msgspec.structs.fields(SkillDefinition)
    }
    assert {"timeout_secs", "modes", "read_only", "network"} <= shared
    for name in shared - {"name", "extra"}:
        assert getattr(front, name) == getattr(skill, name), name


def test_each_field_has_one_checker() -> None:
    checked = set(frontmatter._FIELD_CHECKS) | set(frontmatter._EXTRA_CHECKS)
    assert checked == set(frontmatter.KNOWN_FIELDS)
