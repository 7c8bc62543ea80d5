"""The MCP Skills extension (``io.modelcontextprotocol/skills``): ``skills/list`` and
``skills/get`` over the SDK's own extension interface.

A skill entry is ``{uri, frontmatter, resources}``:

* ``uri`` — ``skill://NAME/SKILL.md``: the path segment before the file is the
  frontmatter's ``name`` (the extension's naming rule; a skill whose folder and name
  differ is served under its name);
* ``frontmatter`` — every field of SKILL.md's frontmatter as the author wrote it (the
  YAML read as data, nothing added or dropped);
* ``resources`` — one ``{uri, digest: "sha256:…", size}`` per file of the skill: exactly
  the files ``skills_sources`` lists, each readable with ``resources/read`` at
  ``skill://NAME/PATH``, whose bytes are the ones digested.

``skills/list`` is paginated (an opaque ``cursor``/``nextCursor``; a skill is never split
across pages) and carries ``ttlMs``/``cacheScope`` (private: the files are the person's
own). ``skills/get`` takes the ``uri`` of a SKILL.md; an unknown one is error -32602.
Both are served at the extension's base revision (2026-07-28) and later; a client of the
older, handshake era uses the ``skills_*`` tools and the ``skill://`` resources instead.
Each call reads the folders as they are now, so a digest always matches what a read
returns at that moment.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Callable, Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Any

import anyio
from mcp.server.extension import Extension, MethodBinding
from mcp.shared.exceptions import MCPError
from mcp_types import INVALID_PARAMS, PaginatedRequestParams, RequestParams
from mcp_types.version import MODERN_PROTOCOL_VERSIONS
from pydantic import ConfigDict

from gibberish.skills import disclosure
from gibberish.skills.disclosure import DisclosureError

IDENTIFIER = "io.modelcontextprotocol/skills"
PAGE_SIZE = 50
TTL_MS = 10_000
MAX_RESOURCE_BYTES = 16 * 1024 * 1024
SKILL_MD = "SKILL.md"

Servable = Callable[[], Sequence[tuple[str, Path]]]
"""The skills served now: (name, folder) of each that loaded."""


class GetParams(RequestParams):
    model_config = ConfigDict(extra="allow")
    uri: str


def skill_uri(name: str, path: str = SKILL_MD) -> str:
    return f"skill://{name}/{path}"


def read_bytes(folder: Path, path: str) -> bytes:
    """One file of a skill, only if ``skills_sources`` lists it (never outside, never a
    hidden folder, never more than MAX_RESOURCE_BYTES)."""
    listed = {f.path: f.size for f in disclosure.sources(folder)}
    if path not in listed:
        raise DisclosureError(disclosure.E_FILE_NOT_FOUND, f"{path!r} is not a file of the skill.")
    if listed[path] > MAX_RESOURCE_BYTES:
        raise DisclosureError(disclosure.E_FILE_NOT_FOUND, f"{path!r} is too large to serve.")
    with open(disclosure.inside(folder, path), "rb") as handle:
        return handle.read(MAX_RESOURCE_BYTES + 1)


def resource_content(data: bytes) -> str | bytes:
    """Text when the bytes are UTF-8 (its UTF-8 encoding is those bytes again), else a blob."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return data


def _plain(value: Any) -> Any:
    """YAML data as JSON carries it: dates as their ISO text, keys as text."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, datetime | date):
        return value.isoformat()
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return str(value)


def entry(name: str, folder: Path) -> dict[str, Any]:
    """The extension's entry for one skill, digests taken from the files now."""
    text = disclosure.read_text(disclosure.require_skill_md(folder))
    fields, _, _ = disclosure.split_frontmatter(text, file=SKILL_MD)
    resources = []
    for source in disclosure.sources(folder):
        data = read_bytes(folder, source.path)
        resources.append(
            {
                "uri": skill_uri(name, source.path),
                "digest": "sha256:" + hashlib.sha256(data).hexdigest(),
                "size": len(data),
            }
        )
    return {"uri": skill_uri(name), "frontmatter": _plain(fields), "resources": resources}


def _cursor(offset: int) -> str:
    return base64.urlsafe_b64encode(json.dumps({"offset": offset}).encode()).decode()


def _offset(cursor: str | None) -> int:
    if not cursor:
        return 0
    try:
        offset = json.loads(base64.urlsafe_b64decode(cursor.encode()))["offset"]
    except (ValueError, KeyError, TypeError):
        offset = None
    if not isinstance(offset, int) or offset < 0:
        raise MCPError(INVALID_PARAMS, "skills/list: the cursor is not one this server gave out.")
    return offset


class SkillsExtension(Extension):
    """``skills/list`` and ``skills/get`` over the skills ``servable`` names."""

    identifier = IDENTIFIER

    def __init__(self, servable: Servable, page_size: int = PAGE_SIZE) -> None:
        self.servable = servable
        self.page_size = page_size

    def methods(self) -> Sequence[MethodBinding]:
        versions = frozenset(MODERN_PROTOCOL_VERSIONS)
        return (
            MethodBinding("skills/list", PaginatedRequestParams, self._list, versions),
            MethodBinding("skills/get", GetParams, self._get, versions),
        )

    def list_page(self, cursor: str | None) -> dict[str, Any]:
        skills = sorted(self.servable())
        start = _offset(cursor)
        page = skills[start : start + self.page_size]
        out: dict[str, Any] = {"skills": [], "ttlMs": TTL_MS, "cacheScope": "private"}
        for name, folder in page:
            try:
                out["skills"].append(entry(name, folder))
            except (DisclosureError, OSError):
                continue  # changed or unreadable since it loaded: listed again once it reads
        if start + self.page_size < len(skills):
            out["nextCursor"] = _cursor(start + self.page_size)
        return out

    def get(self, uri: str) -> dict[str, Any]:
        for name, folder in self.servable():
            if uri == skill_uri(name):
                try:
                    return {"skill": entry(name, folder)}
                except (DisclosureError, OSError) as exc:
                    raise MCPError(INVALID_PARAMS, f"skills/get: {uri}: {exc}") from None
        raise MCPError(INVALID_PARAMS, f"skills/get: no skill is served at {uri!r}.")

    async def _list(self, ctx: Any, params: PaginatedRequestParams | None) -> dict[str, Any]:
        """Reading and hashing files is blocking work: a worker thread does it."""
        del ctx
        cursor = params.cursor if params is not None else None
        return await anyio.to_thread.run_sync(self.list_page, cursor)

    async def _get(self, ctx: Any, params: GetParams) -> dict[str, Any]:
        del ctx
        return await anyio.to_thread.run_sync(self.get, params.uri)
