"""Every call the chat template can render parses back to the arguments it was rendered from.

Hypothesis generates tool sets and calls with every value kind (strings with delimiters
inside, integers, floats, booleans, ``None``, lists, nested mappings with bare keys); the
prompt is rendered by the model's own template (each revision at hand) and by
``render_chat``, and ``parse_calls`` must give back exactly the calls: same names, same
arguments, same value types (``1`` is not ``1.0``, ``True`` is not ``1``). Also for
arguments handed over as a JSON string (what llama.cpp does), for gibberish's own
``render_call`` (control tokens neutralized) and for the forms Ollama's renderer writes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gibberish.assistant.callparser import parse_calls
from gibberish.assistant.clients import ModelError, ModelSettings, OllamaChatClient, _native_calls
from gibberish.assistant.functiongemma import inert, render_call
from gibberish.assistant.functiongemma_template import render_chat
from tests.assistant.chat_strategies import ARGUMENTS, NAMES, TOOL_SETS, calls
from tests.assistant.model_template import reference_templates, render

TEMPLATES = reference_templates()
BOUNDED = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down."""
    if type(a) is not type(b):
        return False
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    if isinstance(a, list):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return a == b


def renders(tools: list[dict[str, Any]], messages: list[dict[str, Any]]) -> list[str]:
    """The prompt as each template at hand renders it, and as ``render_chat`` does."""
    out = [render_chat(messages, tools or None, add_generation_prompt=True)]
    out += [render(t.text, messages, tools or None, add_generation_prompt=True) for t in TEMPLATES]
    return out


def assert_reads_back(prompt: str, wanted: list[tuple[str, Any]]) -> None:
    parsed = parse_calls(prompt)
    assert not parsed.errors, (parsed.errors, prompt)
    got = [(c.name, c.arguments) for c in parsed.calls]
    assert len(got) == len(wanted)
    for (name, arguments), (wanted_name, wanted_arguments) in zip(got, wanted, strict=True):
        assert name == wanted_name
        assert same(arguments, wanted_arguments), (arguments, wanted_arguments, prompt)


@BOUNDED
@given(tools=TOOL_SETS, made=st.lists(calls(), min_size=1, max_size=3))
def test_every_call_the_template_renders_parses_back(tools, made):
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": made}]
    wanted = [(c["function"]["name"], c["function"]["arguments"]) for c in made]
    for prompt in renders(tools, messages):
        assert_reads_back(prompt, wanted)


@BOUNDED
@given(tools=TOOL_SETS, made=st.lists(calls(as_json=True), min_size=1, max_size=3))
def test_arguments_given_as_json_text_parse_back(tools, made):
    """llama.cpp hands the template the arguments as JSON text: ``call:NAME{`` + twenty
    spaces + the JSON object + ``}``, in the model's history."""
    messages = [{"role": "user", "content": "go"}, {"role": "assistant", "tool_calls": made}]
    wanted = [(c["function"]["name"], json.loads(c["function"]["arguments"])) for c in made]
    for prompt in renders(tools, messages):
        assert "{" + " " * 20 + "{" in prompt
        assert_reads_back(prompt, wanted)


@BOUNDED
@given(
    name=NAMES,
    arguments=st.dictionaries(
        st.text(max_size=12).filter(lambda k: k.strip() == k and k and ":" not in k),
        st.text(max_size=30),
        max_size=3,
    ).filter(lambda d: all(_plain_key(k) for k in d)),
)
def test_gibberish_calls_with_any_text_parse_back_neutralized(name, arguments):
    """``render_call`` makes control tokens inert, so any text at all reads back (as
    neutralized), and no string can end the call early."""
    assert_reads_back(render_call(name, arguments), [(name, inert(arguments))])


def _plain_key(key: str) -> bool:
    return not set(key) & set('{}[],<>:"\r\n')


@BOUNDED
@given(name=NAMES, arguments=ARGUMENTS)
def test_a_call_in_an_answer_parses_back_without_its_end_token(name, arguments):
    """A stream stopped at the end of the call (no ``<end_function_call>``) still reads."""
    text = render_chat(
        [
            {
                "role": "assistant",
                "tool_calls": [{"function": {"name": name, "arguments": arguments}}],
            }
        ]
    )
    answer = text[text.index("<start_function_call>") : text.index("<end_function_call>")]
    assert_reads_back(answer, [(name, arguments)])


@pytest.mark.parametrize(
    ("written", "arguments"),
    [
        # Ollama's renderer: a whole float as an integer, Go's %v for nil and small floats
        (
            "call:f{a:1,b:<nil>,c:[1,2.5,<nil>],d:1e-07}",
            {"a": 1, "b": None, "c": [1, 2.5, None], "d": 1e-07},
        ),
        ("call:f{}", {}),
        # the template: Python's None, bare keys inside nested objects
        (
            "call:f{m:{Inner key:None,z:[None]},n:None}",
            {"m": {"Inner key": None, "z": [None]}, "n": None},
        ),
        # llama.cpp's JSON-string arguments, and a model answering in that form
        (
            "call:f{" + " " * 20 + '{"city":"Paris","n":[1,null]}}',
            {"city": "Paris", "n": [1, None]},
        ),
        ('call:f{{"city": "Paris"}}', {"city": "Paris"}),
        ('call:f{"city":"Par\\"is",n:2}', {"city": 'Par"is', "n": 2}),
    ],
)
def test_runtime_forms_are_read(written, arguments):
    assert_reads_back(f"<start_function_call>{written}<end_function_call>", [("f", arguments)])


@pytest.mark.parametrize(
    ("written", "problem"),
    [
        ("call:f{" + " " * 20 + '{"city":"Paris"}', "not closed with }"),
        ('call:f{{"city":}}', "neither k:v pairs nor a JSON object"),
        ("call:f{ [1] }", "expected 'key:value'"),
        ('call:f{"a\\x":1}', "not valid JSON"),
        ("call:f{a:<nil}", "unexpected '<'"),
    ],
)
def test_broken_runtime_forms_say_what_is_wrong(written, problem):
    parsed = parse_calls(f"<start_function_call>{written}<end_function_call>")
    assert not parsed.calls
    assert problem in parsed.errors[0]


@pytest.mark.parametrize(
    "arguments",
    [
        '{"a":' * 100_000 + "1" + "}" * 100_000,  # past Python's stack
        '{"a":' + "[" * 40 + "]" * 40 + "}",  # past MAX_DEPTH
        '{"a":' + "[" * 100_000,  # never closed
        '{"a":"' + "x" * 100_000,  # a string never closed
    ],
    ids=["past the stack", "past the limit", "never closed", "string never closed"],
)
def test_hostile_json_arguments_are_refused_not_raised(arguments):
    parsed = parse_calls(f"<start_function_call>call:f{{{arguments}}}<end_function_call>")
    assert not parsed.calls and len(parsed.errors) == 1
    native, errors = _native_calls([{"function": {"name": "f", "arguments": arguments}}])
    assert not native and len(errors) == 1


def test_a_server_line_nested_past_the_stack_is_a_protocol_error():
    client = OllamaChatClient(ModelSettings(api="ollama-chat"))
    with pytest.raises(ModelError, match="not valid JSON"):
        client.decode_object('{"message":' + "[" * 100_000 + "]" * 100_000 + "}")
