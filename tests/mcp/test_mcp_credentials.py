"""Through a real MCP client, a model cannot read the person's credentials.

The review's attack: an MCP client calls the bundled ``read_file`` on
``~/.ssh/id_ed25519`` and got the private key back, no dialog. Here a real ``gibberish
mcp`` process (the SDK's stdio client, bundled skills, the focused project as its
folder) is asked for every credential place, with the sandbox and without it
(``GIBBERISH_SANDBOX=off``): every call is refused with the reason, and no canary comes
back. A read outside the project is asked in the tray (a fake tray answers here), and
refused with what to do when there is none.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from gibberish.runner import sandbox
from tests.helpers.credentials import HOME_SECRETS, Planted, plant
from tests.mcp.test_mcp_server import tray  # noqa: F401  (the fake tray fixture)

SANDBOXES = ["sandbox", "no-sandbox"]


@pytest.fixture
def planted(tmp_path: Path) -> Planted:
    return plant(tmp_path)


def server_env(mode: str) -> dict[str, str]:
    if mode == "sandbox" and not sandbox.status().active:
        pytest.skip(f"no working bubblewrap here ({sandbox.status().detail})")
    env = dict(os.environ)
    if mode == "no-sandbox":
        env[sandbox.SWITCH_VAR] = "off"
    return env


@contextlib.asynccontextmanager
async def connect(project: Path, env: dict[str, str]) -> AsyncIterator[ClientSession]:
    argv = [sys.executable, "-m", "gibberish", "--no-user-skills", "mcp"]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(project))
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def call_all(planted: Planted, env: dict[str, str], paths: list[str]) -> list[dict]:
    async def main() -> list[dict]:
        out = []
        async with connect(planted.project, env) as session:
            for path in paths:
                result = await session.call_tool("read_file", {"path": path})
                envelope = dict(result.structured_content or {})
                envelope["is_error"] = result.is_error
                envelope["text"] = json.dumps([c.model_dump() for c in result.content])
                out.append(envelope)
        return out

    return anyio.run(main)


@pytest.mark.parametrize("mode", SANDBOXES)
def test_an_mcp_client_reads_no_credential(planted: Planted, mode: str) -> None:
    names = [name for name, _ in HOME_SECRETS] + ["dotenv", "gibberish-log"]
    asked = [str(planted.files[n]) for n in names]
    asked += ["~/.ssh/id_ed25519", os.path.relpath(planted.files["aws"], planted.project), ".env"]
    results = call_all(planted, server_env(mode), asked)
    for path, result in zip(asked, results, strict=True):
        assert result["is_error"] is True, (path, result)
        assert result["exit_code"] is None and "never reads credentials" in result["error"]
        assert not planted.leaked(result["text"]), (path, planted.leaked(result["text"]))


@pytest.mark.parametrize("mode", SANDBOXES)
def test_an_mcp_client_still_reads_the_project(planted: Planted, mode: str) -> None:
    [result] = call_all(planted, server_env(mode), ["README.md"])
    assert result["is_error"] is False and result["output"] == "the project\n"


@pytest.mark.parametrize("mode", SANDBOXES)
def test_a_read_outside_the_project_without_a_tray_is_refused_naming_it(
    planted: Planted, mode: str
) -> None:
    outside = planted.home / "notes.txt"
    outside.write_text("private notes\n")
    [result] = call_all(planted, server_env(mode), [str(outside)])
    assert result["is_error"] is True and "private notes" not in result["text"]
    assert str(outside) in result["error"] and "outside" in result["error"]
    assert "gibberish approvals approve" not in result["error"]  # approving would not help


@pytest.mark.parametrize("answer", ["once", "no"])
def test_a_read_outside_the_project_is_asked_in_the_tray(
    planted: Planted,
    tray,  # noqa: F811
    answer: str,
) -> None:
    outside = planted.home / "notes.txt"
    outside.write_text("private notes\n")
    fake = tray(answer)
    [result] = call_all(planted, server_env("no-sandbox"), [str(outside)])
    assert len(fake.requests) == 1 and fake.requests[0].ref == "files.read_file"
    if answer == "once":
        assert result["is_error"] is False and result["output"] == "private notes\n"
    else:
        assert result["is_error"] is True and "private notes" not in result["text"]
