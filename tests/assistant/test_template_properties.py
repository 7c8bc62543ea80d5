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

from gibberish.assistant.conversation import Message, ToolCall
from gibberish.assistant.functiongemma import chat_messages, render_conversation
from gibberish.assistant.functiongemma_template import render_chat
from gibberish.assistant.manifest import tool_schemas
from gibberish.assistant.naming import ToolCatalog
from gibberish.skills.model import ParameterDefinition, ParameterType, ToolDefinition
from tests.assistant.builders import skill
from tests.assistant.chat_strategies import ARGUMENTS, NAMES, TEXT, TOOL_SETS, conversations
from tests.assistant.model_template import NOT_FOUND, reference_templates, render

pytest.importorskip("jinja2", reason="jinja2 (dev extra) renders the chat template")

TEMPLATES = reference_templates()
BOUNDED = settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])


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


PARAM_TYPES = st.sampled_from(list(ParameterType))
DEFAULTS = {
    ParameterType.STRING: TEXT,
    ParameterType.INTEGER: st.integers(-1000, 1000),
    ParameterType.NUMBER: st.floats(-1e6, 1e6),
    ParameterType.BOOLEAN: st.booleans(),
    ParameterType.ARRAY: st.lists(TEXT, max_size=3),
}


@st.composite
def parameters(draw) -> ParameterDefinition:
    kind = draw(PARAM_TYPES)
    default = draw(st.one_of(st.none(), DEFAULTS[kind]))
    name = draw(st.one_of(st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,8}", fullmatch=True), KEYWORDS))
    return ParameterDefinition(name, kind, draw(st.booleans()), draw(TEXT), default)


KEYWORDS = st.sampled_from(["type", "description", "required", "Type"])


@st.composite
def skill_tools(draw) -> tuple:
    """A catalog of skills as the library builds them: exposed names, declared parameters."""
    tools = []
    for n in range(draw(st.integers(0, 3))):
        params = draw(st.lists(parameters(), max_size=4, unique_by=lambda p: p.name))
        tools.append(ToolDefinition(f"t{n}", draw(TEXT), tuple(params)))
    return ToolCatalog.from_skills([skill("s", "", tools)]).tools if tools else ()


@st.composite
def product_messages(draw) -> list[Message]:
    """Conversations as the router and clients build them."""
    messages = [Message("system", draw(TEXT))] if draw(st.booleans()) else []
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(["user", "assistant", "calls"]))
        if kind == "calls":
            made = draw(st.lists(st.builds(ToolCall, NAMES, ARGUMENTS), min_size=1, max_size=2))
            messages.append(Message("assistant", draw(TEXT), tuple(made)))
            for call in made:
                result = draw(st.one_of(TEXT, ARGUMENTS))
                messages.append(Message("tool", result, (), draw(st.sampled_from(["", call.name]))))
        else:
            messages.append(Message(kind, draw(TEXT)))
    return messages


@pytest.mark.skipif(not TEMPLATES, reason=NOT_FOUND)
@BOUNDED
@given(tools=skill_tools(), messages=product_messages(), generation_prompt=st.booleans())
def test_render_conversation_is_the_template_for_the_products_data(
    tools, messages, generation_prompt
):
    """gibberish's own tools and messages, rendered by gibberish and by the template from
    the very data a chat API would get (``tool_schemas``, ``chat_messages``)."""
    for template in TEMPLATES:
        expected = render(
            template.text,
            chat_messages(messages),
            tool_schemas(tools) or None,
            add_generation_prompt=generation_prompt,
        )
        ours = render_conversation(
            tools,
            messages,
            bos=True,
            generation_prompt=generation_prompt,
            preamble=template.preamble,
        )
        assert ours == expected, template.revision
