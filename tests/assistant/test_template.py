"""``render_conversation`` against the chat template itself, rendered with Jinja2.

The template under ``templates/functiongemma.jinja`` is a reconstruction of FunctionGemma's
chat template from its documented output (its header says why it is not Google's file). It
is rendered the way ``transformers.apply_chat_template`` renders a chat template (a sandboxed
Jinja2 environment with ``trim_blocks`` and ``lstrip_blocks``) from the same tool schemas a
chat API receives, and must equal gibberish's own renderer byte for byte for every tool set
and conversation below. Where the model's own template is on the machine
(``GIBBERISH_FUNCTIONGEMMA_TEMPLATE``, see ``model_template.py``), every case is also
rendered with it; otherwise that half skips and says why.
"""

from __future__ import annotations

import itertools
from pathlib import Path
from typing import Any

import pytest

from gibberish.assistant.conversation import Message, ToolCall
from gibberish.assistant.functiongemma import (
    DEVELOPER_PROMPT,
    render_conversation,
    render_declaration,
    render_prompt,
)
from gibberish.assistant.manifest import tool_schemas
from gibberish.assistant.naming import ToolCatalog
from gibberish.skills.model import ToolDefinition
from tests.assistant.builders import P, deploy_skill, git_skill, param, skill, summarize_skill
from tests.assistant.model_template import TemplateNotFound, from_environment

jinja2 = pytest.importorskip("jinja2", reason="jinja2 (dev extra) renders the chat template")
from jinja2.filters import do_dictsort  # noqa: E402
from jinja2.sandbox import ImmutableSandboxedEnvironment  # noqa: E402

TEMPLATE = Path(__file__).parent / "templates" / "functiongemma.jinja"


def _raise(message: str) -> None:
    raise ValueError(message)


def template_render(
    tools,
    messages,
    *,
    generation_prompt: bool = True,
    source: str | None = None,
    bos_token: str = "<bos>",
    case_sensitive_sort: bool = False,
) -> str:
    """Render ``source`` (default: the reconstruction) as ``apply_chat_template`` does.

    ``case_sensitive_sort`` makes ``dictsort`` compare keys byte-wise, as llama.cpp's own
    Jinja engine does (Python's Jinja2 ignores case by default).
    """
    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    env.globals["raise_exception"] = _raise
    if case_sensitive_sort:
        env.filters["dictsort"] = lambda value: do_dictsort(value, case_sensitive=True)
    template = env.from_string(source or TEMPLATE.read_text(encoding="utf-8"))
    return template.render(
        bos_token=bos_token,
        tools=tool_schemas(tools) or None,
        messages=[as_chat_message(m) for m in messages],
        add_generation_prompt=generation_prompt,
    )


def as_chat_message(message: Message) -> dict[str, Any]:
    data: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.calls:
        data["tool_calls"] = [
            {"type": "function", "function": {"name": c.name, "arguments": dict(c.arguments)}}
            for c in message.calls
        ]
    if message.name:
        data["name"] = message.name
    return data


def _tools(*skills):
    return ToolCatalog.from_skills(list(skills)).tools


def _mixed_skill():
    return skill(
        "files",
        "",
        [
            ToolDefinition(
                "search",
                'Search files; {braces}, commas: and "quotes" are text.',
                (
                    param("zeta", P.NUMBER, True),
                    param("paths", P.ARRAY, description="Where to look", default=["a", "b"]),
                    param("Beta", P.STRING),
                    param("alpha", P.BOOLEAN, True, "Case sensitive", default=False),
                    param("beta_max", P.INTEGER, False, "Most results", default=20),
                ),
            ),
            ToolDefinition("noop", ""),
        ],
    )


TOOL_SETS = {
    "none": (),
    "git": _tools(git_skill()),
    "examples": _tools(git_skill(), summarize_skill(), deploy_skill()),
    "mixed": _tools(_mixed_skill()),
}

SYSTEM = Message("system", DEVELOPER_PROMPT)
CONVERSATIONS = {
    "one request": [SYSTEM, Message("user", "  show me the last 5 commits \n")],
    "no system": [Message("user", "status")],
    "custom system": [Message("system", "  Be brief.\n"), Message("user", "status")],
    "repair": [
        SYSTEM,
        Message("user", "log"),
        Message("assistant", "<start_function_call>call:git_log{count:<escape>x"),
        Message("user", "That was not a valid function call: the answer was cut off."),
    ],
    "call and result": [
        SYSTEM,
        Message("user", "how many commits, and the diff"),
        Message(
            "assistant",
            "",
            (
                ToolCall("git_log", {"count": 5, "oneline": True, "ratio": 1.0}),
                ToolCall("git_diff", {"staged": False, "paths": ["a b", 2.5, None]}),
            ),
        ),
        Message(
            "tool", {"exit_code": 0, "output": "abc, {x}: y", "parsed": {"n": [1]}}, (), "git_log"
        ),
        Message("tool", "nothing staged", (), "git_diff"),
        Message("assistant", "There are 5 commits and nothing staged."),
        Message("user", "and the status?"),
    ],
    "pending call": [
        SYSTEM,
        Message("user", "status"),
        Message("assistant", "Checking.", (ToolCall("git_status", {}),)),
    ],
    "result awaiting answer": [
        SYSTEM,
        Message("user", "status"),
        Message("assistant", "", (ToolCall("git_status", {}),)),
        Message("tool", {"success": True, "output": " M README.md\n"}, (), "git_status"),
    ],
}


@pytest.mark.parametrize("tools_name", sorted(TOOL_SETS))
@pytest.mark.parametrize("conversation", sorted(CONVERSATIONS))
@pytest.mark.parametrize("generation_prompt", [True, False])
def test_byte_identical_to_the_chat_template(tools_name, conversation, generation_prompt):
    tools, messages = TOOL_SETS[tools_name], CONVERSATIONS[conversation]
    ours = render_conversation(tools, messages, bos=True, generation_prompt=generation_prompt)
    assert ours == template_render(tools, messages, generation_prompt=generation_prompt)


def own_template() -> str:
    """The model's own template, or skip with what is missing."""
    try:
        return from_environment().text
    except TemplateNotFound as exc:
        pytest.skip(str(exc))


def test_byte_identical_to_the_models_own_template():
    """Every tool set × conversation × generation prompt, with the model's own template;
    one test (one skip line without it) that names every case that differs."""
    source = own_template()
    differing = []
    for tools_name, conversation, generation_prompt in itertools.product(
        sorted(TOOL_SETS), sorted(CONVERSATIONS), (True, False)
    ):
        tools, messages = TOOL_SETS[tools_name], CONVERSATIONS[conversation]
        ours = render_conversation(tools, messages, bos=True, generation_prompt=generation_prompt)
        theirs = template_render(
            tools, messages, generation_prompt=generation_prompt, source=source
        )
        if ours != theirs:
            at = next(
                (i for i, pair in enumerate(zip(ours, theirs, strict=False)) if len(set(pair)) > 1),
                min(len(ours), len(theirs)),
            )
            near = slice(max(0, at - 30), at + 30)
            differing.append(
                f"{tools_name}/{conversation}/{generation_prompt} at byte {at}: "
                f"ours {ours[near]!r}, template {theirs[near]!r}"
            )
    assert not differing, f"{len(differing)} cases differ:\n" + "\n".join(differing)


def test_render_prompt_is_the_one_request_conversation():
    tools = TOOL_SETS["examples"]
    assert render_prompt(tools, "status", bos=True) == template_render(
        tools, [SYSTEM, Message("user", "status")]
    )


def test_documented_details_hold():
    """The details the published renders show, checked on gibberish's own output."""
    prompt = render_conversation(TOOL_SETS["mixed"], CONVERSATIONS["call and result"], bos=True)
    assert prompt.startswith("<bos><start_of_turn>developer\n" + DEVELOPER_PROMPT + "<start_")
    assert "type:<escape>NUMBER<escape>} },required:[<escape>zeta<escape>,<escape>alpha" in prompt
    assert "type:<escape>OBJECT<escape>} }<end_function_declaration>" in prompt
    assert "Beta:{description:<escape><escape>,type:<escape>STRING<escape>}" in prompt
    assert "ratio:1.0" in prompt  # a float prints as Jinja prints it
    assert "response:git_diff{value:<escape>nothing staged<escape>}" in prompt
    # the model's answer after the results continues the open model turn
    assert "<end_function_response>There are 5 commits" in prompt


def test_template_fixture_is_not_trivially_equal():
    """Break gibberish's renderer on purpose (no space before the closing brace): the
    template render must then differ, or the comparison proves nothing."""
    tools = TOOL_SETS["git"]
    template = template_render(tools, CONVERSATIONS["one request"])
    broken = render_conversation(tools, CONVERSATIONS["one request"], bos=True).replace("} }", "}}")
    assert broken != template
    assert render_declaration(tools[0]) in template


def test_a_call_must_be_answered_before_the_next_turn():
    messages = [
        SYSTEM,
        Message("assistant", "", (ToolCall("git_status", {}),)),
        Message("user", "?"),
    ]
    with pytest.raises(ValueError, match="followed by the tool's response"):
        render_conversation((), messages)
    with pytest.raises(ValueError, match="followed by a tool response"):
        template_render((), messages)
