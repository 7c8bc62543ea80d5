"""Taking a skill's synced copies out of every agent's folder (after an uninstall).

``gibberish sync`` records, per destination folder, what it wrote. When a skill is
uninstalled, its copies in agents' folders would otherwise linger as orphans that the
next full sync removes only if that sync happens to cover the same folder. This module
looks at every known agent folder (user level, or a project's), and where the ownership
record says gibberish wrote files or a link for the skill, plans their removal with the
same rules as a sync: only what gibberish wrote and nobody edited since goes; an edited
file is kept and reported. The MCP server entries named in ``servers`` (those the
removed skills asked for and no remaining skill needs) are taken out of every agent's
configuration file by the same rule: only an entry gibberish wrote and nobody changed.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path

from gibberish.export.agents import TARGETS
from gibberish.export.mcp_config import plan_mcp_removal
from gibberish.export.ownership import OwnershipRecord
from gibberish.export.sync import FolderPlan, folders_for, plan_folder
from gibberish.export.sync_all import SyncPlan, mcp_files


def _owns_any(record: OwnershipRecord, names: Collection[str]) -> bool:
    files = any(rel.split("/", 1)[0] in names for rel in record.files)
    return files or any(name in names for name in record.links)


def plan_unsync(
    names: Collection[str],
    *,
    home: Path,
    project: Path | None = None,
    servers: Collection[str] = (),
) -> SyncPlan:
    """The removal of every synced copy of ``names`` and of the MCP entries ``servers``
    that gibberish owns; nothing is written."""
    plan = SyncPlan()
    folders, _missing = folders_for(TARGETS, home, project)
    for folder, targets in folders.items():
        record = OwnershipRecord.load("skills", folder)
        if record.problem or not _owns_any(record, names):
            continue
        folder_plan: FolderPlan = plan_folder(folder, targets, [], scope=set(names))
        if folder_plan.steps:
            plan.folders.append(folder_plan)
    if servers:
        for path, (spec, targets) in mcp_files(TARGETS, home, project).items():
            mcp = plan_mcp_removal(path, spec, targets, servers)
            if mcp.problem:
                plan.notes.append(mcp.problem)
            if mcp.steps:
                plan.mcp.append(mcp)
    return plan
