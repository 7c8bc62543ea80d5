"""``gibberish doctor`` says how model-started runs are kept from credentials, and
whether offline runs are kept from the host's sockets."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from gibberish.cli import cli
from gibberish.runner import sandbox, seccomp


def checks() -> dict[str, dict]:
    result = CliRunner().invoke(cli, ["doctor", "--json"], catch_exceptions=False)
    return {c["check"]: c for c in json.loads(result.output)}


@pytest.fixture
def fresh(monkeypatch):
    sandbox.reset()
    yield monkeypatch
    sandbox.reset()


def test_without_the_sandbox_model_credentials_rest_on_the_argument_check(fresh) -> None:
    fresh.setenv(sandbox.SWITCH_VAR, "off")
    found = checks()
    assert found["model credentials"]["ok"] is False
    assert "not stopped without the sandbox" in found["model credentials"]["detail"]
    assert found["offline sockets"]["detail"] == "not enforced"


@pytest.mark.skipif(not sandbox.status().active, reason="no working bubblewrap here")
def test_with_the_sandbox_both_are_enforced(fresh) -> None:
    found = checks()
    assert found["model credentials"]["ok"] is True
    assert found["offline sockets"]["ok"] is (seccomp.offline_filter() is not None)


@pytest.mark.skipif(not sandbox.status().active, reason="no working bubblewrap here")
def test_without_libseccomp_doctor_says_the_filter_is_missing(fresh) -> None:
    fresh.setattr(seccomp, "why_unavailable", lambda: "the seccomp filter cannot be built (x)")
    found = checks()
    assert found["offline sockets"]["ok"] is False
    assert (
        "socket folders hidden, but the seccomp filter cannot be built"
        in (found["offline sockets"]["detail"])
    )
