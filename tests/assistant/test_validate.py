from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gibberish.assistant.callparser import parse_calls
from gibberish.assistant.functiongemma import render_call
from gibberish.assistant.naming import ToolCatalog
from gibberish.assistant.validate import CallStatus, CoercionError, coerce_argument, validate_call
from gibberish.skills.model import ParameterDefinition, ParameterType, ToolDefinition
from tests.assistant.builders import P, skill

S, E = "<start_function_call>", "<end_function_call>"


def check(text: str, catalog: ToolCatalog):
    result = parse_calls(text)
    assert result.calls, result.errors
    return validate_call(result.calls[0], catalog)


def test_ok_call(catalog):
    v = check(f"{S}call:git_log{{count:5}}{E}", catalog)
    assert v.status is CallStatus.OK and v.ok
    assert (v.name, v.skill, v.tool) == ("git_log", "git", "git_log")
    assert v.arguments == {"count": 5}
    assert v.problems == () and v.coerced == ()
    assert v.exposed is catalog.resolve("git_log")


def test_coercion_of_text_to_integer_and_boolean(catalog):
    v = check(f"{S}call:git_log{{count:<escape>5<escape>}}{E}", catalog)
    assert v.ok and v.arguments == {"count": 5} and v.coerced == ("count",)
    v = check(f"{S}call:git_diff{{staged:<escape>true<escape>}}{E}", catalog)
    assert v.ok and v.arguments == {"staged": True}
    v = check(f"{S}call:git_diff{{staged:<escape>No<escape>}}{E}", catalog)
    assert v.ok and v.arguments == {"staged": False}


def test_unknown_tool(catalog):
    v = check(f"{S}call:rm_rf{{path:<escape>/<escape>}}{E}", catalog)
    assert v.status is CallStatus.UNKNOWN_TOOL
    assert v.skill is None and v.tool is None and v.exposed is None
    assert v.problems == ("there is no tool called 'rm_rf'",)


def test_unknown_argument(catalog):
    v = check(f"{S}call:git_log{{count:3,author:<escape>me<escape>}}{E}", catalog)
    assert v.status is CallStatus.INVALID
    assert v.arguments == {"count": 3}
    assert "git_log has no argument 'author' (arguments: count)" in v.problems


def test_wrong_type(catalog):
    v = check(f"{S}call:git_log{{count:<escape>many<escape>}}{E}", catalog)
    assert v.status is CallStatus.INVALID
    assert v.problems == (
        "Parameter 'count' expects an integer (a whole number such as 5), got 'many'.",
    )
    v = check(f"{S}call:git_diff{{staged:[1]}}{E}", catalog)
    assert v.status is CallStatus.INVALID
    assert v.problems[0].startswith("Parameter 'staged' expects a boolean")


def test_missing_required_argument(catalog):
    v = check(f"{S}call:summarize_url{{}}{E}", catalog)
    assert v.status is CallStatus.MISSING_ARGUMENTS
    assert v.missing == ("url",)
    assert v.problems == ("required argument 'url' is missing",)
    v = check(f"{S}call:summarize_url{{url:null}}{E}", catalog)
    assert v.status is CallStatus.MISSING_ARGUMENTS


def test_invalid_wins_over_missing(catalog):
    v = check(f"{S}call:summarize_url{{link:<escape>x<escape>}}{E}", catalog)
    assert v.status is CallStatus.INVALID
    assert v.missing == ("url",)


def test_null_optional_is_left_out(catalog):
    v = check(f"{S}call:git_log{{count:null}}{E}", catalog)
    assert v.ok and v.arguments == {}


def test_qualified_name_resolves(catalog):
    v = validate_call(("git__git_log", {"count": 1}), catalog)
    assert v.ok and v.tool == "git_log"


def test_to_dict(catalog):
    v = validate_call(("git_log", {"count": "2"}), catalog)
    assert v.to_dict() == {
        "status": "ok",
        "name": "git_log",
        "skill": "git",
        "tool": "git_log",
        "arguments": {"count": 2},
        "problems": [],
        "missing": [],
        "coerced": ["count"],
        "unusual": [],
    }


@pytest.mark.parametrize(
    ("type_", "value", "expected"),
    [
        (P.STRING, "x", "x"),
        (P.STRING, 5, "5"),
        (P.INTEGER, 5, 5),
        (P.INTEGER, 5.0, 5),
        (P.INTEGER, " 7 ", 7),
        (P.NUMBER, "2.5", 2.5),
        (P.NUMBER, "3", 3),
        (P.NUMBER, 4, 4),
        (P.BOOLEAN, "YES", True),
        (P.BOOLEAN, "0", False),
        (P.BOOLEAN, 1, True),
        (P.ARRAY, ["a", 1, 2.5], ["a", "1", "2.5"]),
    ],
)
def test_coerce(type_, value, expected):
    got = coerce_argument(ParameterDefinition("p", type_, True), value)
    assert got == expected and type(got) is type(expected)


@pytest.mark.parametrize(
    ("type_", "value"),
    [
        (P.STRING, {"a": 1}),
        (P.STRING, True),
        (P.STRING, "nul\x00byte"),
        (P.INTEGER, "8.0"),
        (P.INTEGER, True),
        (P.INTEGER, 2.5),
        (P.INTEGER, "2.5"),
        (P.NUMBER, "nan"),
        (P.NUMBER, math.inf),
        (P.NUMBER, False),
        (P.BOOLEAN, "maybe"),
        (P.BOOLEAN, 2),
        (P.ARRAY, [["nested"]]),
        (P.ARRAY, 3),
        (P.ARRAY, "one"),  # a text is never wrapped or split into a list
        (P.ARRAY, ["a", False]),
    ],
)
def test_coerce_refuses(type_, value):
    with pytest.raises(CoercionError) as info:
        coerce_argument(ParameterDefinition("p", type_, True), value)
    assert info.value.parameter == "p" and info.value.message


# -- property: any schema, any values: render a call, parse it back, validate to the same values

NAMES = st.from_regex(r"[a-z][a-z0-9_]{0,11}", fullmatch=True)
# No "<escape>" (the format cannot carry it) and no NUL (no argv can hold it).
TEXT = st.text().filter(lambda s: "<escape>" not in s and "\x00" not in s)
VALUES = {
    ParameterType.STRING: TEXT,
    ParameterType.INTEGER: st.integers(),
    ParameterType.NUMBER: st.one_of(
        st.integers(), st.floats(allow_nan=False, allow_infinity=False)
    ),
    ParameterType.BOOLEAN: st.booleans(),
    ParameterType.ARRAY: st.lists(TEXT, max_size=4),
}


@st.composite
def tool_and_arguments(draw):
    names = draw(st.lists(NAMES, unique=True, max_size=6))
    params = []
    arguments = {}
    for name in names:
        type_ = draw(st.sampled_from(list(ParameterType)))
        required = draw(st.booleans())
        params.append(ParameterDefinition(name, type_, required))
        if required or draw(st.booleans()):
            arguments[name] = draw(VALUES[type_])
    tool_name = draw(st.from_regex(r"[a-z0-9_]{1,32}", fullmatch=True))
    skill_name = draw(st.from_regex(r"[a-z0-9]{1,8}(-[a-z0-9]{1,8}){0,2}", fullmatch=True))
    return skill_name, ToolDefinition(tool_name, "d", tuple(params)), arguments


@settings(max_examples=300)
@given(tool_and_arguments(), st.booleans())
def test_render_parse_validate_round_trip(case, qualify):
    skill_name, tool_def, arguments = case
    skills = [skill(skill_name, "", [tool_def])]
    if qualify:  # a second skill with the same tool name forces skill__tool
        skills.append(skill(skill_name + "-x", "", [tool_def]))
    catalog = ToolCatalog.from_skills(skills)
    exposed = catalog.tools[0]
    text = render_call(exposed.name, arguments)
    result = parse_calls("prefix " + text + " suffix")
    assert result.ok, (text, result.errors)
    (call,) = result.calls
    assert call.name == exposed.name
    assert call.arguments == arguments
    validated = validate_call(call, catalog)
    assert validated.status is CallStatus.OK, validated.problems
    assert validated.exposed is exposed
    assert dict(validated.arguments) == arguments
    assert validated.coerced == ()


def test_a_huge_model_number_is_kept_but_flagged_unusual(catalog):
    v = validate_call(("git_log", {"count": 2_000_000_000_000_000}), catalog)
    assert v.ok and v.arguments == {"count": 2_000_000_000_000_000}
    assert v.unusual == (
        "count=2000000000000000 is unusually large (outside -1,000,000–1,000,000)",
    )
    assert validate_call(("git_log", {"count": 50}), catalog).unusual == ()
    assert validate_call(("git_log", {"count": -2_000_000}), catalog).unusual


def test_a_declared_range_makes_a_value_outside_it_invalid(catalog):
    from gibberish.assistant.validate import check_range
    from gibberish.skills.model import ParameterDefinition, ParameterType

    count = ParameterDefinition("count", ParameterType.INTEGER, False, minimum=1, maximum=100)
    assert check_range(count, 101) == ("count=101 is outside its range (1–100)", None)
    assert check_range(count, 0)[0]
    assert check_range(count, 50) == (None, None)


def test_an_object_argument_is_refused_with_a_clear_problem(catalog):
    v = validate_call(("git_log", {"count": {"value": 5}}), catalog)
    assert v.status is CallStatus.INVALID
    assert v.problems == (
        "git_log: argument 'count' is an object, but tool parameters take text, numbers, "
        "true/false or lists of text — give a plain value",
    )
    nested = validate_call(("summarize_url", {"url": [{"href": "x"}]}), catalog)
    assert nested.status is CallStatus.INVALID and "is an object" in nested.problems[0]
