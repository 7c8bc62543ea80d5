"""Properties of rendering that must hold for *any* value (docs/adr/0007-placeholders-and-values.md): a value is exactly
one argument, unchanged, whatever characters it holds; an array gives one argument per
item; the injection guard refuses exactly the values that start with ``-``."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import unquote

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gibberish.skills.model import ParameterDefinition, ParameterType, ToolDefinition
from gibberish.skills.render import RenderError, render
from gibberish.skills.templates import parse_template

SKILL = Path("/skills/demo")
HOME = Path("/home/ada")

# Any text a model or a person could send: every code point except NUL (which no argv
# can hold) and lone surrogates (which are not text).
texts = st.text(st.characters(blacklist_characters="\x00", blacklist_categories=("Cs",)))
dash_texts = st.builds(lambda rest: "-" + rest, texts)


def make_tool(source: str, ptype: ParameterType = ParameterType.STRING) -> ToolDefinition:
    template, diags = parse_template(source)
    assert template is not None, diags
    param = ParameterDefinition("v", ptype, True)
    return ToolDefinition("t", "d", (param,), template)


AFTER_DASHES = make_tool("prog --flag -- {{v}} tail")
NO_DASHES = make_tool("prog {{v}} tail")
ARRAY_AFTER_DASHES = make_tool("prog -- {{v}} tail", ParameterType.ARRAY)
INSIDE_WORD = make_tool("prog pre{{v}}post")
IN_QUERY = make_tool("curl 'https://example.org/search?q={{v}}&x=1'")


def argv(tool: ToolDefinition, value: object) -> list[str]:
    return render(tool, {"v": value}, skill_dir=SKILL, home=HOME)


@given(st.one_of(texts, dash_texts))
def test_any_value_after_double_dash_is_exactly_one_unchanged_argument(value: str) -> None:
    assert argv(AFTER_DASHES, value) == ["prog", "--flag", "--", value, "tail"]


@given(texts)
def test_value_without_leading_dash_is_one_argument(value: str) -> None:
    if value.startswith("-"):
        with pytest.raises(RenderError):
            argv(NO_DASHES, value)
    else:
        assert argv(NO_DASHES, value) == ["prog", value, "tail"]


@given(dash_texts)
def test_leading_dash_refused_without_double_dash(value: str) -> None:
    with pytest.raises(RenderError) as info:
        argv(NO_DASHES, value)
    assert info.value.parameter == "v"


@given(st.lists(st.one_of(texts, dash_texts)))
def test_array_gives_one_argument_per_item(items: list[str]) -> None:
    assert argv(ARRAY_AFTER_DASHES, items) == ["prog", "--", *items, "tail"]


@given(texts)
def test_value_inside_a_word_is_kept_verbatim(value: str) -> None:
    assert argv(INSIDE_WORD, value) == ["prog", f"pre{value}post"]


@given(texts)
def test_url_query_value_round_trips(value: str) -> None:
    prog, url = argv(IN_QUERY, value)
    assert prog == "curl"
    prefix, suffix = "https://example.org/search?q=", "&x=1"
    assert url.startswith(prefix) and url.endswith(suffix)
    encoded = url[len(prefix) : -len(suffix)]
    assert all(c not in encoded for c in " &=?#/")
    assert unquote(encoded) == value


IN_PATH = make_tool("curl 'https://example.org/api/{{v}}/items?x=1'")
NUMBER_THEN_TEXT = ToolDefinition(
    "t",
    "d",
    (
        ParameterDefinition("n", ParameterType.INTEGER, True),
        ParameterDefinition("v", ParameterType.STRING, True),
    ),
    parse_template("prog {{n}}{{v}}")[0],
)


@given(texts)
def test_url_path_value_stays_one_segment(value: str) -> None:
    _, url = argv(IN_PATH, value)
    prefix, suffix = "https://example.org/api/", "/items?x=1"
    assert url.startswith(prefix) and url.endswith(suffix)
    segment = url[len(prefix) : -len(suffix)]
    assert all(c not in segment for c in " /?#@:")
    assert segment not in (".", "..")
    assert unquote(segment) == value


@given(st.integers(), texts)
def test_no_argument_assembled_from_a_text_value_starts_with_dash(n: int, value: str) -> None:
    try:
        out = render(NUMBER_THEN_TEXT, {"n": n, "v": value}, skill_dir=SKILL, home=HOME)
    except RenderError as exc:
        assert (str(n) + value).startswith("-") and exc.parameter in ("n", "v")
    else:
        assert out == ["prog", f"{n}{value}"] and not out[1].startswith("-")


@given(st.integers(min_value=-(10**30), max_value=10**30))
def test_integers_render_as_decimal(n: int) -> None:
    tool = make_tool("prog {{v}}", ParameterType.INTEGER)
    assert argv(tool, n) == ["prog", str(n)]
    assert argv(tool, str(n)) == ["prog", str(n)]
