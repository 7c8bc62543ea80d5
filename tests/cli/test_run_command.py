"""``gibberish run``: the decision table on the command line, and real runs end to end."""

from __future__ import annotations

import json
import os
import subprocess
import time
from pathlib import Path

import psutil
import pytest

from gibberish.cli import run as run_module
from tests.helpers.builders import needs_git
from tests.helpers.sandbox import requires_sandbox

SLEEP_TOOL = """
### nap

Sleep for a long time.

#### Parameters

None.

#### Command

```bash
sleep 30.{marker}
```
"""

ENV_TOOL = """
### show_env

Print the environment.

#### Parameters

None.

#### Command

```bash
env
```
"""


def envelope(output: str) -> dict:
    start = output.index("{")
    return json.loads(output[start:])


def test_user_skill_without_terminal_is_refused_with_a_way_out(write_skill, invoke) -> None:
    write_skill("echoer")
    result = invoke("run", "echoer.say", "--arg", "words=hello")
    assert result.exit_code == 1
    assert "--yes" in result.output
    env = envelope(result.output)
    assert env["exit_code"] is None and env["success"] is False and "approval" in env["error"]


def test_yes_runs_once_and_prints_the_envelope(write_skill, invoke) -> None:
    write_skill("echoer")
    result = invoke("run", "echoer.say", "--arg", "words=hello world; rm -rf /", "--yes")
    assert result.exit_code == 0, result.output
    env = envelope(result.output)
    assert env["success"] is True and env["exit_code"] == 0
    assert env["output"] == "hello world; rm -rf /\n"
    assert env["truncated"] is False and isinstance(env["duration_ms"], int)
    # run once is not remembered
    again = invoke("run", "echoer.say", "--arg", "words=x")
    assert again.exit_code == 1


def test_json_flag_prints_one_line(write_skill, invoke) -> None:
    write_skill("echoer")
    result = invoke("run", "echoer.say", "--arg", "words=hi", "--yes", "--json")
    lines = [line for line in result.output.splitlines() if line.startswith("{")]
    assert len(lines) == 1 and json.loads(lines[0])["output"] == "hi\n"


@requires_sandbox
def test_always_allow_on_a_terminal_then_runs_without_asking(
    write_skill, invoke, monkeypatch
) -> None:
    folder = write_skill("echoer", extra="read_only: true\n")
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    first = invoke("run", "echoer.say", "--arg", "words=one", input="a\n")
    assert first.exit_code == 0, first.output
    assert "Run it? [y]es once / [a]lways: trust this version / [N]o" in first.output
    assert '"argv"' not in first.output  # the argv is shown as the facts, not as a key
    assert '["echo", "one"]' in first.output
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: False)
    second = invoke("run", "echoer.say", "--arg", "words=two")
    assert second.exit_code == 0, second.output
    assert envelope(second.output)["output"] == "two\n"
    # any edit to the folder, even a new script, asks again and says what changed
    (folder / "scripts").mkdir()
    (folder / "scripts" / "helper.sh").write_text("#!/bin/sh\necho hi\n")
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    third = invoke("run", "echoer.say", "--arg", "words=three", input="n\n")
    assert third.exit_code == 1
    assert "+ scripts/helper.sh" in third.output
    assert "declined" in third.output


def test_without_a_sandbox_a_trusted_read_only_tool_asks_a_model_every_time_not_you(
    write_skill, invoke, monkeypatch, no_sandbox, tmp_path
) -> None:
    """Unsandboxed, ``read_only`` is only the author's word: it earns a model's run
    nothing (asks every time, saying why), while your own run of the version you trusted
    does not rest on it and runs."""
    from gibberish.engine.core import Engine, EngineOptions
    from gibberish.trust.model_reads import RunOrigin

    folder = write_skill("echoer", extra="read_only: true\n")
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    first = invoke("run", "echoer.say", "--arg", "words=one", input="a\n")
    assert first.exit_code == 0, first.output
    assert "[a]lways: trust this version" in first.output
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: False)
    for words in ("two", "three"):
        again = invoke("run", "echoer.say", "--arg", f"words={words}")
        assert again.exit_code == 0, again.output
        assert envelope(again.output)["output"] == f"{words}\n"
    engine = Engine(
        EngineOptions(extra_skills_dirs=(folder.parent,), include_user=False, include_bundled=False)
    )
    project = tmp_path / "project"  # a model's run from a project (home is never one)
    project.mkdir()
    by_model = engine.runs.prepare(
        "echoer.say", {"words": "four"}, cwd=project, origin=RunOrigin.MODEL
    )
    assert by_model.decision.asks and not by_model.decision.first_run
    assert "without a sandbox (bubblewrap)" in by_model.decision.reason
    assert "asks every time" in by_model.asks_again


def test_declining_on_a_terminal_runs_nothing(write_skill, invoke, monkeypatch, tmp_path) -> None:
    marker = tmp_path / "touched"
    write_skill(
        "toucher",
        tools=f"""
### touch_it

Create the marker.

#### Parameters

None.

#### Command

```bash
touch {marker}
```
""",
    )
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    result = invoke("run", "toucher.touch_it", input="\n")
    assert result.exit_code == 1
    assert not marker.exists()


def test_missing_parameter_is_an_envelope_with_null_exit_code(write_skill, invoke) -> None:
    write_skill("echoer")
    result = invoke("run", "echoer.say", "--yes")
    assert result.exit_code == 1
    env = envelope(result.output)
    assert env["exit_code"] is None and "words" in env["error"]


def test_unknown_tool_names_the_tools_there_are(write_skill, invoke) -> None:
    write_skill("echoer")
    result = invoke("run", "echoer.shout", "--yes")
    assert result.exit_code == 1
    assert "say" in result.output


def test_timeout_gives_124_and_leaves_no_process(write_skill, invoke) -> None:
    marker = str(os.getpid()) + str(time.monotonic_ns() % 10**6)
    write_skill("sleeper", tools=SLEEP_TOOL.replace("{marker}", marker))
    started = time.monotonic()
    result = invoke("run", "sleeper.nap", "--timeout", "1", "--yes")
    assert time.monotonic() - started < 10
    assert result.exit_code == 1
    env = envelope(result.output)
    assert env["exit_code"] == 124 and env["success"] is False
    leftovers = [
        p
        for p in psutil.process_iter(["cmdline"])
        if p.info["cmdline"] == ["sleep", f"30.{marker}"]
    ]
    assert leftovers == []


@needs_git
def test_bundled_git_status_runs_at_once_in_a_repository(invoke, tmp_path, monkeypatch) -> None:
    repo = tmp_path / "repo"
    (repo / "sub").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    (repo / "new.txt").write_text("x")
    monkeypatch.chdir(repo / "sub")
    result = invoke("run", "git.git_status", bundled=True)
    assert result.exit_code == 0, result.output
    env = envelope(result.output)
    assert env["success"] is True and env["exit_code"] == 0
    assert "new.txt" in env["output"]


def test_secrets_never_reach_the_child(write_skill, invoke, monkeypatch) -> None:
    write_skill("envy", tools=ENV_TOOL)
    for name in (
        "AWS_SECRET_ACCESS_KEY",
        "GITHUB_TOKEN",
        "OPENAI_API_KEY",
        "MY_SERVICE_TOKEN",
        "DB_PASSWORD",
    ):
        monkeypatch.setenv(name, "leak-me")
    result = invoke("run", "envy.show_env", "--yes")
    output = envelope(result.output)["output"]
    assert "leak-me" not in output
    assert "GIBBERISH_SKILL_NAME=envy" in output and "GIBBERISH_RUN_ID=" in output


def test_cwd_option(write_skill, invoke, tmp_path) -> None:
    write_skill(
        "where",
        tools="""
### here

Print the working folder.

#### Parameters

None.

#### Command

```bash
pwd
```
""",
    )
    target = tmp_path / "elsewhere"
    target.mkdir()
    result = invoke("run", "where.here", "--cwd", str(target), "--yes")
    assert envelope(result.output)["output"].strip() == str(target.resolve())
    missing = invoke("run", "where.here", "--cwd", str(tmp_path / "nope"), "--yes")
    assert missing.exit_code == 1 and "does not exist" in missing.output


@pytest.mark.parametrize("bad", ["{not json", "[1, 2]"])
def test_bad_args_json(write_skill, invoke, bad: str) -> None:
    write_skill("echoer")
    result = invoke("run", "echoer.say", "--args-json", bad, "--yes")
    assert result.exit_code == 1 and "--args-json" in result.output


def test_missing_secret_stops_before_running(write_skill, invoke, tmp_path: Path) -> None:
    write_skill("needs-key", extra="secrets: [SERVICE_TOKEN]\n")
    result = invoke("run", "needs-key.say", "--arg", "words=x", "--yes")
    assert result.exit_code == 1
    assert "gibberish secrets set needs-key SERVICE_TOKEN" in result.output


def test_script_swapped_for_a_link_outside_the_skill_is_refused(
    write_skill, invoke, tmp_path
) -> None:
    folder = write_skill(
        "scripted",
        tools="""
### go

Run the script.

#### Parameters

None.

#### Command

```bash
./scripts/go.sh
```
""",
    )
    (folder / "scripts").mkdir()
    script = folder / "scripts" / "go.sh"
    script.write_text("#!/bin/sh\necho inside\n")
    script.chmod(0o755)
    assert envelope(invoke("run", "scripted.go", "--yes").output)["output"] == "inside\n"
    outside = tmp_path / "evil.sh"
    outside.write_text("#!/bin/sh\necho outside\n")
    outside.chmod(0o755)
    script.unlink()
    script.symlink_to(outside)
    result = invoke("run", "scripted.go", "--yes")
    assert result.exit_code == 1
    assert "outside" not in envelope(result.output).get("output", "")
    assert "E-PATH-ESCAPE" in result.output


def test_the_prompt_shows_control_characters_as_escapes(write_skill, invoke, monkeypatch) -> None:
    """An argv value (typed by anyone) must not restyle or hide the approval prompt."""
    write_skill("echoer")
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)
    result = invoke("run", "echoer.say", "--arg", "words=a\x9b8m\u202eb", input="n\n")
    assert "\x9b" not in result.output and "\u202e" not in result.output
    assert "\\x9b" in result.output and "\\u202e" in result.output


def test_a_timeout_out_of_range_is_refused_by_its_flag(write_skill, invoke) -> None:
    write_skill("echoer")
    for value in ("0", "301", "-1"):
        result = invoke("run", "echoer.say", "--arg", "words=x", "--timeout", value, "--yes")
        assert result.exit_code == 2 and "--timeout" in result.output and "300" in result.output


def test_a_git_tool_outside_a_repository_is_refused_in_words_with_folders_that_fit(
    invoke, tmp_path: Path
) -> None:
    from gibberish.engine import run_history

    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    run_history.add("git.git_log", {}, project)
    outside = tmp_path / "plain"
    outside.mkdir()
    result = invoke("run", "git.git_log", "--cwd", str(outside), bundled=True)
    assert result.exit_code != 0
    said = result.output
    assert "Git log needs a git repository" in said and "--cwd FOLDER" in said
    assert "project" in said  # the recent folder that has one
    assert "fatal: not a git repository" not in said  # nothing ran
    inside = invoke("run", "git.git_log", "--cwd", str(project), bundled=True)
    assert "needs a git repository" not in inside.output
