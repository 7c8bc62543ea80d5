"""``gibberish mcp`` through the SDK's own stdio client: a real server process per test."""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from gibberish.instance_socket import socket_path
from gibberish.mcp.approval import ApprovalRequest, answer_line
from tests.helpers.sandbox import requires_sandbox
from tests.interop.conftest import child_env, gibberish_argv


@contextlib.asynccontextmanager
async def connect(skills_dir: Path, *extra: str) -> AsyncIterator[ClientSession]:
    argv = gibberish_argv(skills_dir, "mcp", *extra)
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=child_env())
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        yield session


def with_session(skills_dir: Path, body: Callable[[ClientSession], Any]) -> Any:
    async def main() -> Any:
        async with connect(skills_dir) as session:
            return await body(session)

    return anyio.run(main)


class FakeTray:
    """Listens on the tray's socket and answers approval requests with ``answer``."""

    def __init__(self, answer: str) -> None:
        self.answer = answer
        self.requests: list[ApprovalRequest] = []
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(socket_path())
        self.server.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with contextlib.suppress(OSError):
            conn, _ = self.server.accept()
            with conn:
                data = b""
                while b"\n" not in data:
                    data += conn.recv(4096)
                self.requests.append(ApprovalRequest.from_line(data.decode().strip()))
                conn.sendall(answer_line(self.answer, "from the fake tray"))

    def close(self) -> None:
        self.server.close()
        self.thread.join(5)


@pytest.fixture
def tray():
    trays: list[FakeTray] = []

    def start(answer: str) -> FakeTray:
        trays.append(FakeTray(answer))
        return trays[-1]

    yield start
    for t in trays:
        t.close()


def test_lists_skill_tools_with_schema_and_hints_and_disclosure_tools(skills_dir: Path) -> None:
    async def body(session: ClientSession):
        return {t.name: t for t in (await session.list_tools()).tools}

    tools = with_session(skills_dir, body)
    assert {"say", "mark", "skills_list", "skills_outline", "skills_show"} <= set(tools)
    assert {"skills_open", "skills_sources", "skills_search"} <= set(tools)
    say = tools["say"]
    assert say.input_schema["properties"]["words"]["type"] == "string"
    assert say.input_schema["required"] == ["words"]
    assert say.annotations.read_only_hint is True
    assert say.annotations.open_world_hint is False
    assert tools["mark"].annotations.read_only_hint is False
    assert "guide" not in tools  # an instruction skill offers no tool


@requires_sandbox
def test_read_only_tool_runs_and_returns_the_envelope(skills_dir: Path) -> None:
    async def body(session: ClientSession):
        return await session.call_tool("say", {"words": "hello there"})

    result = with_session(skills_dir, body)
    assert result.is_error is False
    assert result.structured_content["success"] is True
    assert result.structured_content["output"] == "hello there\n"
    assert json.loads(result.content[0].text) == result.structured_content


def test_without_a_sandbox_an_approved_read_only_tool_asks_the_tray_and_says_why(
    skills_dir: Path, tray, no_sandbox
) -> None:
    async def call(session: ClientSession):
        return await session.call_tool("say", {"words": "hello there"})

    refused = with_session(skills_dir, call)  # no tray to ask
    assert refused.is_error is True and "sandbox" in refused.structured_content["error"]
    fake = tray("once")
    result = with_session(skills_dir, call)
    assert result.is_error is False, result.structured_content
    assert result.structured_content["output"] == "hello there\n"
    (request,) = fake.requests
    assert request.ref == "echoer.say" and request.argv == ("echo", "hello there")


def test_bad_arguments_are_refused_before_anything_runs(skills_dir: Path) -> None:
    async def body(session: ClientSession):
        return await session.call_tool("say", {})

    result = with_session(skills_dir, body)
    assert result.is_error is True
    assert result.structured_content["exit_code"] is None
    assert "words" in result.structured_content["error"]


def test_a_call_that_needs_approval_is_refused_without_a_tray(
    skills_dir: Path, tmp_path: Path
) -> None:
    async def body(session: ClientSession):
        return await session.call_tool("mark", {"folder": str(tmp_path)})

    result = with_session(skills_dir, body)
    assert result.is_error is True
    error = result.structured_content["error"]
    assert "start the tray (`gibberish`)" in error
    assert f"`gibberish run writer.mark --arg folder={tmp_path} --cwd " in error
    assert "approvals approve" not in error  # trusting would not stop a model's write asking
    assert not (tmp_path / "marker").exists()


def test_the_tray_approves_once_and_the_call_runs(skills_dir: Path, tmp_path: Path, tray) -> None:
    fake = tray("once")

    async def body(session: ClientSession):
        return await session.call_tool("mark", {"folder": str(tmp_path)})

    result = with_session(skills_dir, body)
    assert result.is_error is False, result.structured_content
    assert (tmp_path / "marker").exists()
    (request,) = fake.requests
    assert request.ref == "writer.mark"
    assert request.argv == ("touch", f"{tmp_path}/marker")


def test_the_tray_declines_and_nothing_runs(skills_dir: Path, tmp_path: Path, tray) -> None:
    tray("no")

    async def body(session: ClientSession):
        return await session.call_tool("mark", {"folder": str(tmp_path)})

    result = with_session(skills_dir, body)
    assert result.is_error is True
    assert "declined" in result.structured_content["error"]
    assert not (tmp_path / "marker").exists()


def test_disclosure_tools_read_section_by_section(skills_dir: Path) -> None:
    async def body(session: ClientSession):
        listed = await session.call_tool("skills_list", {})
        outline = await session.call_tool("skills_outline", {"name": "guide"})
        shown = await session.call_tool("skills_show", {"name": "guide", "section": "Tone"})
        found = await session.call_tool("skills_search", {"query": "breaking changes"})
        escaped = await session.call_tool(
            "skills_open", {"name": "guide", "path": "../echoer/SKILL.md"}
        )
        return listed, outline, shown, found, escaped

    listed, outline, shown, found, escaped = with_session(skills_dir, body)
    kinds = {s["name"]: s["kind"] for s in listed.structured_content["skills"]}
    assert kinds == {"echoer": "tools", "writer": "tools", "guide": "instructions"}
    titles = [(h["level"], h["title"]) for h in outline.structured_content["headings"]]
    assert titles == [(1, "Release notes"), (2, "Structure"), (2, "Tone")]
    assert shown.structured_content["text"] == "## Tone\n\nPlain words, short sentences."
    assert found.structured_content["hits"][0]["title"] == "Structure"
    assert escaped.is_error and "E012" in escaped.content[0].text


def test_skill_md_resources_and_instruction_prompts(skills_dir: Path) -> None:
    async def body(session: ClientSession):
        resources = await session.list_resources()
        read = await session.read_resource("skill://guide/SKILL.md")
        prompts = await session.list_prompts()
        prompt = await session.get_prompt("guide")
        return resources, read, prompts, prompt

    resources, read, prompts, prompt = with_session(skills_dir, body)
    assert {str(r.uri) for r in resources.resources} == {
        f"skill://{n}/SKILL.md" for n in ("echoer", "writer", "guide")
    }
    assert read.contents[0].text.startswith("---\nname: guide")
    assert [p.name for p in prompts.prompts] == ["guide"]
    assert "Plain words" in prompt.messages[0].content.text


def test_a_skill_added_while_serving_shows_up_in_the_next_list(skills_dir: Path) -> None:
    from tests.interop.conftest import ECHOER

    async def body(session: ClientSession):
        before = {t.name for t in (await session.list_tools()).tools}
        (skills_dir / "parrot").mkdir()
        text = ECHOER.replace("name: echoer", "name: parrot").replace("### say", "### squawk")
        (skills_dir / "parrot" / "SKILL.md").write_text(text, encoding="utf-8")
        after = {t.name for t in (await session.list_tools()).tools}
        return before, after

    before, after = with_session(skills_dir, body)
    assert "squawk" not in before and "squawk" in after
