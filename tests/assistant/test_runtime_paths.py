"""What each ``--api`` sends, and what FunctionGemma then sees (docs/model-feed.md).

* ``ollama-generate``: gibberish renders the prompt itself; it is the template's render
  without the ``<bos>`` text (Ollama adds the BOS token).
* ``openai``: the server (llama.cpp, vLLM) renders the model's own template from the
  messages and tools gibberish sends. Rendered here with the template file, the way
  llama.cpp hands it the data (call arguments as JSON text): the declarations are
  gibberish's, the calls read back, and every tool result is named, without which the
  template refuses the conversation.
* ``ollama-chat``: Ollama renders with its own Go renderer and writes its own trigger
  sentence, so gibberish sends none; tool results carry ``tool_name``.
"""

from __future__ import annotations

import json

import pytest

from gibberish.assistant.callparser import parse_calls
from gibberish.assistant.clients import (
    ModelRequest,
    ModelSettings,
    OllamaChatClient,
    OllamaGenerateClient,
    OpenAIChatClient,
)
from gibberish.assistant.conversation import Message, ToolCall
from gibberish.assistant.functiongemma import DEVELOPER_PROMPT, chat_messages, render_conversation
from gibberish.assistant.manifest import tool_schemas
from tests.assistant.model_template import NOT_FOUND, reference_templates, render
from tests.assistant.test_template import TOOL_SETS

TEMPLATES = reference_templates()
EACH_TEMPLATE = pytest.mark.parametrize(
    "template",
    [pytest.param(t, id=t.revision) for t in TEMPLATES]
    or [pytest.param(None, marks=pytest.mark.skip(reason=NOT_FOUND), id="absent")],
)
TOOLS = TOOL_SETS["examples"]
CALLS = (ToolCall("git_log", {"count": 5, "ratio": 1.0}), ToolCall("git_diff", {"staged": None}))
HISTORY = (
    Message("user", "how many commits, and the diff"),
    Message("assistant", "", CALLS),
    Message("tool", {"exit_code": 0, "output": "abc"}),
    Message("tool", "nothing staged"),
    Message("assistant", "5 commits, nothing staged."),
    Message("user", "and the status?"),
)
REQUEST = ModelRequest(TOOLS, HISTORY)


@EACH_TEMPLATE
def test_ollama_generate_sends_the_templates_render_without_bos(template):
    body = OllamaGenerateClient(ModelSettings(api="ollama-generate")).body(REQUEST)
    assert body["raw"] is True
    messages = [Message("system", DEVELOPER_PROMPT), *HISTORY]
    assert body["prompt"] == render_conversation(TOOLS, messages)
    assert body["prompt"] == template_prompt(template, messages, bos_token="")


def template_prompt(template, messages, *, bos_token="<bos>") -> str:
    return render(
        template.text,
        chat_messages(messages),
        tool_schemas(TOOLS),
        add_generation_prompt=True,
        bos_token=bos_token,
    )


@EACH_TEMPLATE
def test_openai_messages_render_with_the_models_template(template):
    body = OpenAIChatClient(ModelSettings(api="openai")).body(REQUEST)
    seen = render(template.text, body["messages"], body["tools"], add_generation_prompt=True)
    ours = render_conversation(TOOLS, [Message("system", DEVELOPER_PROMPT), *HISTORY], bos=True)
    developer_turn = ours[: ours.index("<end_of_turn>") + len("<end_of_turn>\n")]
    assert seen.startswith(developer_turn)  # the trigger sentence once, the same declarations
    assert seen.count(DEVELOPER_PROMPT) == 1
    # llama.cpp's path: arguments as JSON text after the template's twenty spaces
    assert "call:git_log{" + " " * 20 + json.dumps({"count": 5, "ratio": 1.0}) + "}" in seen
    parsed = parse_calls(seen)
    assert [(c.name, c.arguments) for c in parsed.calls] == [(c.name, c.arguments) for c in CALLS]
    # results are text on this API, named after the calls they answer
    assert 'response:git_log{value:<escape>{"exit_code": 0, "output": "abc"}<escape>}' in seen
    assert "response:git_diff{value:<escape>nothing staged<escape>}" in seen
    assert seen.endswith("and the status?<end_of_turn>\n<start_of_turn>model\n")


@EACH_TEMPLATE
def test_an_unnamed_result_is_what_the_template_refuses(template):
    """Why ``openai`` tool messages carry ``name``: without it the template raises."""
    body = OpenAIChatClient(ModelSettings(api="openai")).body(REQUEST)
    for message in body["messages"]:
        message.pop("name", None)
    with pytest.raises(ValueError, match="'name' must be provided"):
        render(template.text, body["messages"], body["tools"], add_generation_prompt=True)


def test_openai_tool_messages_answer_their_calls_by_id_and_name():
    messages = OpenAIChatClient(ModelSettings(api="openai")).body(REQUEST)["messages"]
    assert messages[0] == {"role": "system", "content": DEVELOPER_PROMPT}
    ids = [c["id"] for c in messages[2]["tool_calls"]]
    results = [m for m in messages if m["role"] == "tool"]
    assert [(m["tool_call_id"], m["name"]) for m in results] == list(
        zip(ids, ["git_log", "git_diff"], strict=True)
    )


def test_ollama_chat_sends_no_trigger_sentence_and_names_results():
    body = OllamaChatClient(ModelSettings(api="ollama-chat")).body(REQUEST)
    assert all(DEVELOPER_PROMPT not in m["content"] for m in body["messages"])
    assert body["messages"][0]["role"] == "user"
    results = [m for m in body["messages"] if m["role"] == "tool"]
    assert [m["tool_name"] for m in results] == ["git_log", "git_diff"]
    assert body["messages"][1]["tool_calls"][0]["function"]["arguments"] == {
        "count": 5,
        "ratio": 1.0,
    }
