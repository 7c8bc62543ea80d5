"""One approval prompt on the terminal, what ``--yes`` covers, and what ``--help`` says."""

from __future__ import annotations

import json

import pytest

from gibberish.cli import run as run_module
from tests.assistant.fakeserver import Text

CALL = "<start_function_call>call:say{{words:<escape>{words}<escape>}}<end_function_call>"


def envelope(output: str) -> dict:
    return json.loads(output[output.index("{\n") :])


@pytest.fixture
def terminal(monkeypatch) -> None:
    monkeypatch.setattr(run_module, "stdin_is_tty", lambda: True)


@pytest.mark.parametrize("typed", ["y", "yes", "o", "once", "Y", " Yes "])
def test_a_first_run_accepts_every_way_of_saying_once(write_skill, invoke, terminal, typed) -> None:
    write_skill("echoer")
    result = invoke("run", "echoer.say", "--arg", "words=hi", input=f"{typed}\n")
    assert result.exit_code == 0, result.output
    assert envelope(result.output)["output"] == "hi\n"
    assert "echoer" not in invoke("approvals", "list").output  # once is not remembered


@pytest.mark.parametrize("typed", ["a", "always", "ALWAYS"])
def test_always_is_remembered(write_skill, invoke, terminal, typed) -> None:
    write_skill("echoer")
    assert invoke("run", "echoer.say", "--arg", "words=hi", input=f"{typed}\n").exit_code == 0
    assert "approved" in invoke("approvals", "list").output


@pytest.mark.parametrize("typed", ["n", "no", "NO", ""])
def test_no_and_enter_decline(write_skill, invoke, terminal, typed) -> None:
    write_skill("echoer")
    result = invoke("run", "echoer.say", "--arg", "words=hi", input=f"{typed}\n")
    assert result.exit_code == 1 and "declined" in result.output


def test_an_unclear_answer_is_asked_again_then_declined(write_skill, invoke, terminal) -> None:
    write_skill("echoer")
    again = invoke("run", "echoer.say", "--arg", "words=hi", input="maybe\ny\n")
    assert again.exit_code == 0 and "Please answer y, a or n." in again.output
    never = invoke("run", "echoer.say", "--arg", "words=hi", input="what\nhuh\nsure?\n")
    assert never.exit_code == 1 and never.output.count("Please answer") == 3


def test_a_confirmation_uses_the_same_words(write_skill, invoke, terminal) -> None:
    write_skill("echoer", extra="always_ask: true\n")
    assert invoke("approvals", "approve", "echoer", "--yes").exit_code == 0  # still confirms
    result = invoke("run", "echoer.say", "--arg", "words=hi", input="yes\n")
    assert result.exit_code == 0 and "Run it? [y/N]" in result.output
    always = invoke("run", "echoer.say", "--arg", "words=hi", input="a\n")
    assert always.exit_code == 0  # "always" to a confirmation allows this one run


def test_run_yes_on_an_imported_skill_still_shows_its_warning(write_skill, invoke) -> None:
    folder = write_skill("imported")
    (folder / ".gibberish-source.json").write_text("{}")
    result = invoke("run", "imported.say", "--arg", "words=hi", "--yes")
    assert result.exit_code == 0, result.output
    assert "WARNING: This skill was installed from outside gibberish" in result.output


def test_ask_yes_never_runs_an_imported_skill(write_skill, invoke, model_server) -> None:
    folder = write_skill("imported")
    (folder / ".gibberish-source.json").write_text("{}")
    model_server.queue(Text(CALL.format(words="hi")))
    result = invoke("ask", "say hi", "--endpoint", model_server.url, "--yes")
    assert result.exit_code == 1 and "never approved" in result.output
    assert envelope(result.output)["exit_code"] is None


def test_ask_yes_on_a_terminal_asks_about_a_skill_never_approved(
    write_skill, invoke, model_server, terminal
) -> None:
    write_skill("echoer")
    model_server.queue(Text(CALL.format(words="hi")))
    result = invoke("ask", "say hi", "--endpoint", model_server.url, "--yes", input="n\n")
    assert result.exit_code == 1 and "Run it?" in result.output and "declined" in result.output


def test_help_says_what_yes_does_for_each_command(invoke) -> None:
    run_help = " ".join(invoke("run", "--help").output.split())
    assert "this one run (nothing is remembered)" in run_help
    assert "Imported skills still show their warning" in run_help
    ask_help = " ".join(invoke("ask", "--help").output.split())
    assert "only for a skill you already approved or a bundled one" in ask_help
    assert "a skill you never approved is still asked about" in ask_help
    reset_help = " ".join(invoke("approvals", "reset", "--help").output.split())
    assert "--yes" in reset_help and "confirmation" in reset_help
