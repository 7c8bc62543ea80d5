"""Google's published FunctionGemma renders, reproduced byte for byte.

``vectors/functiongemma-published-renders.json`` holds six ``apply_chat_template`` outputs
printed in Google's gemma-cookbook notebooks (Apache-2.0), each with its inputs and its
source (notebook, cell, commit). They are facts about the model's template: gibberish's
``render_chat`` must give the same bytes for the same inputs, and so must the template
file itself where it is at hand (which proves the harness renders as ``transformers`` does).
The calls in them must read back with the call parser.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gibberish.assistant.callparser import parse_calls
from gibberish.assistant.functiongemma_template import render_chat
from tests.assistant.model_template import NOT_FOUND, reference_templates, render

VECTORS = Path(__file__).parent / "vectors" / "functiongemma-published-renders.json"
CASES = json.loads(VECTORS.read_text(encoding="utf-8"))["cases"]
IDS = [case["id"] for case in CASES]
TEMPLATES = reference_templates()


def test_there_are_six_cases_with_their_sources():
    assert len(CASES) == 6
    assert all(case["source"].startswith("google-gemini/gemma-cookbook@") for case in CASES)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_gibberish_renders_each_published_case_byte_for_byte(case):
    ours = render_chat(
        case["messages"], case["tools"], add_generation_prompt=case["add_generation_prompt"]
    )
    assert ours == case["expected"]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_template_renders_each_published_case_byte_for_byte(case):
    if not TEMPLATES:
        pytest.skip(NOT_FOUND)
    for template in TEMPLATES:
        theirs = render(
            template.text,
            case["messages"],
            case["tools"],
            add_generation_prompt=case["add_generation_prompt"],
        )
        assert theirs == case["expected"], template.revision


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_the_published_calls_read_back(case):
    """Every call in a published render parses to the arguments it was rendered from."""
    wanted = [
        (call["function"]["name"], call["function"]["arguments"])
        for message in case["messages"]
        for call in message.get("tool_calls") or ()
    ]
    parsed = parse_calls(case["expected"]) if wanted else None
    if parsed is None:
        assert "<start_function_call>" not in case["expected"]
        return
    assert not parsed.errors
    assert [(c.name, c.arguments) for c in parsed.calls] == wanted


def test_the_models_own_answer_after_a_result_is_text():
    """Case B's notebook also printed what the model generated after the tool's result:
    plain text ending its turn, which the parser reads as no call."""
    (case,) = [c for c in CASES if "published_full_decode" in c]
    answer = case["published_full_decode"][len(case["expected"]) :]
    assert answer.startswith("The current weather in Tokyo is sunny")
    parsed = parse_calls(answer)
    assert parsed.calls == () and parsed.errors == ("the output contains no function call",)
