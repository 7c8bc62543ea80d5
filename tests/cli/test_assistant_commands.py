"""``gibberish prompt``, ``parse-call`` and ``ask`` end to end, with a loopback model server."""

from __future__ import annotations

import json
import socket

from tests.assistant.fakeserver import Text

CALL = "<start_function_call>call:{name}{{{args}}}<end_function_call>"
TOUCH_TOOL = """
### touch_file

Create an empty file with the given name.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| path | string | yes | The file to create |

#### Command

```bash
touch -- {{path}}
```
"""


def test_prompt_functiongemma_is_a_whole_turn_structure(write_skill, invoke) -> None:
    write_skill("echoer")
    result = invoke("prompt", "--request", "say hello")
    assert result.exit_code == 0
    text = result.output
    assert text.startswith(
        "<start_of_turn>developer\nYou are a model that can do function calling with the "
        "following functions"
    )
    assert "<start_function_declaration>declaration:say{" in text
    assert "<start_of_turn>user\nsay hello<end_of_turn>\n" in text
    assert text.endswith("<start_of_turn>model\n")


def test_prompt_budget_keeps_whole_declarations(write_skill, invoke) -> None:
    for i in range(12):
        write_skill(f"skill-{i}", description=f"Skill number {i} with a long description " * 3)
    full = invoke("prompt", "--format", "functiongemma", "--budget", "100000").output
    small = invoke("prompt", "--format", "functiongemma", "--budget", "200").output
    count = lambda t: t.count("<start_function_declaration>")  # noqa: E731
    assert 1 <= count(small) < count(full)
    assert count(small) == small.count("<end_function_declaration>")


def test_prompt_openai_and_text(write_skill, invoke) -> None:
    write_skill("echoer")
    tools = json.loads(invoke("prompt", "--format", "openai").output)
    assert tools[0]["type"] == "function" and tools[0]["function"]["name"] == "say"
    assert tools[0]["function"]["parameters"]["required"] == ["words"]
    text = invoke("prompt", "--format", "text").output
    assert "[Skills]" in text and "- say: Print the words back." in text


def test_parse_call_validates_and_coerces(write_skill, invoke) -> None:
    write_skill("echoer")
    stdin = CALL.format(name="say", args="words:<escape>a, b} c: <d><escape>")
    result = invoke("parse-call", input=stdin)
    assert result.exit_code == 0, result.output
    [call] = json.loads(result.output)["calls"]
    assert call["status"] == "ok" and call["skill"] == "echoer" and call["tool"] == "say"
    assert call["arguments"] == {"words": "a, b} c: <d>"}


def test_parse_call_reports_unknown_tools_and_garbage(write_skill, invoke) -> None:
    write_skill("echoer")
    unknown = invoke("parse-call", input=CALL.format(name="fly", args=""))
    assert unknown.exit_code == 1
    assert json.loads(unknown.output)["calls"][0]["status"] == "unknown_tool"
    garbage = invoke("parse-call", input="I think you should say hello")
    assert garbage.exit_code == 1
    data = json.loads(garbage.output)
    assert data["calls"] == [] and data["error"]


def test_ask_dry_run_turns_a_reply_into_a_validated_call(
    write_skill, invoke, model_server, tmp_path
) -> None:
    write_skill("maker", tools=TOUCH_TOOL)
    target = tmp_path / "made.txt"
    model_server.queue(Text(CALL.format(name="touch_file", args=f"path:<escape>{target}<escape>")))
    result = invoke("ask", "create made.txt", "--endpoint", model_server.url, "--dry-run")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["call"]["status"] == "ok"
    assert data["argv"] == ["touch", "--", str(target)]
    assert data["decision"]["kind"] == "ask"
    assert not target.exists()
    [request] = model_server.requests
    assert request.path == "/api/generate" and request.body["raw"] is True


def test_ask_goes_through_the_decision_table(write_skill, invoke, model_server, tmp_path) -> None:
    write_skill("maker", tools=TOUCH_TOOL)
    target = tmp_path / "made.txt"
    reply = CALL.format(name="touch_file", args=f"path:<escape>{target}<escape>")
    model_server.queue(Text(reply))
    refused = invoke("ask", "create made.txt", "--endpoint", model_server.url)
    assert refused.exit_code == 1 and "approvals approve maker" in refused.output
    assert not target.exists()
    # --yes is the person's answer to a confirmation, not an approval of what a model picked
    model_server.queue(Text(reply))
    still = invoke("ask", "create made.txt", "--endpoint", model_server.url, "--yes")
    assert still.exit_code == 1 and "never approved" in still.output
    assert not target.exists()
    assert invoke("approvals", "approve", "maker").exit_code == 0
    model_server.queue(Text(reply))
    ran = invoke("ask", "create made.txt", "--endpoint", model_server.url, "--yes")
    assert ran.exit_code == 0, ran.output
    assert target.exists()


def test_ask_without_a_server_says_what_to_do(write_skill, invoke) -> None:
    write_skill("echoer")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    result = invoke("ask", "say hi", "--endpoint", f"http://127.0.0.1:{port}")
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert f"127.0.0.1:{port}" in result.output
