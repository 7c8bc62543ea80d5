"""Rendering a template with arguments into an argv (docs/adr/0007-placeholders-and-values.md): each placeholder form
for each type, absent values, defaults, type errors, URL encoding, the injection guard,
NUL bytes, ``./`` programs and ``~/``."""

from __future__ import annotations

from pathlib import Path

import pytest

from gibberish.skills.model import (
    CommandTemplate,
    Literal,
    ParameterDefinition,
    ParameterType,
    Placeholder,
    PlaceholderKind,
    TemplateWord,
    ToolDefinition,
)
from gibberish.skills.render import RenderError, coerce_value, render
from gibberish.skills.templates import parse_template

P = ParameterDefinition
T = ParameterType
SKILL = Path("/skills/demo")
HOME = Path("/home/ada")


def tool(source: str, *params: ParameterDefinition) -> ToolDefinition:
    template, diags = parse_template(source)
    assert template is not None, [d.format() for d in diags]
    return ToolDefinition("demo", "A demo tool.", tuple(params), template)


def run(source: str, args: dict[str, object], *params: ParameterDefinition) -> list[str]:
    return render(tool(source, *params), args, skill_dir=SKILL, home=HOME)


def refused(source: str, args: dict[str, object], *params: ParameterDefinition) -> RenderError:
    with pytest.raises(RenderError) as info:
        run(source, args, *params)
    return info.value


def test_spec_example() -> None:
    argv = run("git log -n {{count}} --oneline", {"count": 5}, P("count", T.INTEGER, True))
    assert argv == ["git", "log", "-n", "5", "--oneline"]


@pytest.mark.parametrize(
    "value",
    ["two words", 'it\'s "quoted"', "$HOME", "*.txt", "a; rm -rf /", "~/x", "`id`", "", " "],
)
def test_value_is_one_argument_never_interpreted(value: str) -> None:
    argv = run("echo {{text}} end", {"text": value}, P("text", T.STRING, True))
    assert argv == ["echo", value, "end"]


# ---------------------------------------------------------------------------------------
# {{name}} for each type


@pytest.mark.parametrize(
    ("ptype", "value", "expected"),
    [
        (T.STRING, "hello", "hello"),
        (T.STRING, 42, "42"),
        (T.STRING, 2.5, "2.5"),
        (T.INTEGER, 5, "5"),
        (T.INTEGER, "12", "12"),
        (T.INTEGER, " -3 ", "-3"),
        (T.INTEGER, 7.0, "7"),
        (T.NUMBER, 2.5, "2.5"),
        (T.NUMBER, "0.25", "0.25"),
        (T.NUMBER, 3, "3"),
        (T.NUMBER, "1e3", "1000.0"),
        (T.BOOLEAN, True, "true"),
        (T.BOOLEAN, False, "false"),
        (T.BOOLEAN, "yes", "true"),
        (T.BOOLEAN, "NO", "false"),
        (T.BOOLEAN, "1", "true"),
        (T.BOOLEAN, 0, "false"),
    ],
)
def test_value_placeholder(ptype: T, value: object, expected: str) -> None:
    assert run("x {{v}}", {"v": value}, P("v", ptype, True)) == ["x", expected]


def test_array_whole_word_gives_one_argument_per_item() -> None:
    argv = run("x {{files}} end", {"files": ["a b", "c", 3]}, P("files", T.ARRAY, True))
    assert argv == ["x", "a b", "c", "3", "end"]


def test_empty_array_whole_word_gives_nothing() -> None:
    assert run("x {{files}} end", {"files": []}, P("files", T.ARRAY, True)) == ["x", "end"]


def test_array_inside_longer_word_is_joined_with_spaces() -> None:
    argv = run("x --tags={{tags}}", {"tags": ["a", "b c"]}, P("tags", T.ARRAY, True))
    assert argv == ["x", "--tags=a b c"]


def test_tuple_is_an_array() -> None:
    assert run("x {{v}}", {"v": ("a", "b")}, P("v", T.ARRAY, True)) == ["x", "a", "b"]


def test_placeholders_inside_a_word() -> None:
    argv = run(
        "ffmpeg -vf scale={{w}}:{{h}} out-{{name}}.mp4",
        {"w": 1280, "h": -2, "name": "clip"},
        P("w", T.INTEGER, True),
        P("h", T.INTEGER, True),
        P("name", T.STRING, True),
    )
    assert argv == ["ffmpeg", "-vf", "scale=1280:-2", "out-clip.mp4"]


# ---------------------------------------------------------------------------------------
# {{name:default}}


@pytest.mark.parametrize(
    ("ptype", "default", "expected"),
    [
        (T.STRING, "some text", "some text"),
        (T.INTEGER, "10", "10"),
        (T.NUMBER, "0.5", "0.5"),
        (T.BOOLEAN, "yes", "true"),
        (T.ARRAY, "one item", "one item"),
    ],
)
def test_default_when_absent(ptype: T, default: str, expected: str) -> None:
    source = f"x {{{{v:{default}}}}}"
    assert run(source, {}, P("v", ptype, False)) == ["x", expected]


def test_default_is_replaced_by_the_value() -> None:
    assert run("x {{n:10}}", {"n": 3}, P("n", T.INTEGER, False)) == ["x", "3"]


def test_empty_default() -> None:
    assert run("x {{v:}} y", {}, P("v", T.STRING, False)) == ["x", "", "y"]


def test_default_inside_a_word() -> None:
    assert run("x --n={{n:10}}", {}, P("n", T.INTEGER, False)) == ["x", "--n=10"]


def test_table_default_applies_when_absent() -> None:
    params = (P("n", T.INTEGER, False, default=20),)
    assert run("x -n {{n}}", {}, *params) == ["x", "-n", "20"]
    assert run("x -n {{n}}", {"n": 3}, *params) == ["x", "-n", "3"]


def test_table_default_wins_over_placeholder_default() -> None:
    assert run("x {{n:10}}", {}, P("n", T.INTEGER, False, default=20)) == ["x", "20"]


def test_none_means_absent() -> None:
    params = (P("n", T.INTEGER, False, default=20),)
    assert run("x {{n}}", {"n": None}, *params) == ["x", "20"]


# ---------------------------------------------------------------------------------------
# {{name:--flag}}


@pytest.mark.parametrize(
    ("value", "expected"), [(True, ["--verbose"]), (False, []), ("yes", ["--verbose"])]
)
def test_boolean_flag(value: object, expected: list[str]) -> None:
    argv = run("x {{v:--verbose}} end", {"v": value}, P("v", T.BOOLEAN, False))
    assert argv == ["x", *expected, "end"]


def test_boolean_flag_absent() -> None:
    assert run("x {{v:-v}} end", {}, P("v", T.BOOLEAN, False)) == ["x", "end"]


@pytest.mark.parametrize(
    ("ptype", "value", "expected"),
    [
        (T.STRING, "a b", ["--name", "a b"]),
        (T.INTEGER, 5, ["--name", "5"]),
        (T.NUMBER, 1.5, ["--name", "1.5"]),
        (T.ARRAY, ["a", "b"], ["--name", "a", "--name", "b"]),
    ],
)
def test_value_flag(ptype: T, value: object, expected: list[str]) -> None:
    argv = run("x {{v:--name}} end", {"v": value}, P("v", ptype, False))
    assert argv == ["x", *expected, "end"]


@pytest.mark.parametrize("ptype", [T.STRING, T.INTEGER, T.NUMBER, T.ARRAY])
def test_value_flag_absent(ptype: T) -> None:
    assert run("x {{v:-n}} end", {}, P("v", ptype, False)) == ["x", "end"]


def test_short_flag() -> None:
    assert run("head {{n:-n}}", {"n": 3}, P("n", T.INTEGER, False)) == ["head", "-n", "3"]


# ---------------------------------------------------------------------------------------
# {{name:--flag=}}


@pytest.mark.parametrize(
    ("ptype", "value", "expected"),
    [
        (T.STRING, "a b", ["--model=a b"]),
        (T.INTEGER, 5, ["--model=5"]),
        (T.NUMBER, 0.5, ["--model=0.5"]),
        (T.ARRAY, ["a", "b"], ["--model=a", "--model=b"]),
        (T.STRING, "-dash", ["--model=-dash"]),  # not a whole argument: allowed
    ],
)
def test_flag_equals(ptype: T, value: object, expected: list[str]) -> None:
    argv = run("x {{v:--model=}} end", {"v": value}, P("v", ptype, False))
    assert argv == ["x", *expected, "end"]


@pytest.mark.parametrize("ptype", [T.STRING, T.INTEGER, T.NUMBER, T.ARRAY])
def test_flag_equals_absent(ptype: T) -> None:
    assert run("x {{v:--model=}} end", {}, P("v", ptype, False)) == ["x", "end"]


# ---------------------------------------------------------------------------------------
# Absent optional values remove their word, and only it


def test_absent_optional_removes_only_its_word() -> None:
    params = (P("name", T.STRING, False), P("keep", T.STRING, True))
    argv = run("x --name={{name}} {{keep}} tail", {"keep": "k"}, *params)
    assert argv == ["x", "k", "tail"]


def test_absent_optional_whole_word_removed() -> None:
    argv = run("x -- {{path}} tail", {}, P("path", T.STRING, False))
    assert argv == ["x", "--", "tail"]


def test_word_with_two_placeholders_removed_if_either_absent() -> None:
    params = (P("a", T.STRING, False), P("b", T.STRING, False))
    assert run("x {{a}}:{{b}} y", {"a": "1"}, *params) == ["x", "y"]
    assert run("x {{a}}:{{b}} y", {"a": "1", "b": "2"}, *params) == ["x", "1:2", "y"]


# ---------------------------------------------------------------------------------------
# Required, unknown, and type errors (each names the parameter)


def test_missing_required() -> None:
    error = refused("x {{query}}", {}, P("query", T.STRING, True, "What to look for."))
    assert error.parameter == "query"
    assert "Missing required parameter 'query'" in error.message


def test_missing_required_even_with_a_placeholder_default() -> None:
    assert refused("x {{n:5}}", {}, P("n", T.INTEGER, True)).parameter == "n"


def test_unknown_argument_lists_the_parameters() -> None:
    error = refused("x {{a}} {{b}}", {"c": 1}, P("a", T.STRING, False), P("b", T.STRING, False))
    assert error.parameter == "c"
    assert "'c'" in error.message and "a, b" in error.message


def test_unknown_argument_for_a_tool_without_parameters() -> None:
    assert "none" in refused("ls", {"x": 1}).message


@pytest.mark.parametrize(
    ("ptype", "value", "expected_words"),
    [
        (T.INTEGER, 5.5, "integer"),
        (T.INTEGER, True, "integer"),
        (T.INTEGER, "five", "integer"),
        (T.INTEGER, "5.0", "integer"),
        (T.INTEGER, [5], "integer"),
        (T.NUMBER, "nan", "number"),
        (T.NUMBER, float("nan"), "number"),
        (T.NUMBER, float("inf"), "number"),
        (T.NUMBER, "1e999", "number"),
        (T.NUMBER, True, "number"),
        (T.NUMBER, "12abc", "number"),
        (T.BOOLEAN, "maybe", "boolean"),
        (T.BOOLEAN, 2, "boolean"),
        (T.BOOLEAN, [True], "boolean"),
        (T.ARRAY, "a b", "never split"),
        (T.ARRAY, {"a": 1}, "list"),
        (T.ARRAY, ["ok", {"a": 1}], "item 1"),
        (T.ARRAY, ["ok", None], "item 1"),
        (T.ARRAY, [True], "item 0"),
        (T.STRING, True, "text"),
        (T.STRING, ["a"], "text"),
        (T.STRING, {"a": 1}, "text"),
    ],
)
def test_type_errors_name_the_parameter(ptype: T, value: object, expected_words: str) -> None:
    param = P("my_param", ptype, True)
    with pytest.raises(RenderError) as info:
        coerce_value(param, value)
    assert info.value.parameter == "my_param"
    assert "my_param" in info.value.message
    assert expected_words in info.value.message
    with pytest.raises(RenderError):
        run("x {{my_param}}", {"my_param": value}, param)


def test_coerce_value_canonical_forms() -> None:
    assert coerce_value(P("v", T.INTEGER, True), "007") == 7
    assert coerce_value(P("v", T.NUMBER, True), "-2.5") == -2.5
    assert coerce_value(P("v", T.NUMBER, True), ".5") == 0.5
    assert coerce_value(P("v", T.BOOLEAN, True), " True ") is True
    assert coerce_value(P("v", T.ARRAY, True), ("a", 1, 2.5)) == ["a", "1", "2.5"]
    assert coerce_value(P("v", T.STRING, True), 10) == "10"


def test_invalid_table_default_is_reported_as_the_skills_fault() -> None:
    error = refused("x {{n}}", {}, P("n", T.INTEGER, False, default="many"))
    assert error.parameter == "n" and "default" in error.message


# ---------------------------------------------------------------------------------------
# URL query encoding


def test_url_query_values_are_percent_encoded() -> None:
    argv = run(
        'curl "https://api.com/search?q={{query}}&n={{limit}}"',
        {"query": "rust lang", "limit": 5},
        P("query", T.STRING, True),
        P("limit", T.INTEGER, True),
    )
    assert argv == ["curl", "https://api.com/search?q=rust%20lang&n=5"]


def test_url_query_encodes_reserved_characters_and_unicode() -> None:
    argv = run("open 'https://x.org/?q={{q}}'", {"q": "a&b=c/d?é#"}, P("q", T.STRING, True))
    assert argv == ["open", "https://x.org/?q=a%26b%3Dc%2Fd%3F%C3%A9%23"]


def test_url_path_value_is_encoded_as_one_segment() -> None:
    argv = run(
        "open 'https://x.org/{{user}}/?q={{q}}'",
        {"user": "a b/../admin?x#y", "q": "c d"},
        P("user", T.STRING, True),
        P("q", T.STRING, True),
    )
    assert argv == ["open", "https://x.org/a%20b%2F..%2Fadmin%3Fx%23y/?q=c%20d"]


@pytest.mark.parametrize(
    ("value", "segment"), [("..", "%2E%2E"), (".", "%2E"), ("...", "%2E%2E%2E")]
)
def test_url_path_value_cannot_be_a_dot_segment(value: str, segment: str) -> None:
    argv = run("curl 'https://x.org/api/{{v}}/x'", {"v": value}, P("v", T.STRING, True))
    assert argv == ["curl", f"https://x.org/api/{segment}/x"]


def test_url_path_value_with_dots_inside_is_kept() -> None:
    argv = run("curl 'https://x.org/{{v}}.json'", {"v": "a.b"}, P("v", T.STRING, True))
    assert argv == ["curl", "https://x.org/a.b.json"]


def test_url_inside_a_longer_word_is_encoded() -> None:
    argv = run(
        "curl '--url=https://x.org/s/{{p}}?q={{q}}'",
        {"p": "a/b", "q": "x&y=z"},
        P("p", T.STRING, True),
        P("q", T.STRING, True),
    )
    assert argv == ["curl", "--url=https://x.org/s/a%2Fb?q=x%26y%3Dz"]


def test_url_fragment_is_encoded() -> None:
    argv = run("open 'https://x.org/p#{{v}}'", {"v": "a b&c"}, P("v", T.STRING, True))
    assert argv == ["open", "https://x.org/p#a%20b%26c"]


def test_value_before_a_url_is_not_encoded() -> None:
    argv = run("echo '{{v}} https://x.org/'", {"v": "a b"}, P("v", T.STRING, True))
    assert argv == ["echo", "a b https://x.org/"]


def test_url_host_placeholder_built_by_hand_is_refused() -> None:
    word = TemplateWord((Literal("https://"), Placeholder("h"), Literal("/x")))
    template = CommandTemplate("curl https://{{h}}/x", (TemplateWord((Literal("curl"),)), word))
    t = ToolDefinition("t", "d", (P("h", T.STRING, True),), template)
    with pytest.raises(RenderError) as info:
        render(t, {"h": "evil.example#"}, skill_dir=SKILL)
    assert info.value.parameter == "h" and "host" in info.value.message


def test_url_query_array_joined_then_encoded() -> None:
    argv = run("open 'https://x.org/?q={{q}}'", {"q": ["a", "b"]}, P("q", T.ARRAY, True))
    assert argv == ["open", "https://x.org/?q=a%20b"]


def test_url_query_default_is_encoded_too() -> None:
    argv = run("open 'https://x.org/?q={{q:hello world}}'", {}, P("q", T.STRING, False))
    assert argv == ["open", "https://x.org/?q=hello%20world"]


# ---------------------------------------------------------------------------------------
# Argument injection guard


def test_leading_dash_value_refused() -> None:
    error = refused("rm {{path}}", {"path": "-rf"}, P("path", T.STRING, True))
    assert error.parameter == "path"
    assert "'-'" in error.message and "`--`" in error.message and "{{path}}" in error.message


def test_leading_dash_array_item_refused() -> None:
    error = refused("x {{files}}", {"files": ["ok", "--all"]}, P("files", T.ARRAY, True))
    assert error.parameter == "files"


def test_leading_dash_after_value_flag_refused() -> None:
    assert refused("x {{v:--name}}", {"v": "-x"}, P("v", T.STRING, False)).parameter == "v"
    assert refused("x {{v:--tag}}", {"v": ["-x"]}, P("v", T.ARRAY, False)).parameter == "v"


def test_leading_dash_at_start_of_longer_word_refused() -> None:
    assert refused("x {{v}}.txt", {"v": "-x"}, P("v", T.STRING, True)).parameter == "v"


def test_leading_dash_allowed_after_literal_double_dash() -> None:
    params = (P("path", T.STRING, True), P("files", T.ARRAY, True))
    argv = run("rm -- {{path}} {{files}}", {"path": "-rf", "files": ["-a"]}, *params)
    assert argv == ["rm", "--", "-rf", "-a"]


def test_double_dash_after_the_placeholder_does_not_help() -> None:
    assert refused("x {{v}} --", {"v": "-x"}, P("v", T.STRING, True)).parameter == "v"


def test_quoted_double_dash_counts_as_literal() -> None:
    assert run("x '--' {{v}}", {"v": "-x"}, P("v", T.STRING, True)) == ["x", "--", "-x"]


def test_dash_inside_a_longer_word_is_fine() -> None:
    assert run("x --name={{v}}", {"v": "-x"}, P("v", T.STRING, True)) == ["x", "--name=-x"]


def test_negative_numbers_are_not_options() -> None:
    assert run("x {{n}}", {"n": -5}, P("n", T.INTEGER, True)) == ["x", "-5"]
    assert run("x {{n}}", {"n": "-0.5"}, P("n", T.NUMBER, True)) == ["x", "-0.5"]


@pytest.mark.parametrize(
    ("source", "args"),
    [
        ("rm {{n}}{{s}}", {"n": -1, "s": "rf"}),  # a number in front turned the check off
        ("rm {{n}}{{s}}", {"n": -1}),  # with the author's default after it
        ("rm {{n}}x", {"n": -1}),
        ("rm {{s}}-rf", {"s": ""}),  # an empty value leaves the template's dash in front
        ("rm {{s}}{{t}}", {"s": "", "t": "-rf"}),
        ("rm {{s}}{{n}}", {"s": "-", "n": 1}),
    ],
)
def test_leading_dash_of_the_assembled_word_is_refused(
    source: str, args: dict[str, object]
) -> None:
    params = (
        P("n", T.INTEGER, False),
        P("s", T.STRING, False, default="rf"),
        P("t", T.STRING, False),
    )
    error = refused(source, args, *params)
    assert error.parameter in args and "'-'" in error.message


def test_assembled_word_after_double_dash_is_allowed() -> None:
    params = (P("n", T.INTEGER, True), P("s", T.STRING, True))
    assert run("rm -- {{n}}{{s}}", {"n": -1, "s": "rf"}, *params) == ["rm", "--", "-1rf"]


def test_assembled_word_of_numbers_only_may_be_negative() -> None:
    params = (P("a", T.INTEGER, True), P("b", T.NUMBER, True))
    assert run("x {{a}}{{b}}", {"a": -1, "b": 2}, *params) == ["x", "-12"]
    assert run("x {{a}}.{{b}}", {"a": -1, "b": 5}, *params) == ["x", "-1.5"]


def test_dash_written_by_the_author_starts_the_word() -> None:
    params = (P("v", T.STRING, True),)
    assert run("x -n{{v}}", {"v": "-1"}, *params) == ["x", "-n-1"]
    assert run("x --name={{v}}", {"v": "-1"}, *params) == ["x", "--name=-1"]


def test_defaults_written_by_the_author_are_trusted() -> None:
    assert run("x {{v}}", {}, P("v", T.STRING, False, default="-")) == ["x", "-"]


# ---------------------------------------------------------------------------------------
# NUL bytes


def test_nul_byte_refused() -> None:
    error = refused("x {{v}}", {"v": "a\x00b"}, P("v", T.STRING, True))
    assert error.parameter == "v" and "NUL" in error.message


def test_nul_byte_in_array_item_refused() -> None:
    error = refused("x {{v}}", {"v": ["ok", "a\x00"]}, P("v", T.ARRAY, True))
    assert "NUL" in error.message and "item 1" in error.message


# ---------------------------------------------------------------------------------------
# ./ programs and ~/


def test_dot_slash_program_resolves_against_skill_dir() -> None:
    argv = run("./scripts/run.sh ./local", {})
    assert argv == [str(SKILL / "scripts" / "run.sh"), "./local"]


def test_dot_slash_program_with_relative_skill_dir_is_absolute() -> None:
    argv = render(tool("./run.sh"), {}, skill_dir=Path("rel/skill"), home=HOME)
    assert Path(argv[0]).is_absolute() and argv[0].endswith("rel/skill/run.sh")


def test_tilde_in_literal_words_means_home() -> None:
    argv = run("~/bin/tool ~/notes.txt --dir=~/x ~ ~user a~/b", {})
    assert argv == [
        f"{HOME}/bin/tool",
        f"{HOME}/notes.txt",
        "--dir=~/x",
        str(HOME),
        "~user",
        "a~/b",
    ]


def test_tilde_at_start_of_word_with_placeholder() -> None:
    argv = run("cat ~/notes/{{name}}.md", {"name": "today"}, P("name", T.STRING, True))
    assert argv == ["cat", f"{HOME}/notes/today.md"]


def test_tilde_in_value_is_never_expanded() -> None:
    assert run("cat {{p}}", {"p": "~/secret"}, P("p", T.STRING, True)) == ["cat", "~/secret"]


def test_home_defaults_to_the_users_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    argv = render(tool("ls ~/x"), {}, skill_dir=SKILL)
    assert argv == ["ls", f"{tmp_path}/x"]


# ---------------------------------------------------------------------------------------
# Templates that did not come from parse_template


def test_tool_without_command() -> None:
    with pytest.raises(RenderError):
        render(ToolDefinition("t", "d"), {}, skill_dir=SKILL)


def test_placeholder_program_refused_even_if_built_by_hand() -> None:
    template = CommandTemplate("{{p}}", (TemplateWord((Placeholder("p"),)),))
    t = ToolDefinition("t", "d", (P("p", T.STRING, True),), template)
    with pytest.raises(RenderError):
        render(t, {"p": "rm"}, skill_dir=SKILL)


def test_placeholder_without_parameter_refused() -> None:
    template = CommandTemplate(
        "x {{ghost}}", (TemplateWord((Literal("x"),)), TemplateWord((Placeholder("ghost"),)))
    )
    with pytest.raises(RenderError) as info:
        render(ToolDefinition("t", "d", (), template), {}, skill_dir=SKILL)
    assert info.value.parameter == "ghost"


def test_flag_inside_a_word_built_by_hand_is_refused() -> None:
    flag = Placeholder("v", PlaceholderKind.FLAG, "--v")
    template = CommandTemplate(
        "x a{{v:--v}}", (TemplateWord((Literal("x"),)), TemplateWord((Literal("a"), flag)))
    )
    t = ToolDefinition("t", "d", (P("v", T.BOOLEAN, False),), template)
    with pytest.raises(RenderError):
        render(t, {"v": True}, skill_dir=SKILL)
