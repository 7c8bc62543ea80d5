"""Every fetch scheme is pinned or refused in public-only mode (ADR 0060).

A public-only fetch (the web page's) checks a name and then hands git either the
checked address (``git://``), a pin for it (http(s): ``http.curloptResolve``), or
nothing at all (ssh in every spelling, ``ext::``, ``file::``: refused). The attack is
real: inside a network namespace holding only loopback (``unshare -rnm``), a real DNS
server answers the name with a public address first and 127.0.0.1 afterwards, and real
listeners on 127.0.0.1 (the git daemon's port, ssh's, another) count connections while
the installed git (and ssh) fetch each spelling. No connection may arrive. The control
— the same name answering loopback without public-only — must arrive, so a silent
resolver or listener cannot pass the test. Nothing leaves the machine: the namespace
has no interface but loopback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from gibberish.install import gitfetch
from gibberish.install.limits import FetchError
from gibberish.install.pinned import git_pinned
from tests.conftest import REPO_ROOT
from tests.interop.builders import needs_git

SCENARIO = Path(__file__).with_name("git_rebinding_scenario.py")


def _namespace_works() -> bool:
    if not shutil.which("unshare") or not shutil.which("ip"):
        return False
    probe = subprocess.run(
        ["unshare", "-rnm", "true"], capture_output=True, timeout=30, check=False
    )
    return probe.returncode == 0


needs_namespace = pytest.mark.skipif(
    not _namespace_works(), reason="needs unshare -rnm (user and network namespaces) and ip"
)


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    folder = tmp_path_factory.mktemp("netns")
    resolv = folder / "resolv.conf"
    resolv.write_text("nameserver 127.0.0.53\noptions timeout:1 attempts:1\n")
    hosts = folder / "hosts"
    hosts.write_text("127.0.0.1 localhost\n")
    script = (
        "set -e; ip link set lo up; "
        f"mount --bind {resolv} /etc/resolv.conf; mount --bind {hosts} /etc/hosts; "
        f'exec "{sys.executable}" {SCENARIO} {REPO_ROOT}'
    )
    env = {**os.environ, "GIT_TERMINAL_PROMPT": "0"}
    done = subprocess.run(
        ["unshare", "-rnm", "sh", "-c", script],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


CASES = [
    "git://",
    "git:// with a port",
    "ssh://",
    "ssh:// with a port",
    "scp-style",
    "http",
    "https",
    "plain http .git",
    "ext::",
    "file::",
]


@needs_git
@needs_namespace
def test_the_control_reaches_the_listener(outcomes: dict[str, Any]) -> None:
    assert outcomes["control"]["hits"]["git"] >= 1, outcomes["control"]


@needs_git
@needs_namespace
@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("when", ["second", "third"])
def test_no_scheme_reaches_the_address_of_a_later_lookup(
    outcomes: dict[str, Any], case: str, when: str
) -> None:
    result = outcomes[f"{case}, loopback from the {when} answer"]
    assert result["message"] != "FETCHED", result
    assert result["hits"] == {"git": 0, "ssh": 0, "other": 0}, result


@needs_git
@needs_namespace
@pytest.mark.parametrize("case", ["ssh://", "ssh:// with a port", "scp-style"])
def test_ssh_is_refused_with_a_working_hint(outcomes: dict[str, Any], case: str) -> None:
    message = outcomes[f"{case}, loopback from the third answer"]["message"]
    assert "https://" in message and "ssh" in message, message


@needs_git
@needs_namespace
def test_the_persons_git_settings_do_not_steer_a_public_only_fetch(
    outcomes: dict[str, Any],
) -> None:
    """An ``insteadOf`` in ~/.gitconfig rewriting the checked name to this computer."""
    result = outcomes["insteadOf"]
    assert result["hits"] == {"git": 0, "ssh": 0, "other": 0}, result


@pytest.mark.parametrize(
    "url",
    [
        "ssh://git@example.org/x.git",
        "git@example.org:x.git",
        "ext::sh -c true",
        "file:///srv/x.git",
        "fd::3",
        "example.org:x.git",
    ],
)
def test_what_cannot_be_pinned_is_refused_before_any_lookup(url: str, monkeypatch) -> None:
    import socket

    def no_lookup(*args: object, **kwargs: object) -> object:
        raise AssertionError("looked up")

    monkeypatch.setattr(socket, "getaddrinfo", no_lookup)
    with pytest.raises(FetchError):
        git_pinned(url)


def test_public_only_git_runs_without_the_persons_git_settings() -> None:
    """An ``insteadOf`` or a proxy in ~/.gitconfig would send git to an unchecked
    address; a public-only git sees neither, and only the pinnable transports."""
    env = gitfetch._git_env(public_only=True)
    assert env["GIT_CONFIG_GLOBAL"] == os.devnull and env["GIT_CONFIG_NOSYSTEM"] == "1"
    assert env["GIT_ALLOW_PROTOCOL"] == "https:http:git"
    assert gitfetch._git_env()["GIT_ALLOW_PROTOCOL"] == "https:http:git:ssh:file"
