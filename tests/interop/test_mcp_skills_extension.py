"""The MCP Skills extension of ``gibberish mcp``, read by the SDK's own client over stdio:
``skills/list`` and ``skills/get`` with digests that match the files, both protocol eras,
and honest tool annotations and output schemas."""

from __future__ import annotations

import base64
import contextlib
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any, Literal

import anyio
import jsonschema
import pytest
import yaml
from mcp import Client, StdioServerParameters
from mcp.shared.exceptions import MCPError
from mcp_types import (
    INVALID_PARAMS,
    METHOD_NOT_FOUND,
    BlobResourceContents,
    PaginatedRequestParams,
    Request,
    RequestParams,
    TextResourceContents,
)
from pydantic import ConfigDict, TypeAdapter

from gibberish.mcp.skills_extension import IDENTIFIER, PAGE_SIZE
from tests.interop.conftest import child_env, gibberish_argv, write_skill

RESULT = TypeAdapter(dict[str, Any])


class SkillsList(Request[PaginatedRequestParams | None, Literal["skills/list"]]):
    method: Literal["skills/list"] = "skills/list"
    params: PaginatedRequestParams | None = None


class GetParams(RequestParams):
    model_config = ConfigDict(extra="allow")
    uri: str


class SkillsGet(Request[GetParams, Literal["skills/get"]]):
    method: Literal["skills/get"] = "skills/get"
    params: GetParams


@contextlib.asynccontextmanager
async def client(skills_dir: Path, mode: str = "auto") -> AsyncIterator[Client]:
    argv = gibberish_argv(skills_dir, "mcp")
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=child_env())
    async with Client(params, mode=mode) as connected:  # type: ignore[arg-type]
        yield connected


async def list_all(c: Client) -> list[dict[str, Any]]:
    entries, cursor, pages = [], None, 0
    while True:
        page = await c.session.send_request(
            SkillsList(params=PaginatedRequestParams(cursor=cursor)), RESULT
        )
        assert page["ttlMs"] >= 0 and page["cacheScope"] == "private"
        entries += page["skills"]
        pages += 1
        cursor = page.get("nextCursor")
        if cursor is None:
            return entries


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def _bytes_of(content: TextResourceContents | BlobResourceContents) -> bytes:
    if isinstance(content, BlobResourceContents):
        return base64.b64decode(content.blob)
    return content.text.encode("utf-8")


def _files(folder: Path) -> dict[str, bytes]:
    """What skills_sources lists: every file outside hidden folders."""
    out = {}
    for path in folder.rglob("*"):
        rel = path.relative_to(folder)
        if path.is_file() and not any(p.startswith(".") for p in rel.parts[:-1]):
            out[rel.as_posix()] = path.read_bytes()
    return out


@pytest.fixture
def rich(skills_dir: Path) -> Path:
    """A skill with nested, binary and hidden files next to the conftest's three."""
    folder = write_skill(
        skills_dir,
        "atlas",
        "---\nname: atlas\ndescription: Maps. Use when the user wants a map.\n"
        "metadata:\n  since: 2024-01-02\n  tags: [maps, geo]\nlicense: MIT\n---\n\n# Atlas\n",
        {"docs/usage.md": "Use it.\n", "data/world.txt": "héllo wörld\n"},
    )
    (folder / "data" / "tile.bin").write_bytes(bytes(range(256)) * 3)
    (folder / ".cache").mkdir()
    (folder / ".cache" / "secret.txt").write_text("not served")
    return skills_dir


def test_skills_list_serves_every_skill_with_digests_of_exactly_its_files(rich: Path) -> None:
    async def main() -> None:
        async with client(rich) as c:
            assert c.protocol_version == "2026-07-28"
            assert IDENTIFIER in (c.server_capabilities.extensions or {})
            assert c.server_capabilities.resources is not None
            entries = await list_all(c)
            assert sorted(e["uri"] for e in entries) == [
                f"skill://{n}/SKILL.md" for n in ("atlas", "echoer", "guide", "writer")
            ]
            sources = await c.call_tool("skills_sources", {"name": "atlas"})
            listed = {f["path"] for f in sources.structured_content["files"]}
            for e in entries:
                name = e["uri"].split("/")[-2]
                assert e["frontmatter"]["name"] == name  # the naming rule
                files = _files(rich / name)
                assert {r["uri"] for r in e["resources"]} == {f"skill://{name}/{p}" for p in files}
                for r in e["resources"]:
                    data = files[r["uri"].split("/", 3)[3]]
                    assert (r["digest"], r["size"]) == (_sha(data), len(data))
                    read = await c.read_resource(r["uri"])
                    assert _sha(_bytes_of(read.contents[0])) == r["digest"]
            atlas = next(e for e in entries if e["uri"] == "skill://atlas/SKILL.md")
            assert {r["uri"].split("/", 3)[3] for r in atlas["resources"]} == listed
            assert "data/tile.bin" in listed and ".cache/secret.txt" not in listed
            text = (rich / "atlas" / "SKILL.md").read_text()
            verbatim = yaml.safe_load(text.split("---")[1])
            verbatim["metadata"]["since"] = verbatim["metadata"]["since"].isoformat()
            assert atlas["frontmatter"] == verbatim

    anyio.run(main)


def test_skills_get_matches_the_listing_and_refuses_unknown_uris(rich: Path) -> None:
    async def main() -> None:
        async with client(rich) as c:
            (listed,) = [e for e in await list_all(c) if e["uri"] == "skill://guide/SKILL.md"]
            got = await c.session.send_request(
                SkillsGet(params=GetParams(uri="skill://guide/SKILL.md")), RESULT
            )
            assert got["skill"] == listed
            for uri in (
                "skill://nope/SKILL.md",
                "skill://guide/docs/x.md",
                "skill://../guide/SKILL.md",
                "file:///etc/passwd",
            ):
                with pytest.raises(MCPError) as caught:
                    await c.session.send_request(SkillsGet(params=GetParams(uri=uri)), RESULT)
                assert caught.value.code == INVALID_PARAMS

    anyio.run(main)


def test_digests_follow_the_files_as_they_change(rich: Path) -> None:
    async def main() -> None:
        async with client(rich) as c:
            before = {e["uri"]: e for e in await list_all(c)}["skill://atlas/SKILL.md"]
            (rich / "atlas" / "docs" / "usage.md").write_text("Use it carefully.\n")
            (rich / "atlas" / "docs" / "new.md").write_text("New.\n")
            after = {e["uri"]: e for e in await list_all(c)}["skill://atlas/SKILL.md"]
            digests = {r["uri"]: r["digest"] for r in after["resources"]}
            assert digests["skill://atlas/docs/usage.md"] == _sha(b"Use it carefully.\n")
            assert digests != {r["uri"]: r["digest"] for r in before["resources"]}
            assert "skill://atlas/docs/new.md" in digests

    anyio.run(main)


def test_pages_never_split_or_repeat_a_skill(skills_dir: Path) -> None:
    for index in range(PAGE_SIZE + 5):
        write_skill(
            skills_dir,
            f"many-{index:03d}",
            f"---\nname: many-{index:03d}\ndescription: Number {index}. Use for tests.\n---\n\nHi\n",
        )

    async def main() -> None:
        async with client(skills_dir) as c:
            first = await c.session.send_request(SkillsList(), RESULT)
            assert len(first["skills"]) == PAGE_SIZE and first["nextCursor"]
            entries = await list_all(c)
            uris = [e["uri"] for e in entries]
            assert len(uris) == len(set(uris)) == PAGE_SIZE + 5 + 3
            for bad in ("not-a-cursor", base64.urlsafe_b64encode(b'{"offset": -4}').decode()):
                with pytest.raises(MCPError) as caught:
                    await c.session.send_request(
                        SkillsList(params=PaginatedRequestParams(cursor=bad)), RESULT
                    )
                assert caught.value.code == INVALID_PARAMS

    anyio.run(main)


@pytest.mark.parametrize(
    "uri",
    [
        "skill://atlas/../echoer/SKILL.md",
        "skill://atlas/%2e%2e/echoer/SKILL.md",
        "skill://atlas/.cache/secret.txt",
        "skill://atlas//etc/passwd",
        "skill://atlas/docs/missing.md",
        "skill://nobody/SKILL.md",
    ],
)
def test_resource_reads_outside_the_listed_files_are_refused(rich: Path, uri: str) -> None:
    async def main() -> None:
        async with client(rich) as c:
            with pytest.raises(MCPError):
                await c.read_resource(uri)

    anyio.run(main)


def test_the_handshake_era_keeps_tools_and_resources_without_the_extension(
    rich: Path,
) -> None:
    async def main() -> None:
        async with client(rich, mode="legacy") as c:
            assert c.protocol_version == "2025-11-25"
            with pytest.raises(MCPError) as caught:
                await c.session.send_request(SkillsList(), RESULT)
            assert caught.value.code == METHOD_NOT_FOUND
            names = {t.name for t in (await c.list_tools()).tools}
            assert {"skills_list", "skills_sources", "say", "mark"} <= names
            read = await c.read_resource("skill://atlas/data/tile.bin")
            assert _bytes_of(read.contents[0]) == bytes(range(256)) * 3

    anyio.run(main)


@pytest.mark.parametrize("mode", ["legacy", "auto"])
def test_tools_carry_honest_annotations_and_output_schemas(skills_dir: Path, mode: str) -> None:
    async def main() -> None:
        async with client(skills_dir, mode=mode) as c:
            tools = {t.name: t for t in (await c.list_tools()).tools}
            say, mark = tools["say"].annotations, tools["mark"].annotations
            assert (say.read_only_hint, say.destructive_hint, say.open_world_hint) == (
                True,
                False,
                False,
            )
            assert (mark.read_only_hint, mark.destructive_hint) == (False, True)
            for name in ("skills_list", "skills_show", "skills_sources"):
                hints = tools[name].annotations
                assert (hints.read_only_hint, hints.destructive_hint) == (True, False)
            assert all(t.output_schema for t in tools.values())
            result = await c.call_tool("say", {"words": "hello there"})
            jsonschema.validate(result.structured_content, tools["say"].output_schema)
            refused = await c.call_tool("mark", {"folder": str(skills_dir)})
            assert refused.is_error
            jsonschema.validate(refused.structured_content, tools["mark"].output_schema)
            assert "no gibberish tray is running" in refused.structured_content["error"]

    anyio.run(main)
