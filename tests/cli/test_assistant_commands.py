"""``gibberish prompt``, ``parse-call`` and ``ask`` end to end, with a loopback model server."""

from __future__ import annotations

import json
import socket

import pytest

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
    text = result.stdout  # the prompt alone: a notice (no sandbox, say) goes to stderr
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


def test_ask_goes_through_the_decision_table(
    write_skill, invoke, model_server, tmp_path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the agent's project holds the file it is asked to make
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
    assert invoke("approvals", "approve", "maker", "--yes").exit_code == 0
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


COUNT_TOOL = """
### repeat

Print a word a number of times.

#### Parameters

| Name | Type | Required | Description |
|------|------|----------|-------------|
| times | integer | yes | How many times |

#### Command

```bash
echo {{times}}
```

### here

Print the folder it runs in.

#### Command

```bash
pwd
```
"""


def _envelopes(output: str) -> list[dict]:
    """The JSON envelopes printed one after another (stdout), skipping stderr lines."""
    decoder, found, text = json.JSONDecoder(), [], output
    i = text.find("{")
    while i >= 0:
        try:
            obj, end = decoder.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(obj, dict) and "exit_code" in obj:
            found.append(obj)
        i = text.find("{", end)
    return found


def test_ask_runs_every_one_of_four_parallel_calls(write_skill, invoke, model_server) -> None:
    from tests.assistant.fakeserver import Calls

    write_skill("echoer")
    assert (
        invoke("approvals", "approve", "echoer", "--yes").exit_code == 0
    )  # --yes runs approved skills
    words = ["one", "two", "three", "four"]
    model_server.queue(Calls([("say", {"words": w}) for w in words]))
    result = invoke("ask", "say it", "--endpoint", model_server.url, "--api", "ollama-chat", "-y")
    assert result.exit_code == 0, result.output
    assert "model proposed 4 calls:" in result.output
    for n, word in enumerate(words, 1):
        assert f'  {n}. echoer.say {{"words": "{word}"}}' in result.output
    outputs = [e["output"].strip() for e in _envelopes(result.output)]
    assert outputs == words


def test_ask_skips_a_call_it_cannot_run_and_says_why(write_skill, invoke, model_server) -> None:
    from tests.assistant.fakeserver import Calls

    write_skill("counter", tools=COUNT_TOOL)
    assert invoke("approvals", "approve", "counter", "--yes").exit_code == 0
    model_server.queue(
        Calls([("repeat", {"times": 2_000_000_000_000_000}), ("repeat", {"times": 3})])
    )
    result = invoke("ask", "repeat", "--endpoint", model_server.url, "--api", "ollama-chat", "-y")
    assert result.exit_code == 1  # one call did not run
    assert (
        'skipped counter.repeat {"times": 2000000000000000}: times=2000000000000000 is '
        "unusually large" in result.output
    )
    assert "not run without a person to confirm it" in result.output
    assert [e["output"].strip() for e in _envelopes(result.output)] == ["3"]


def test_ask_runs_where_run_would_from_the_callers_folder(
    write_skill, invoke, model_server, tmp_path, monkeypatch
):
    """Inside a repository, ``run`` works in its root: so must ``ask`` (not the home folder)."""
    import shutil
    import subprocess

    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    write_skill("counter", tools=COUNT_TOOL)
    assert invoke("approvals", "approve", "counter", "--yes").exit_code == 0
    repo = tmp_path / "work" / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    monkeypatch.chdir(repo / "sub")
    ran = invoke("run", "counter.here", "-y")
    assert _envelopes(ran.output)[0]["output"].strip() == str(repo.resolve())
    model_server.queue(Text(CALL.format(name="here", args="")))
    result = invoke("ask", "where am I", "--endpoint", model_server.url, "-y")
    assert result.exit_code == 0, result.output
    [envelope] = _envelopes(result.output)
    assert envelope["output"].strip() == str(repo.resolve())


def test_prompt_says_when_a_skill_failed_to_load(write_skill, invoke, skills_root) -> None:
    (skills_root / "broken").mkdir()
    (skills_root / "broken" / "SKILL.md").write_text("---\nname: [\n---\n", encoding="utf-8")
    alone = invoke("prompt")
    assert alone.exit_code == 1
    assert "skill 'broken' failed to load and is not offered" in alone.output
    assert "every skill failed to load" in alone.output
    write_skill("echoer")
    both = invoke("prompt")
    assert both.exit_code == 0
    assert "skill 'broken' failed to load" in both.output
    assert "declaration:say{" in both.output


def test_ask_honours_stream_temperature_and_the_key_from_the_keyring(
    write_skill, invoke, model_server
) -> None:
    from gibberish import paths
    from tests.assistant.fakeserver import Calls

    write_skill("echoer")
    config = paths.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        "[model]\nstream = false\ntemperature = 0.7\nmax_tokens = 64\n"
        'api_key = "in-the-file"\ncolour = "blue"\n',
        encoding="utf-8",
    )
    assert invoke("model-key", "set", input="sk-from-keyring\n").exit_code == 0
    model_server.queue(Calls([("say", {"words": "hi"})]))
    result = invoke("ask", "say hi", "--endpoint", model_server.url, "--api", "openai", "--dry-run")
    assert result.exit_code == 0, result.output
    [sent] = model_server.requests
    assert sent.headers.get("Authorization") == "Bearer sk-from-keyring"
    assert sent.body["stream"] is False and sent.body["temperature"] == 0.7
    assert sent.body["max_tokens"] == 64
    assert "model.api_key is not read from the settings file" in result.output
    assert "unknown setting model.colour ignored" in result.output
    assert "in-the-file" not in json.dumps(sent.headers)
