"""One sync across every chosen agent: skills folders and MCP configuration files.

``plan_sync`` reads and decides; ``apply_sync`` writes. Targets sharing a folder or a
configuration file (``codex`` and ``agents`` share ``~/.agents/skills``; ``gemini-cli``
uses one settings file for both levels) are planned once.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from pathlib import Path
from typing import Any

from msgspec import Struct, field

from gibberish.export.agents import AgentTarget, McpFile
from gibberish.export.instruction_files import apply_format, instruction_format
from gibberish.export.mcp_config import (
    Consent,
    McpPlan,
    McpServer,
    apply_mcp,
    plan_mcp,
    wanted_servers,
)
from gibberish.export.sync import Action, FolderPlan, apply_folder, folders_for, plan_folder
from gibberish.skills.model import SkillDefinition


class SyncPlan(Struct):
    folders: list[FolderPlan] = field(default_factory=list)
    mcp: list[McpPlan] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def has_changes(self) -> bool:
        return any(p.changes for p in self.folders) or any(p.changes for p in self.mcp)

    def rows(self, home: Path, *, all_steps: bool = True) -> list[list[str]]:
        """target, action, path, reason — for the plan table."""

        def shown(path: Path) -> str:
            try:
                return "~/" + str(path.relative_to(home))
            except ValueError:
                return str(path)

        rows: list[list[str]] = []
        for plan in self.folders:
            for step in plan.steps:
                if all_steps or step.action.writes:
                    rows.append(
                        [", ".join(plan.targets), step.action.value, shown(step.path), step.reason]
                    )
        for mcp in self.mcp:
            for s in mcp.steps:
                if all_steps or s.action.writes:
                    where = f"{shown(s.file)} {mcp.spec.key}.{s.name}"
                    rows.append([", ".join(mcp.targets), s.action.value, where, s.reason])
        return rows


def mcp_files(
    targets: Sequence[AgentTarget], home: Path, project: Path | None
) -> dict[Path, tuple[McpFile, list[str]]]:
    files: dict[Path, tuple[McpFile, list[str]]] = {}
    for t in targets:
        found = t.mcp_file(home, project)
        if found is not None:
            path, spec = found
            files.setdefault(path, (spec, []))[1].append(t.name)
    return files


def plan_sync(
    skills: Sequence[SkillDefinition],
    targets: Sequence[AgentTarget],
    *,
    home: Path,
    project: Path | None = None,
    link: bool = False,
    settings_servers: Mapping[str, Any] | None = None,
    scope: Collection[str] | None = None,
    consent: Consent | None = None,
) -> SyncPlan:
    """Decide every step for ``skills`` into ``targets``; nothing is written.

    With a ``scope`` (the names of ``--skill``) other skills' copies are never touched.
    ``consent`` is asked (once per server) about each MCP server entry that is not from a
    bundled skill or the person's settings; without it such entries are skipped.
    """
    plan = SyncPlan()
    folders, missing = folders_for(targets, home, project)
    for name in missing:
        level = "project" if project is not None else "user"
        plan.notes.append(f"{name}: has no {level}-level skills folder; skipped")
    for folder, names in folders.items():
        folder_plan = plan_folder(folder, names, skills, link=link, scope=scope)
        plan.notes.extend(f"{folder}: {n}" for n in folder_plan.notes)
        plan.folders.append(folder_plan)
    servers, problems = wanted_servers(settings_servers or {}, skills)
    plan.notes.extend(problems)
    ask = _once(consent)
    for path, (spec, names) in mcp_files(targets, home, project).items():
        mcp = plan_mcp(path, spec, names, servers, ask)
        if scope is not None:  # a partial sync never removes what other skills need
            mcp.steps = [step for step in mcp.steps if step.action is not Action.REMOVE]
        if mcp.problem:
            plan.notes.append(mcp.problem)
        plan.mcp.append(mcp)
    return plan


def _once(consent: Consent | None) -> Consent | None:
    """``consent`` asked at most once per server name (several agents share servers)."""
    if consent is None:
        return None
    answers: dict[str, bool] = {}

    def ask(server: McpServer) -> bool:
        if server.name not in answers:
            answers[server.name] = consent(server)
        return answers[server.name]

    return ask


def apply_sync(plan: SyncPlan) -> list[str]:
    """Carry out every plan; one destination failing never stops the others."""
    errors: list[str] = []
    for folder_plan in plan.folders:
        if not folder_plan.changes:
            continue
        opt_in = instruction_format(folder_plan.targets[0]) is not None
        try:
            errors.extend((apply_format if opt_in else apply_folder)(folder_plan))
        except OSError as exc:
            errors.append(f"{folder_plan.folder}: {exc}")
    for mcp in plan.mcp:
        if mcp.problem or not mcp.changes:
            continue
        try:
            errors.extend(apply_mcp(mcp))
        except OSError as exc:
            errors.append(f"{mcp.file}: {exc}")
    return errors


def counts(plan: SyncPlan) -> dict[str, int]:
    out: dict[str, int] = {}
    for folder_plan in plan.folders:
        for step in folder_plan.steps:
            out[step.action.value] = out.get(step.action.value, 0) + 1
    for mcp in plan.mcp:
        for s in mcp.steps:
            out[s.action.value] = out.get(s.action.value, 0) + 1
    return out


__all__ = ["Action", "SyncPlan", "apply_sync", "counts", "plan_sync"]
