"""The chat template as a real llama.cpp server renders it, against gibberish's renderer.

``templates/llama-server-renders.json`` holds what ``llama-server`` (its own C++ Jinja
engine, not Python's) answered on ``/apply-template`` for the test template and the tool
sets × conversations of ``test_template.py`` (recorded by scripts/record-template-renders.py;
its ``meta`` says which server and model). They show where a second Jinja implementation
agrees with the ``transformers`` render gibberish follows, and the one place it does not:
llama.cpp's ``dictsort`` compares keys byte-wise (``Beta`` before ``alpha``).
"""

from __future__ import annotations

import hashlib
import json

import pytest

from gibberish.assistant.functiongemma import render_conversation
from tests.assistant.test_template import CONVERSATIONS, TEMPLATE, TOOL_SETS, template_render

RECORDED = TEMPLATE.parent / "llama-server-renders.json"
DATA = json.loads(RECORDED.read_text(encoding="utf-8"))
BOS = DATA["meta"]["bos_token"]
CASES = [(r["tools"], r["conversation"], r["prompt"]) for r in DATA["renders"]]
IDS = [f"{t}-{c}" for t, c, _ in CASES]


def test_recorded_from_the_current_template():
    digest = hashlib.sha256(TEMPLATE.read_bytes()).hexdigest()
    assert DATA["meta"]["template_sha256"] == digest, (
        "the test template changed since the llama.cpp renders were recorded: re-record them "
        "with scripts/record-template-renders.py"
    )
    assert len(CASES) >= 12


@pytest.mark.parametrize(("tools_name", "conversation", "prompt"), CASES, ids=IDS)
def test_llama_renders_as_jinja2_does_with_byte_wise_dictsort(tools_name, conversation, prompt):
    tools, messages = TOOL_SETS[tools_name], CONVERSATIONS[conversation]
    assert prompt == template_render(tools, messages, bos_token=BOS, case_sensitive_sort=True)


@pytest.mark.parametrize(("tools_name", "conversation", "prompt"), CASES, ids=IDS)
def test_gibberish_matches_llama_where_keys_sort_alike(tools_name, conversation, prompt):
    tools, messages = TOOL_SETS[tools_name], CONVERSATIONS[conversation]
    ours = BOS + render_conversation(tools, messages, bos=False)
    if tools_name == "mixed":  # parameters Beta, alpha, beta_max: the orders differ
        assert prompt != ours
        assert prompt.index("properties:{Beta:") < prompt.index("alpha:{")
        assert ours.index("properties:{alpha:") < ours.index("Beta:{")
    else:
        assert prompt == ours
