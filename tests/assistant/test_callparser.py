from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gibberish.assistant.callparser import CallSyntaxError, parse_arguments, parse_calls

S, E = "<start_function_call>", "<end_function_call>"


def one(text: str):
    result = parse_calls(text)
    assert result.ok, result.errors
    assert len(result.calls) == 1
    return result.calls[0]


def test_simple_call():
    call = one(f"{S}call:git_log{{count:5}}{E}")
    assert call.name == "git_log"
    assert call.arguments == {"count": 5}
    assert call.terminated


def test_empty_arguments():
    assert one(f"{S}call:git_status{{}}{E}").arguments == {}


def test_nested_objects_and_arrays():
    call = one(f"{S}call:f{{a:{{b:{{c:[1,[2,3],{{d:<escape>x<escape>}}]}}}},e:[],f:{{}}}}{E}")
    assert call.arguments == {"a": {"b": {"c": [1, [2, 3], {"d": "x"}]}}, "e": [], "f": {}}


def test_strings_with_delimiters_inside_are_text():
    text = "a, b} c: d { [x] <y> <escap <end_function_call> call:g{"
    call = one(f"{S}call:f{{s:<escape>{text}<escape>,t:<escape><escape>}}{E}")
    assert call.arguments == {"s": text, "t": ""}


def test_bare_scalars():
    call = one(f"{S}call:f{{a:true,b:false,c:null,d:-12,e:2.5,f:1e3,g:Tokyo,h: 7 }}{E}")
    assert call.arguments == {
        "a": True,
        "b": False,
        "c": None,
        "d": -12,
        "e": 2.5,
        "f": 1000.0,
        "g": "Tokyo",
        "h": 7,
    }


def test_escaped_keys_and_whitespace():
    call = one(f"{S} call:f {{ <escape>my key<escape> : <escape>v<escape> , b : [ 1 , 2 ] }} {E}")
    assert call.arguments == {"my key": "v", "b": [1, 2]}


def test_two_calls_in_one_output_and_surrounding_text():
    result = parse_calls(
        f"Sure!{S}call:get_weather{{city:<escape>Tokyo<escape>}}{E}"
        f"{S}call:get_stock_price{{symbol:<escape>GOOG<escape>}}{E} done"
    )
    assert result.ok
    assert [(c.name, c.arguments) for c in result.calls] == [
        ("get_weather", {"city": "Tokyo"}),
        ("get_stock_price", {"symbol": "GOOG"}),
    ]
    assert result.text == "Sure! done"


def test_unterminated_stream_is_accepted():
    call = one(f"{S}call:summarize_url{{url:<escape>https://a.b/?q=1,2<escape>}}")
    assert call.arguments == {"url": "https://a.b/?q=1,2"}
    assert not call.terminated


def test_missing_end_between_two_calls():
    result = parse_calls(f"{S}call:a{{}}{S}call:b{{x:1}}{E}")
    assert [c.name for c in result.calls] == ["a", "b"]
    assert result.ok


def test_call_without_start_token():
    assert one("  call:git_status{}").name == "git_status"


def test_cut_inside_the_arguments_is_not_a_call():
    result = parse_calls(f"{S}call:f{{a:<escape>hello")
    assert not result.calls
    assert "not closed" in result.errors[0]


@pytest.mark.parametrize(
    "text",
    [
        "",
        "I cannot help with that.",
        "{'name': 'git_log'}",
        f"{S}{E}",
        f"{S}call:{{}}{E}",
        f"{S}call:f{E}",
        f"{S}call:f{{a}}{E}",
        f"{S}call:f{{a:1 b:2}}{E}",
        f"{S}call:f{{a:1,a:2}}{E}",
        f"{S}call:f{{a:[1,2}}{E}",
        f"{S}call:f{{a:<b>}}{E}",
        f"{S}call:bad name{{}}{E}",
        f"{S}call:f{{}} trailing{E}",
    ],
)
def test_garbage_gives_no_call_and_a_reason(text):
    result = parse_calls(text)
    assert not result.calls
    assert result.errors and all(isinstance(e, str) and e for e in result.errors)
    assert not result.ok


def test_one_bad_block_does_not_hide_a_good_one():
    result = parse_calls(f"{S}call:f{{a:}}{E}{S}call:g{{b:1}}{E}")
    assert [c.name for c in result.calls] == ["g"]
    assert len(result.errors) == 1 and result.errors[0].startswith("call 1:")
    assert not result.ok


def test_deep_nesting_is_refused():
    text = f"{S}call:f{{a:" + "[" * 100 + "]" * 100 + f"}}{E}"
    result = parse_calls(text)
    assert not result.calls and "deeply" in result.errors[0]


def test_parse_arguments_alone():
    assert parse_arguments("{a:<escape>x<escape>}") == {"a": "x"}
    with pytest.raises(CallSyntaxError):
        parse_arguments("{a:1} extra")


PIECES = [S, E, "call:", "f", "{", "}", "[", "]", ":", ",", "<escape>", "1", "x", " ", "true"]


@given(st.one_of(st.text(), st.lists(st.sampled_from(PIECES), max_size=30).map("".join)))
def test_never_raises_on_any_text(text):
    result = parse_calls(text)  # raising fails the test
    assert result.calls or result.errors  # something is always said: a call or why there is none
    assert all(isinstance(e, str) and e for e in result.errors)
    for call in result.calls:
        assert call.name and call.raw and call.raw in text
    assert len(result.text) <= len(text)


def _timed(text: str) -> tuple[float, Any]:
    """The parse, and the processor time of the quicker of two: another process taking
    the processor, or one garbage collection, does not count as the parser's."""
    import time

    best, result = float("inf"), None
    for _ in range(2):
        start = time.process_time()
        result = parse_calls(text)
        best = min(best, time.process_time() - start)
    return best, result


@pytest.mark.parametrize(
    "block", [S, f"{S}call:a{{", f"{S}call:a{{b:<escape>x", f"{S}call:a{{b:1,"]
)
def test_many_start_tokens_parse_in_linear_time(block):
    """840 KB of repeated start tokens took 19.7 s when each block rescanned to the end."""
    small, large = block * 5_000, block * 40_000  # large is 8 times small
    assert len(large) >= 840_000
    large_seconds, result = _timed(large)
    assert len(result.errors) == 40_000 and not result.calls
    ratio = large_seconds / max(_timed(small)[0], 1e-3)
    assert ratio < 24, f"8x the input took {ratio:.1f}x the time (linear is ~8, quadratic ~64)"


@given(st.text(alphabet="{}[],:<>escapt_01 \ntrueflsn", max_size=60))
def test_never_raises_inside_a_call(body):
    parse_calls(f"{S}call:f{{{body}")
    parse_calls(f"{S}call:f{{{body}}}{E}")
