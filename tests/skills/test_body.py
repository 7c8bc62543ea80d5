"""Body: tool sections, parameter tables, command blocks, fences and line numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish.skills import fields as F
from gibberish.skills.body import parse_body
from gibberish.skills.model import ParameterType, PlaceholderKind, Profile, SkillDefinition
from gibberish.skills.parser import parse_skill_text
from tests.skills.fixtures.skillkit import HELLO_TOOL, assert_located, codes, front, only

PATH = Path("/skills/demo/SKILL.md")
# front() is 5 lines, then one blank line: the body starts on line 7.
BODY_LINE = 7


def parse(body: str, profile: Profile = Profile.GIBBERISH) -> SkillDefinition:
    return parse_skill_text(front() + "\n" + body, path=PATH, profile=profile)


def tool(name: str, params: str = "None.", command: str = "echo hi", desc: str = "Does it.") -> str:
    return (
        f"### {name}\n\n{desc}\n\n#### Parameters\n\n{params}\n\n"
        f"#### Command\n\n```bash\n{command}\n```\n\n"
    )


TABLE = "| Name | Type | Required | Description |\n|---|---|---|---|\n"


def test_a_simple_tool_with_line_numbers():
    body = tool("greet", TABLE + "| who | string | yes | Whom to greet |", "echo hello {{who}}")
    skill = parse(body)
    assert skill.diagnostics == ()
    (t,) = skill.tools
    assert t.name == "greet"
    assert t.description == "Does it."
    assert t.line == BODY_LINE
    (p,) = t.parameters
    assert (p.name, p.type, p.required, p.description) == ("who", "string", True, "Whom to greet")
    assert p.line == BODY_LINE + 8
    assert t.command is not None
    assert t.command.source == "echo hello {{who}}"
    assert t.command.line == BODY_LINE + 13


def test_description_is_the_first_paragraph_joined():
    body = "### t\n\nFirst line\nsecond line.\n\nNot this.\n\n#### Parameters\n\nNone.\n\n"
    body += "#### Command\n\n```\necho hi\n```\n"
    (t,) = parse(body).tools
    assert t.description == "First line second line."


def test_tool_without_description_is_a_warning():
    body = "### t\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```\necho hi\n```\n"
    skill = parse(body)
    assert_located(only(skill, "W-NO-TOOL-DESCRIPTION"), PATH, BODY_LINE)
    assert skill.ok


def test_heading_inside_a_code_block_is_not_a_tool():
    body = tool("real") + "#### Notes\n\n````markdown\n### fake\n```\nstill inside\n```\n````\n"
    skill = parse(body)
    assert [t.name for t in skill.tools] == ["real"]
    assert skill.diagnostics == ()


def test_tilde_fence_and_indented_fence():
    body = "### t\n\nX.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n  ~~~\n  echo hi\n  ~~~\n"
    skill = parse(body)
    assert skill.diagnostics == ()
    assert skill.tools[0].command is not None


def test_level_two_heading_ends_the_tool():
    body = "### t\n\nX.\n\n#### Parameters\n\nNone.\n\n## Notes\n\n#### Command\n\n```\nls\n```\n"
    skill = parse(body)
    assert_located(only(skill, "E-MISSING-COMMAND"), PATH, BODY_LINE)


def test_other_level_four_sections_are_ignored():
    body = tool("t") + "#### Examples\n\n```bash\nrm -rf /\n```\n"
    skill = parse(body)
    assert skill.diagnostics == ()
    assert skill.tools[0].command.source == "echo hi"


def test_closing_hashes_and_backticks_in_headings():
    body = tool("`one` ###").replace("### `one` ###", "### `one` ###")
    assert [t.name for t in parse(body).tools] == ["one"]


@pytest.mark.parametrize("bad", ["git-status", "GitStatus", "a" * 33, "two words", "é"])
def test_invalid_tool_names(bad):
    skill = parse(tool(bad) + tool("good"))
    assert_located(only(skill, "E-INVALID-TOOL-NAME"), PATH, BODY_LINE)
    assert [t.name for t in skill.tools] == ["good"]
    assert not skill.ok


def test_empty_tool_heading_is_an_invalid_name():
    skill = parse("###\n\nX.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```\nls\n```\n")
    assert "E-INVALID-TOOL-NAME" in codes(skill)
    assert "E-NO-TOOLS" not in codes(skill)


def test_duplicate_tools():
    first = tool("same")
    skill = parse(first + tool("same", command="echo second"))
    diag = only(skill, "E-DUP-TOOL")
    second_line = BODY_LINE + first.count("\n")
    assert_located(diag, PATH, second_line)
    assert f"line {BODY_LINE}" in diag.message
    assert [t.command.source for t in skill.tools] == ["echo hi"]


def test_no_tools_in_gibberish_profile():
    skill = parse("Some prose.\n\n## A section\n\nMore prose.\n")
    assert_located(only(skill, "E-NO-TOOLS"), PATH, BODY_LINE - 1)


def test_instruction_skill_in_agentskills_profile():
    body = "# How to review\n\n### Step 1: read\n\nRead the diff.\n\n```bash\ngit diff\n```\n"
    skill = parse(body, Profile.AGENTSKILLS)
    assert skill.diagnostics == ()
    assert skill.is_instruction_skill
    assert "Read the diff." in skill.body


def test_agentskills_profile_still_parses_real_tools():
    skill = parse("### Overview\n\nProse.\n\n" + tool("run_it"), Profile.AGENTSKILLS)
    assert [t.name for t in skill.tools] == ["run_it"]
    assert skill.diagnostics == ()


def test_agentskills_tool_with_a_bad_name_is_still_an_error():
    skill = parse(tool("Run-It"), Profile.AGENTSKILLS)
    assert "E-INVALID-TOOL-NAME" in codes(skill)


# --- parameters ---------------------------------------------------------------------------


def params_of(table: str, command: str = "echo {{a}}"):
    skill = parse(tool("t", table, command))
    return skill, (skill.tools[0].parameters if skill.tools else ())


def test_all_types_and_required_words():
    table = TABLE + "\n".join(
        [
            "| s | string | yes | text |",
            "| i | Integer | no | whole |",
            "| n | NUMBER | false | real |",
            "| b | boolean | true | flag |",
            "| a | array | No | list |",
        ]
    )
    skill, params = params_of(table, "echo {{s}} {{i}} {{n}} {{b:--b}} {{a}}")
    assert skill.diagnostics == ()
    assert [(p.name, p.type, p.required) for p in params] == [
        ("s", ParameterType.STRING, True),
        ("i", ParameterType.INTEGER, False),
        ("n", ParameterType.NUMBER, False),
        ("b", ParameterType.BOOLEAN, True),
        ("a", ParameterType.ARRAY, False),
    ]


def test_header_is_case_insensitive_and_columns_may_be_reordered():
    table = "| TYPE | name | Description | REQUIRED |\n| :--- | --- | --- | ---: |\n"
    table += "| integer | a | The a | no |"
    skill, params = params_of(table)
    assert skill.diagnostics == ()
    assert params[0].type is ParameterType.INTEGER


def test_table_without_outer_pipes():
    table = "Name | Type | Required | Description\n--- | --- | --- | ---\na | string | yes | x"
    skill, params = params_of(table)
    assert skill.diagnostics == ()
    assert params[0].name == "a"


@pytest.mark.parametrize("missing", ["Type", "Required", "Description", "Name"])
def test_missing_column(missing):
    columns = [c for c in ("Name", "Type", "Required", "Description") if c != missing]
    table = "| " + " | ".join(columns) + " |\n" + "|---" * len(columns) + "|\n"
    table += "| " + " | ".join("x" for _ in columns) + " |"
    skill, _ = params_of(table)
    diag = only(skill, "E-PARAM-COLUMNS")
    assert_located(diag, PATH, BODY_LINE + 6)
    assert missing in diag.message
    assert "E-UNKNOWN-PLACEHOLDER" not in codes(skill)


def test_missing_delimiter_row():
    skill, _ = params_of("| Name | Type | Required | Description |\n| a | string | yes | x |")
    assert_located(only(skill, "E-PARAM-TABLE"), PATH, BODY_LINE + 6)


@pytest.mark.parametrize("bad", ["str", "int", "list", "object", ""])
def test_unknown_type(bad):
    skill, params = params_of(TABLE + f"| a | {bad} | yes | x |")
    assert_located(only(skill, "E-INVALID-PARAM-TYPE"), PATH, BODY_LINE + 8)
    assert params == ()


@pytest.mark.parametrize("bad", ["maybe", "y", "1", "", "required"])
def test_bad_required_value(bad):
    skill, _ = params_of(TABLE + f"| a | string | {bad} | x |")
    assert_located(only(skill, "E-INVALID-REQUIRED"), PATH, BODY_LINE + 8)


@pytest.mark.parametrize("bad", ["1a", "a-b", "", "a b"])
def test_bad_parameter_name(bad):
    skill, _ = params_of(TABLE + f"| {bad} | string | yes | x |", "echo hi")
    assert_located(only(skill, "E-INVALID-PARAM-NAME"), PATH, BODY_LINE + 8)


def test_duplicate_parameter():
    skill, params = params_of(TABLE + "| a | string | yes | x |\n| a | integer | no | y |")
    diag = only(skill, "E-DUP-PARAM")
    assert_located(diag, PATH, BODY_LINE + 9)
    assert len(params) == 1


def test_escaped_pipe_in_a_cell():
    skill, params = params_of(TABLE + r"| a | string | yes | one \| two |")
    assert skill.diagnostics == ()
    assert params[0].description == "one | two"


def test_name_in_backticks():
    skill, params = params_of(TABLE + "| `a` | `string` | yes | x |")
    assert skill.diagnostics == ()
    assert params[0].name == "a"


def test_default_column():
    table = "| Name | Type | Required | Description | Default |\n|---|---|---|---|---|\n"
    table += "| a | integer | no | count | 5 |\n| b | string | no | label | - |"
    skill, params = params_of(table, "echo {{a}} {{b}}")
    assert skill.diagnostics == ()
    assert params[0].default == 5
    assert params[1].default is None


def test_default_in_description():
    skill, params = params_of(TABLE + "| a | integer | no | How many (default: 10). |")
    assert skill.diagnostics == ()
    assert params[0].default == 10


@pytest.mark.parametrize(
    ("ptype", "text", "expected"),
    [
        ("string", '"hello world"', "hello world"),
        ("string", "`.`", "."),
        ("number", "1.5", 1.5),
        ("boolean", "yes", True),
        ("array", "[a, 'b c']", ["a", "b c"]),
        ("array", "[]", []),
        ("array", "one", ["one"]),
    ],
)
def test_defaults_are_coerced(ptype, text, expected):
    command = "echo {{a:--a}}" if ptype == "boolean" else "echo {{a}}"
    skill, params = params_of(TABLE + f"| a | {ptype} | no | x (default: {text}) |", command)
    assert skill.diagnostics == ()
    assert params[0].default == expected


@pytest.mark.parametrize(
    ("ptype", "text"), [("integer", "ten"), ("boolean", "maybe"), ("number", "x")]
)
def test_bad_default_in_the_default_column(ptype, text):
    table = "| Name | Type | Required | Description | Default |\n|---|---|---|---|---|\n"
    skill, params = params_of(table + f"| a | {ptype} | no | x | {text} |")
    diag = only(skill, "E-INVALID-DEFAULT")
    assert_located(diag, PATH, BODY_LINE + 8)
    assert text in diag.message
    assert params == ()


@pytest.mark.parametrize(
    ("ptype", "text"), [("integer", "all"), ("boolean", "maybe"), ("number", "unlimited")]
)
def test_a_prose_default_that_is_no_value_of_the_type_is_prose(ptype, text):
    # `| lines | integer | no | Number of lines to read (default: all) |` once made every
    # tool of the skill unavailable (E-INVALID-DEFAULT)
    command = "echo {{a:--a}}" if ptype == "boolean" else "echo {{a}}"
    skill, params = params_of(TABLE + f"| a | {ptype} | no | x (default: {text}) |", command)
    assert skill.diagnostics == ()
    assert params[0].default is None


def test_conflicting_defaults_column_wins():
    table = "| Name | Type | Required | Description | Default |\n|---|---|---|---|---|\n"
    table += "| a | integer | no | count (default: 3) | 5 |"
    skill, params = params_of(table)
    assert_located(only(skill, "W-DEFAULT-CONFLICT"), PATH, BODY_LINE + 8)
    assert params[0].default == 5


def test_parameters_none():
    for word in ("None.", "none", "*None.*", "_None_"):
        skill = parse(tool("t", word))
        assert skill.diagnostics == (), word


def test_missing_parameters_section_is_a_warning():
    body = "### t\n\nX.\n\n#### Command\n\n```\nls\n```\n"
    skill = parse(body)
    assert_located(only(skill, "W-NO-PARAMETERS"), PATH, BODY_LINE)
    assert skill.ok


@pytest.mark.parametrize("text", ["", "This tool takes a query."])
def test_unrecognized_parameters_section(text):
    skill = parse(tool("t", text))
    assert_located(only(skill, "W-PARAMETERS-UNRECOGNIZED"), PATH, BODY_LINE + 4)


def test_duplicate_parameters_section():
    body = tool("t").replace("#### Command", "#### Parameters\n\nNone.\n\n#### Command")
    skill = parse(body)
    assert_located(only(skill, "E-DUP-SECTION"), PATH, BODY_LINE + 8)


# --- command ------------------------------------------------------------------------------


def test_missing_command_section():
    body = "### t\n\nX.\n\n#### Parameters\n\nNone.\n"
    skill = parse(body)
    assert_located(only(skill, "E-MISSING-COMMAND"), PATH, BODY_LINE)
    assert skill.tools[0].command is None


def test_command_section_without_a_code_block():
    body = "### t\n\nX.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n    ls -la\n"
    skill = parse(body)
    assert_located(only(skill, "E-MISSING-COMMAND"), PATH, BODY_LINE + 8)


@pytest.mark.parametrize("info", ["bash", "sh", "shell", "", "Bash title=x"])
def test_accepted_command_languages(info):
    body = f"### t\n\nX.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```{info}\nls\n```\n"
    assert parse(body).diagnostics == ()


def test_other_command_language_is_a_warning():
    body = "### t\n\nX.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```python\nls\n```\n"
    skill = parse(body)
    assert_located(only(skill, "W-COMMAND-LANGUAGE"), PATH, BODY_LINE + 10)
    assert skill.tools[0].command is not None


def test_only_the_first_code_block_is_the_command():
    body = tool("t") + "```bash\necho second\n```\n"
    skill = parse(body)
    assert skill.tools[0].command.source == "echo hi"
    assert_located(only(skill, "W-EXTRA-COMMAND"), PATH, BODY_LINE + 14)


def test_unterminated_code_block():
    body = "### t\n\nX.\n\n#### Parameters\n\nNone.\n\n#### Command\n\n```bash\nls\n"
    skill = parse(body)
    assert_located(only(skill, "E-UNTERMINATED-FENCE"), PATH, BODY_LINE + 10)
    assert skill.tools[0].command is None


def test_template_errors_point_into_the_code_block():
    skill = parse(tool("t", command="echo one\nls | wc -l"))
    diag = only(skill, "E-SHELL-PIPE")
    assert diag.file == str(PATH)
    assert diag.line == BODY_LINE + 12


def test_template_checked_against_parameters():
    skill = parse(tool("t", TABLE + "| a | string | yes | x |", "echo {{b}}"))
    assert "E-UNKNOWN-PLACEHOLDER" in codes(skill)
    assert "W-UNUSED-PARAMETER" in codes(skill)


def test_placeholder_kinds_reach_the_model():
    table = TABLE + "| staged | boolean | no | only staged |"
    skill = parse(tool("t", table, "git diff {{staged:--staged}}"))
    assert skill.diagnostics == ()
    ph = skill.tools[0].command.words[2].whole_placeholder
    assert ph is not None and ph.kind is PlaceholderKind.FLAG


def test_parse_body_directly():
    lines = ["### a", "", "Does a.", "", "#### Parameters", "", "None.", "", "#### Command"]
    lines += ["", "```", "echo a", "```"]
    tools, diags = parse_body("\n".join(lines), first_line=100, file="f")
    assert diags == []
    assert tools[0].line == 100
    assert tools[0].command.line == 111


def test_large_body_is_line_based_and_fast():
    body = "".join(tool(f"t{i}") for i in range(200)) + ("Prose line.\n" * 20000)
    skill = parse(body)
    assert len(skill.tools) == 200
    assert skill.diagnostics == ()


def test_body_is_kept():
    skill = parse(HELLO_TOOL)
    assert skill.body.startswith("### hello")


# --- control characters ---------------------------------------------


@pytest.mark.parametrize(
    ("body", "line", "char"),
    [
        (tool("t", desc="Lists files.\x1b[8m And deletes them."), BODY_LINE + 2, "U+001B (ESC)"),
        (tool("t", desc="Shows \u202edrowssap the file."), BODY_LINE + 2, "U+202E"),
        (
            tool("t", TABLE + "| who | string | yes | Whom \u2066to\u2069 greet |", "echo {{who}}"),
            BODY_LINE + 8,
            "U+2066 (LEFT-TO-RIGHT ISOLATE) and U+2069 (POP DIRECTIONAL ISOLATE)",
        ),
        (
            tool(
                "t",
                TABLE.replace("Description |", "Description | Default |").replace(
                    "|---|\n", "|---|---|\n"
                )
                + "| a | string | no | A | x\x9by |",
                "echo {{a}}",
            ),
            BODY_LINE + 8,
            "U+009B (CSI)",
        ),
        (tool("t", command="echo \x1b]0;title\x07"), BODY_LINE + 11, "U+001B (ESC) and U+0007"),
        (tool("t", command="echo 'a\u202eb'"), BODY_LINE + 11, "U+202E (RIGHT-TO-LEFT OVERRIDE)"),
        (tool("t", command="rm \\\n  \x7f-rf"), BODY_LINE + 12, "U+007F (DEL)"),
        ("### t\u2066\n\nDoes it.\n", BODY_LINE, "U+2066 (LEFT-TO-RIGHT ISOLATE)"),
        ("Prose before the tools\x08\x08.\n\n" + tool("t"), BODY_LINE, "U+0008 (BACKSPACE)"),
    ],
)
def test_control_and_bidi_characters_are_errors_with_their_line(body, line, char):
    skill = parse(body)
    diag = only(skill, "E-CONTROL-CHARACTER")
    assert_located(diag, PATH, line)
    assert char in diag.message
    assert not skill.ok


@pytest.mark.parametrize(
    "char",
    [chr(c) for c in (*range(0x09), 0x0B, 0x0C, *range(0x0E, 0x20), *range(0x7F, 0xA0))]
    + [*map(chr, range(0x202A, 0x202F)), "\u2066", "\u2069"],
)
def test_every_unsafe_character_is_flagged(char):
    # (A raw CR is a line end: CRLF and lone CR are normalised before anything else.)
    skill = parse(tool("t", desc=f"Does{char}it."))
    assert_located(only(skill, "E-CONTROL-CHARACTER"), PATH, BODY_LINE + 2)


@pytest.mark.parametrize("mark", ["\u200e", "\u200f", "\u061c"])
def test_weak_direction_marks_in_prose_are_fine(mark):
    """Right-to-left descriptions need them; they cannot reorder text like an override."""
    skill = parse(tool("t", desc=f"שלום{mark} world."))
    assert skill.diagnostics == ()


def test_tabs_are_fine():
    skill = parse(tool("t", desc="Does\tit.", command="echo\ta\tb"))
    assert skill.diagnostics == ()


def test_unicode_that_is_not_a_control_is_fine():
    skill = parse(tool("t", desc="Zeigt Größe — 日本語, עברית and العربية text. ✓"))
    assert skill.diagnostics == ()


def test_text_of_a_skill_with_control_characters_is_shown_escaped():
    body = tool(
        "t",
        TABLE + "| who | string | yes | Whom\x1b[8m |",
        "echo {{who}} \u202ex",
        desc="Lists\x1b[8m files.",
    )
    skill = parse(body)
    (t,) = skill.tools
    assert t.description == "Lists\\x1b[8m files."
    assert t.parameters[0].description == "Whom\\x1b[8m"
    assert t.command is not None and t.command.source == "echo {{who}} \\u202ex"
    assert "\x1b" not in skill.body and "\\x1b" in skill.body
    for d in skill.diagnostics:
        assert "\x1b" not in d.message and "\u202e" not in d.message


def test_names_in_messages_are_escaped():
    skill = parse("### Bad\x1b[8mName\n\nDoes it.\n\n#### Command\n\n```\nls\n```\n")
    assert len(skill.diagnostics) >= 3
    for d in skill.diagnostics:
        assert "\x1b" not in d.message, d.message
    assert any("\\x1b[8m" in d.message for d in skill.diagnostics)


def test_many_lines_with_control_characters_are_summarised():
    body = tool("t", desc="Does it.") + "".join(f"line {i}\x1b\n" for i in range(30))
    skill = parse(body)
    found = [d for d in skill.diagnostics if d.code == "E-CONTROL-CHARACTER"]
    assert len(found) == 21
    assert "10 more lines" in found[-1].message


def test_too_many_tools_is_one_error_at_the_first_tool_over_the_limit() -> None:
    body = "".join(tool(f"t{i}") for i in range(F.MAX_TOOLS + 3))
    skill = parse(body)
    over = only(skill, "E-TOO-MANY-TOOLS")
    first_over = BODY_LINE + body.split("\n").index(f"### t{F.MAX_TOOLS}")
    assert_located(over, PATH, first_over)
    assert str(F.MAX_TOOLS) in over.message and "Split" in over.message
    assert len(skill.tools) == F.MAX_TOOLS


def test_a_megabyte_of_headings_is_refused_without_reading_it_all() -> None:
    # 1 MiB of `###` lines once made `skills list` take 25 s and 1.9 GB: one tool per
    # line, four diagnostics each. Now the scan stops at the limit.
    body = "###\n" * (F.MAX_SKILL_FILE_BYTES // 4 - 100)
    skill = parse(body)
    assert "E-TOO-MANY-TOOLS" in codes(skill)
    assert len(skill.diagnostics) <= 4 * F.MAX_TOOLS + 5


def test_prose_headings_of_an_instruction_skill_are_not_counted_as_tools() -> None:
    body = "### A heading\n\nSome prose.\n\n" * (F.MAX_TOOLS + 50) + tool("real")
    skill = parse(body, Profile.AGENTSKILLS)
    assert "E-TOO-MANY-TOOLS" not in codes(skill)
    assert [t.name for t in skill.tools] == ["real"]


def test_the_command_default_wins_over_a_prose_default() -> None:
    # `(default: current)` beside `{{path:.}}` once ran `ls -la current`
    skill, params = params_of(
        TABLE + "| path | string | no | Directory to list (default: current) |",
        "ls -la {{path:.}}",
    )
    assert skill.diagnostics == ()
    assert params[0].default == "."


def test_the_default_column_still_wins_over_the_command_default_with_a_warning() -> None:
    table = "| Name | Type | Required | Description | Default |\n|---|---|---|---|---|\n"
    skill, params = params_of(table + "| path | string | no | x | src |", "ls {{path:.}}")
    assert codes(skill) == ["W-CONFLICTING-DEFAULT"]
    assert params[0].default == "src"


FILES_SKILL = """\
### read_file

Read a text file.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| path | string | yes | File to read |
| lines | integer | no | Number of lines to read (default: all) |

#### Command

```bash
head -n {{lines:1000000}} -- {{path}}
```

### list_directory

List a folder.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| path | string | no | Directory to list (default: current) |

#### Command

```bash
ls -la {{path:.}}
```
"""


def test_a_skill_written_like_the_specifications_files_skill_loads_and_renders() -> None:
    from gibberish.skills.render import render

    skill = parse(FILES_SKILL)
    assert skill.ok and skill.diagnostics == (), [d.format() for d in skill.diagnostics]
    read_file, list_directory = skill.tools
    assert read_file.parameters[1].default is None
    folder = Path("/skills/demo")
    assert render(read_file, {"path": "a.txt"}, skill_dir=folder) == [
        "head",
        "-n",
        "1000000",
        "--",
        "a.txt",
    ]
    assert render(list_directory, {}, skill_dir=folder) == ["ls", "-la", "."]


INSTRUCTIONS = """\
# PDF handling

### When to use

When the user hands you a PDF.

### Steps

1. Read it.
2. Summarise it.

### Notes

Be brief.
"""


def test_an_instruction_skill_under_the_gibberish_profile_is_one_error_with_a_hint():
    skill = parse(INSTRUCTIONS)
    assert codes(skill) == ["E-NO-TOOLS"]
    assert "--profile agentskills" in only(skill, "E-NO-TOOLS").message
    assert parse(INSTRUCTIONS, Profile.AGENTSKILLS).diagnostics == ()


def test_a_single_tool_missing_its_sections_still_says_what_is_missing():
    skill = parse("### git_status\n\nShow the status.\n")
    assert "E-MISSING-COMMAND" in codes(skill) and "E-NO-TOOLS" not in codes(skill)


@pytest.mark.parametrize(
    ("written", "low", "high"),
    [
        ("integer 1..1000", 1, 1000),
        ("integer 0..", 0, None),
        ("integer ..-1", None, -1),
        ("number 0..1", 0.0, 1.0),
        ("number -2.5..2.5", -2.5, 2.5),
        ("integer", None, None),
    ],
)
def test_a_numeric_type_may_say_its_range(written, low, high):
    skill, params = params_of(TABLE + f"| a | {written} | no | x |")
    assert skill.diagnostics == ()
    assert (params[0].minimum, params[0].maximum) == (low, high)


@pytest.mark.parametrize(
    "written", ["string 1..3", "integer 5..1", "integer 1.5..3", "integer ..", "integer 1-3"]
)
def test_a_range_that_cannot_be_is_an_error(written):
    skill, params = params_of(TABLE + f"| a | {written} | no | x |")
    diag = only(skill, "E-INVALID-PARAM-TYPE")
    assert "LOW..HIGH" in diag.message
    assert params == ()


def test_values_and_defaults_outside_the_range_are_refused():
    from gibberish.skills.render import RenderError, render

    skill, params = params_of(TABLE + "| n | integer 1..1000 | no | x (default: 10) |", "x {{n}}")
    assert params[0].to_dict()["minimum"] == 1 and params[0].to_dict()["maximum"] == 1000
    tool = skill.tools[0]
    folder = Path("/skills/demo")
    assert render(tool, {}, skill_dir=folder) == ["x", "10"]
    assert render(tool, {"n": "1000"}, skill_dir=folder) == ["x", "1000"]
    with pytest.raises(RenderError, match="between 1 and 1000, got -5"):
        render(tool, {"n": -5}, skill_dir=folder)
    table = "| Name | Type | Required | Description | Default |\n|---|---|---|---|---|\n"
    skill, _ = params_of(table + "| n | integer 1..9 | no | x | 0 |", "x {{n}}")
    assert "E-INVALID-DEFAULT" in codes(skill)
    skill, _ = params_of(TABLE + "| n | integer 1..9 | no | x |", "x {{n:0}}")
    assert "E-BAD-PLACEHOLDER-DEFAULT" in codes(skill)
