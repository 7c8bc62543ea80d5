"""``gibberish mcp``: the skills as an MCP server over stdio, with the official SDK.

Two kinds of tools:

* **skill tools** — every tool of every skill offered in the chosen mode, named as the
  model feed names them (plain, or ``skill__tool`` when two skills share a name), with the
  same JSON Schema and ``readOnlyHint``/``openWorldHint`` from the skill's ``read_only`` /
  ``network``. A call goes through the Engine exactly like a click: ``prepare`` (render
  checks, decision table), approval, ``run``; the result envelope is the structured
  content. A call that needs approval is asked in the tray's dialog (see
  ``mcp_approval``) or refused with the command that approves it.
* **disclosure tools** — ``skills_list``, ``skills_outline``, ``skills_show``,
  ``skills_open``, ``skills_sources``, ``skills_search`` (the gateway of a stub).

Each file of a skill is a resource (``skill://NAME/PATH``, SKILL.md listed, the others
through one template), each instruction skill a prompt, and the Skills extension
(:mod:`gibberish.mcp.skills_extension`) lists them with their digests. Every tool says
honestly what it does (``readOnlyHint``, ``destructiveHint``, ``openWorldHint``) and
what it returns (an output schema). A call that needs approval is asked in the tray's
dialog; the server never asks the client (no elicitation). The SDK serves both protocol
eras from this one server: the ``initialize`` handshake (2025-11-25 and older) and the
stateless 2026-07-28 revision. ``MCPServer`` builds a tool's schema from a Python signature; skill tools are
data, so this subclass adds them in ``list_tools``/``call_tool`` and leaves everything
else (the disclosure tools, resources, prompts, the protocol) to the SDK.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp.server.mcpserver.prompts.base import Prompt
from mcp.server.mcpserver.resources.types import FunctionResource
from mcp_types import CLIENT_INFO_META_KEY, CallToolResult, TextContent, Tool, ToolAnnotations

from gibberish import __version__
from gibberish.assistant.context import ContextBlock, context_blocks
from gibberish.assistant.manifest import parameters_schema
from gibberish.assistant.naming import ExposedTool, qualified_name
from gibberish.mcp.approval import (
    UNNAMED_CLIENT,
    ApprovalRequest,
    client_label,
    request_approval,
)
from gibberish.mcp.skills_extension import (
    SkillsExtension,
    read_bytes,
    resource_content,
)
from gibberish.session import Answer, authorize, never_approved
from gibberish.skills import disclosure
from gibberish.skills.disclosure import DisclosureError
from gibberish.skills.model import Mode, SkillDefinition
from gibberish.trust.model_reads import RunOrigin

if TYPE_CHECKING:
    from gibberish.app import Engine, PreparedRun

Approver = Callable[["PreparedRun", str], "tuple[str, str] | None"]
"""Asks the person about a prepared run on behalf of a client (``client_label``)."""
"""Asks a person about a prepared run: ``(answer, message)`` or None when nobody can."""

ENVELOPE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "success": {"type": "boolean"},
        "exit_code": {"type": ["integer", "null"]},
        "output": {"type": "string"},
        "truncated": {"type": "boolean"},
        "duration_ms": {"type": "integer"},
        "error": {"type": "string"},
        "parsed": {},
    },
    "required": ["success", "exit_code", "output", "truncated", "duration_ms"],
}
"""What a skill tool returns (docs/adr/0008-running-a-tool.md): its structured content."""

DISCLOSURE_TOOLS = (
    "skills_list",
    "skills_outline",
    "skills_show",
    "skills_open",
    "skills_sources",
    "skills_search",
)
INSTRUCTIONS = (
    "Tools of the user's gibberish skills. Each skill tool runs a real program after the "
    "user's approval rules; its result is a JSON envelope (exit_code, stdout, stderr ...). "
    "To read a skill's instructions, use skills_outline, then skills_show with a section, "
    "instead of reading whole files."
)


def tray_approver(prepared: PreparedRun, client: str = UNNAMED_CLIENT) -> tuple[str, str] | None:
    """Ask the running tray (None when there is none), naming the client that asked."""
    return request_approval(
        ApprovalRequest(
            ref=prepared.ref,
            arguments=dict(prepared.arguments),
            cwd=str(prepared.cwd),
            argv=prepared.argv,
            digest=prepared.fingerprint.digest,
            client=client,
        )
    )


def client_of(context: Any) -> str:
    """The calling client as the dialog names it, from its ``clientInfo``: sent at
    ``initialize`` (``client_params``) or, on newer protocol versions, in each request's
    ``_meta``. Anything missing or odd: "an MCP client"."""
    info: Any = None
    with contextlib.suppress(Exception):
        params = context.session.client_params
        info = params.client_info if params is not None else None
    if info is None:
        with contextlib.suppress(Exception):
            meta = context.request_context.meta
            info = (meta or {}).get(CLIENT_INFO_META_KEY) if isinstance(meta, dict) else None
    if isinstance(info, dict):
        return client_label(info.get("title") or info.get("name"), info.get("version"))
    if info is not None:
        name = getattr(info, "title", None) or getattr(info, "name", None)
        return client_label(name, getattr(info, "version", None))
    return UNNAMED_CLIENT


def how_to_approve(prepared: PreparedRun) -> str:
    """Why a call that needs a question is refused when no tray runs, and what works
    instead: each command named, run as shown, does what the sentence says."""
    yourself = f"run it yourself: `{prepared.run_yourself}`"
    tray = "start the tray (`gibberish`) and call again to answer in its dialog"
    decision = prepared.decision
    if decision.person_must_answer and not never_approved(prepared):
        # The skill is approved: approving it again would not answer this question.
        return f"{decision.reason} No gibberish tray is running to ask you: {tray}, or {yourself}."
    if never_approved(prepared) and decision.first_run and decision.runs_once_trusted:
        return (
            f"{prepared.ref} needs your approval ({decision.reason}) and no gibberish "
            f"tray is running to ask you. Trust this version: `gibberish approvals approve "
            f"{prepared.skill.name}` (then calls like this one run without asking); or "
            f"{tray}; or {yourself}."
        )
    return (
        f"{prepared.ref} needs your approval ({decision.reason}) and no gibberish tray is "
        f"running to ask you: {tray}, or {yourself}."
    )


class _NoAnswer(Exception):
    """Nobody can be asked, or the person said no; the message says what to do."""


def _envelope_result(envelope: dict[str, Any], *, error: bool) -> CallToolResult:
    return CallToolResult(
        content=[TextContent(type="text", text=json.dumps(envelope, ensure_ascii=False))],
        structured_content=envelope,
        is_error=error,
    )


class GibberishMCP(MCPServer):
    """The MCP server over one Engine and one mode."""

    def __init__(
        self,
        engine: Engine,
        mode: Mode | None = None,
        *,
        approver: Approver = tray_approver,
        cwd: Path | None = None,
    ) -> None:
        self.engine = engine
        super().__init__(
            name="gibberish",
            version=__version__,
            instructions=INSTRUCTIONS,
            log_level="WARNING",
            extensions=[SkillsExtension(self._servable)],
        )
        self.mode = mode or engine.mode_context().mode
        self.approver = approver
        self.cwd = cwd or Path.cwd()
        self._catalog = self.engine.feed.catalog(self.mode)
        self.skill_tools = self._expose(self._catalog)
        self._listed: tuple[Tool, ...] | None = None
        """The last ``tools/list`` answer, kept while the catalog is the same object."""
        self._add_disclosure_tools()
        for skill in engine.library.skills():
            if not any(d.code in disclosure.UNLOADED for d in skill.errors):
                self._add_resource(skill)
        self._add_file_template()
        for block in context_blocks(engine.library.skills()):
            self._add_prompt(block)

    def _servable(self) -> list[tuple[str, Path]]:
        """The skills served now (folders re-read first): the Skills extension's list."""
        self.engine.library.reload()
        return disclosure.servable(self.engine.library.skills())

    # ------------------------------------------------------------------ skill tools
    @staticmethod
    def _expose(catalog: Any) -> dict[str, ExposedTool]:
        out = {}
        for exposed in catalog.tools:
            name = exposed.name
            if name in DISCLOSURE_TOOLS:
                name = qualified_name(exposed.skill.name, exposed.tool.name)
            out[name] = exposed
        return out

    @staticmethod
    def describe(name: str, exposed: ExposedTool) -> Tool:
        skill = exposed.skill
        description = exposed.description or exposed.tool.name
        return Tool(
            name=name,
            title=f"{skill.name}: {exposed.tool.name}",
            description=f"{description} (skill {skill.name})",
            input_schema=parameters_schema(exposed),
            output_schema=ENVELOPE_SCHEMA,
            annotations=ToolAnnotations(
                read_only_hint=skill.read_only,
                destructive_hint=not skill.read_only,
                open_world_hint=skill.network,
            ),
        )

    async def list_tools(self) -> list[Tool]:
        """Skill tools as the folders are now (a reload is a cheap stat pass), then the SDK's.

        The tools and their schemas are described once per catalog: while no skill
        changed, the Engine hands out the same catalog and the last answer is sent again.
        The reload runs here, not on a worker thread: a stat pass (60 µs for the bundled
        skills, about 10 ms at 1,000) costs less than the hand-over to a thread and back."""
        listed = self._refresh()
        if listed is None:
            own = [self.describe(name, exposed) for name, exposed in self.skill_tools.items()]
            listed = self._listed = (*own, *await super().list_tools())
        return list(listed)

    async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
        exposed = self.skill_tools.get(name)
        if exposed is None:
            return await super().call_tool(name, arguments, context)
        client = client_of(context)
        return await anyio.to_thread.run_sync(self.run_skill_tool, exposed, dict(arguments), client)

    def _refresh(self) -> tuple[Tool, ...] | None:
        """Re-read what changed; the last ``tools/list`` answer if it still holds."""
        self.engine.library.reload()
        catalog = self.engine.feed.catalog(self.mode)
        if catalog is not self._catalog:
            self._catalog, self._listed = catalog, None
            self.skill_tools = self._expose(catalog)
        return self._listed

    def run_skill_tool(
        self, exposed: ExposedTool, arguments: dict[str, Any], client: str = UNNAMED_CLIENT
    ) -> CallToolResult:
        """Prepare, decide, ask (through the tray) or refuse, run; the envelope is the result."""
        from gibberish.app import EngineError, ToolRef
        from gibberish.runner import Envelope
        from gibberish.skills.render import RenderError

        def refuse(message: str) -> CallToolResult:
            return _envelope_result(Envelope.before_start(message).to_dict(), error=True)

        try:
            prepared = self.engine.runs.prepare(
                ToolRef(exposed.skill, exposed.tool),
                arguments,
                context_dir=self.cwd,
                mode=self.mode,
                origin=RunOrigin.MODEL,
            )
        except (EngineError, RenderError) as exc:
            return refuse(str(exc))
        try:
            verdict = authorize(self.engine, prepared, lambda p: self._ask(p, client))
        except _NoAnswer as exc:
            return refuse(str(exc))
        if verdict.refused:
            return refuse(verdict.refused)
        confirmed = verdict.confirmed
        try:
            result = self.engine.runs.run(prepared, confirmed=confirmed)
        except EngineError as exc:
            return refuse(str(exc))
        envelope = self.engine.runs.for_model(result)  # redacted; the run log says what
        return _envelope_result(envelope, error=not result.envelope.success)

    def _ask(self, prepared: PreparedRun, client: str) -> Answer:
        """``session.authorize``'s question, put to the person in the tray's dialog."""
        reply = self.approver(prepared, client)
        if reply is None:
            raise _NoAnswer(how_to_approve(prepared))
        answer, message = reply
        if answer == "no":
            raise _NoAnswer(f"Not run: you declined in the gibberish tray. {message}".strip())
        return Answer.ALWAYS if answer == "always" else Answer.ONCE

    # ------------------------------------------------------------------ disclosure
    def _folder(self, name: str) -> Path:
        from gibberish.app import EngineError

        try:
            skill = self.engine.library.require(name)
            disclosure.refuse_unloaded(skill.name, skill.errors)
        except EngineError as exc:
            raise ToolError(str(DisclosureError(disclosure.E_SKILL_NOT_FOUND, str(exc)))) from None
        except DisclosureError as exc:
            raise ToolError(str(exc)) from None
        return skill.directory

    def _add_disclosure_tools(self) -> None:
        read = ToolAnnotations(read_only_hint=True, destructive_hint=False, open_world_hint=False)
        for fn in (
            self.skills_list,
            self.skills_outline,
            self.skills_show,
            self.skills_open,
            self.skills_sources,
            self.skills_search,
        ):
            self.add_tool(_guarded(fn), name=fn.__name__, annotations=read, structured_output=True)

    def skills_list(self) -> dict[str, Any]:
        """Every skill: name, description, its tools (empty for an instruction skill)."""
        return {
            "skills": [
                {
                    "name": s.name,
                    "description": s.description,
                    "kind": "instructions" if s.is_instruction_skill else "tools",
                    "tools": [t.name for t in s.tools],
                    "available": s.ok and s.available_in(self.mode),
                    "trust": s.trust.value,
                }
                for s in self.engine.library.skills()
            ]
        }

    def skills_outline(self, name: str) -> dict[str, Any]:
        """Headings (with levels and lines) of every Markdown file of skill NAME, SKILL.md first."""
        return {"headings": [h.to_dict() for h in disclosure.outline(self._folder(name))]}

    def skills_show(
        self, name: str, section: str | None = None, max_lines: int | None = None
    ) -> dict[str, Any]:
        """SKILL.md's body, or one section by heading title; max_lines cuts long text."""
        return {"text": disclosure.show(self._folder(name), section, max_lines)}

    def skills_open(self, name: str, path: str) -> dict[str, Any]:
        """One file of skill NAME by its path relative to the skill folder (never outside)."""
        return {"path": path, "text": disclosure.open_file(self._folder(name), path)}

    def skills_sources(self, name: str) -> dict[str, Any]:
        """The files of skill NAME with their sizes in bytes."""
        return {"files": [f.to_dict() for f in disclosure.sources(self._folder(name))]}

    def skills_search(self, query: str, limit: int = 10) -> dict[str, Any]:
        """Sections across all skills ranked by how many of QUERY's words they contain."""
        skills, unloaded = disclosure.servable_reporting(self.engine.library.skills())
        hits, problems = disclosure.search_reporting(skills, query, limit)
        # a skill that failed to load is named, never read: its diagnostic stays local
        problems = [(name, why.split(":", 1)[0]) for name, why in unloaded] + problems
        return {
            "hits": [h.to_dict() for h in hits],
            "skipped": [{"skill": name, "problem": why} for name, why in problems],
        }

    # ------------------------------------------------------------------ resources, prompts
    def _add_resource(self, skill: SkillDefinition) -> None:
        folder = skill.directory

        def read() -> str:  # checked at every read: the link may have changed since
            return disclosure.read_text(disclosure.require_skill_md(folder))

        self.add_resource(
            FunctionResource(
                uri=f"skill://{skill.name}/SKILL.md",
                name=f"{skill.name}/SKILL.md",
                description=skill.description,
                mime_type="text/markdown",
                fn=read,
            )
        )

    def _add_file_template(self) -> None:
        """``skill://NAME/PATH``: any file ``skills_sources`` lists for skill NAME, as the
        bytes the Skills extension digested (text when UTF-8, else a blob)."""

        def read(name: str, path: str) -> str | bytes:
            try:
                return resource_content(read_bytes(self._folder(name), path))
            except (DisclosureError, ToolError) as exc:
                raise ResourceError(str(exc)) from None

        self.resource(
            "skill://{name}/{+path}",
            name="skill-file",
            description="A file of a skill, by its path inside the skill folder.",
        )(read)

    def _add_prompt(self, block: ContextBlock) -> None:
        def prompt() -> str:
            return block.body

        self.add_prompt(
            Prompt.from_function(prompt, name=block.name, description=block.description)
        )


def _guarded(fn: Callable[..., dict[str, Any]]) -> Callable[..., dict[str, Any]]:
    """Disclosure errors become the tool's error text (``error[EXXX]: ...``)."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> dict[str, Any]:
        try:
            return fn(*args, **kwargs)
        except DisclosureError as exc:
            raise ToolError(str(exc)) from None
        except OSError as exc:
            raise ToolError(f"error[{disclosure.E_FILE_NOT_FOUND}]: {exc}") from None

    return wrapper


def serve(engine: Engine, mode: Mode | None = None) -> None:
    """Serve over stdio until the client closes the connection."""
    GibberishMCP(engine, mode).run("stdio")
