"""``gibberish doctor`` says which protections are active, with and without bubblewrap."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.runner import sandbox


@pytest.fixture
def fresh_probe(monkeypatch: pytest.MonkeyPatch):
    sandbox.reset()
    yield monkeypatch
    sandbox.reset()


def doctor(*args: str) -> list[dict]:
    result = CliRunner().invoke(cli, ["doctor", "--json", *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_without_the_sandbox_it_names_the_package_and_what_is_unenforced(fresh_probe) -> None:
    fresh_probe.setenv(sandbox.SWITCH_VAR, "off")
    checks = {c["check"]: c for c in doctor()}
    assert checks["sandbox"]["ok"] is False and "bubblewrap" in checks["sandbox"]["detail"]
    assert checks["read_only"]["detail"] == "not enforced"
    assert checks["network: false"]["detail"] == "not enforced"


@pytest.mark.skipif(not sandbox.status().active, reason="no working bubblewrap here")
def test_with_the_sandbox_it_says_what_is_enforced(fresh_probe) -> None:
    checks = {c["check"]: c for c in doctor()}
    assert checks["sandbox"]["ok"] is True and "PID namespace" in checks["sandbox"]["detail"]
    assert checks["read_only"]["detail"].startswith("enforced")


def test_a_plain_text_keyring_is_a_warning(fresh_probe) -> None:
    checks = {c["check"]: c for c in doctor()}  # the tests use keyrings.alt's plain file
    assert checks["secrets"]["ok"] is False and "plain text" in checks["secrets"]["detail"]
    text = CliRunner().invoke(cli, ["doctor"]).output
    assert "warn secrets" in text
