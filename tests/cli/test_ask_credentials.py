"""``gibberish ask``: a model's call that names a credential is refused, ``--yes`` or not.

A loopback model server answers every request with a ``read_file`` call on one
credential place; the bundled ``files`` skill would run it unasked (read-only, bundled).
With the sandbox and without it, nothing is read and the reason is printed. A read
outside the project is a question ``--yes`` does not answer.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from gibberish.runner import sandbox
from tests.assistant.fakeserver import Text
from tests.helpers.credentials import Planted, plant

CALL = "<start_function_call>call:read_file{{path:<escape>{path}<escape>}}<end_function_call>"


@pytest.fixture
def planted(tmp_path: Path, monkeypatch) -> Planted:
    found = plant(tmp_path)
    monkeypatch.chdir(found.project)
    return found


@pytest.fixture(params=["sandbox", "no-sandbox"])
def sandboxing(request, monkeypatch):
    if request.param == "sandbox" and not sandbox.status().active:
        pytest.skip(f"no working bubblewrap here ({sandbox.status().detail})")
    if request.param == "no-sandbox":
        monkeypatch.setenv(sandbox.SWITCH_VAR, "off")
    sandbox.reset()
    yield request.param
    sandbox.reset()


def ask(invoke, model_server, path: str, *extra: str):
    model_server.queue(Text(CALL.format(path=path)))
    return invoke("ask", "show me that file", "--endpoint", model_server.url, *extra, bundled=True)


@pytest.mark.parametrize("yes", [(), ("--yes",)], ids=["asked", "yes"])
@pytest.mark.parametrize("name", ["ssh", "aws", "kube", "netrc", "dotenv", "gibberish-log"])
def test_ask_never_reads_a_credential(planted, sandboxing, invoke, model_server, name, yes) -> None:
    result = ask(invoke, model_server, str(planted.files[name]), *yes)
    assert result.exit_code == 1
    assert "never reads credentials" in result.output
    assert not planted.leaked(result.output)


def test_ask_reads_the_project_unasked(planted, sandboxing, invoke, model_server) -> None:
    """The control: inside the project the same call runs, and its output is printed."""
    result = ask(invoke, model_server, "README.md")
    assert result.exit_code == 0, result.output
    assert "the project" in result.stdout


def test_ask_yes_does_not_answer_a_read_outside_the_project(
    planted, sandboxing, invoke, model_server
) -> None:
    outside = planted.home / "diary.txt"
    outside.write_text("dear diary\n")
    for path in (str(outside), os.path.relpath(outside, planted.project)):
        result = ask(invoke, model_server, path, "--yes")
        assert result.exit_code == 1, result.output
        assert "dear diary" not in result.output
        assert str(outside) in result.output and "--yes does not answer" in result.output
