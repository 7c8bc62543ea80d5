"""``render_chat`` against the model's own template over generated tool sets and conversations.

The corpus of ``test_template.py`` covers what the product produces; here Hypothesis
generates schemas (enums, arrays with ``items``, nested objects, list types, properties
named like schema keywords, missing descriptions, empty properties) and conversations
(system or developer text or none, calls with mapping or JSON-string arguments, results
as text, mappings and lists) and each revision of the template at hand must render them
exactly as ``render_chat`` does. Bounded example counts keep it to seconds.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gibberish.assistant.functiongemma_template import render_chat
from tests.assistant.chat_strategies import TOOL_SETS, conversations
from tests.assistant.model_template import NOT_FOUND, reference_templates, render

pytest.importorskip("jinja2", reason="jinja2 (dev extra) renders the chat template")

TEMPLATES = reference_templates()
BOUNDED = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.skipif(not TEMPLATES, reason=NOT_FOUND)
@BOUNDED
@given(tools=TOOL_SETS, messages=conversations(), generation_prompt=st.booleans())
def test_render_chat_is_the_template(tools, messages, generation_prompt):
    for template in TEMPLATES:
        expected = render(
            template.text, messages, tools or None, add_generation_prompt=generation_prompt
        )
        ours = render_chat(
            messages,
            tools or None,
            add_generation_prompt=generation_prompt,
            preamble=template.preamble,
        )
        assert ours == expected, template.revision
