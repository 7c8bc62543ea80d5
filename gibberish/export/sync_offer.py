"""The sync offered after an install, and the clean-up after an uninstall: one rule for
the command line and the tray.

After an install, the skills just installed are copied to the chosen agents (``[sync]
targets``, else the agents found) with ``sync --skill``'s scope: another skill's copy is
never touched. An MCP server a non-bundled skill asks for is written only after the
person saw its full command and agreed (:class:`SyncOffer.plan` takes the consent).

After an uninstall, the MCP server entries the removed skills asked for are taken out of
the agents' configuration files, but only where gibberish's ownership record says it
wrote them and the entry is unchanged since, and only when no skill that remains (nor
the settings' ``[mcp_servers]``) still asks for that server.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from msgspec import Struct, field

from gibberish.export import agents
from gibberish.export.mcp_config import Consent, McpServer, wanted_servers
from gibberish.export.sync_all import SyncPlan, plan_sync
from gibberish.skills.library import SkillLibrary
from gibberish.skills.model import SkillDefinition, Trust

if TYPE_CHECKING:
    from gibberish.settings import Settings


def sync_targets(
    configured: Sequence[str], home: Path
) -> tuple[list[agents.AgentTarget], list[str]]:
    """The configured targets (``[sync] targets``), else the agents detected; and the
    configured names that are unknown."""
    if not configured:
        return agents.detect_installed(home), []
    chosen, unknown = [], []
    for name in configured:
        try:
            chosen.append(agents.target(name))
        except KeyError:
            unknown.append(name)
    return chosen, unknown


def offer_for(settings: Settings, names: Sequence[str], project: Path | None = None) -> SyncOffer:
    """Copying the skills ``names`` just installed (into the user's folder, or
    ``project``'s) to the person's agents: the ``[sync] targets``, else the agents found."""
    from gibberish.install.transaction import InstallTarget

    target = InstallTarget.for_project(project) if project else InstallTarget.user()
    home = Path(os.path.expanduser("~"))
    targets, _unknown = sync_targets(settings.sync_targets, home)
    return SyncOffer(target.skills_dir, list(names), targets, home, project, settings.mcp_servers)


def load_skills(skills_dir: Path, names: Iterable[str]) -> list[SkillDefinition]:
    """The installed skills ``names`` as sync reads them (installed skills are untrusted)."""
    checker = SkillLibrary([])
    return [checker.load_folder(skills_dir / n, trust=Trust.UNTRUSTED) for n in names]


class SyncOffer(Struct):
    """Copying ``names`` (just installed into ``skills_dir``) to ``targets``."""

    skills_dir: Path
    names: list[str]
    targets: list[agents.AgentTarget]
    home: Path
    project: Path | None = None
    settings_servers: Mapping[str, Any] = field(default_factory=dict)

    @property
    def command(self) -> str:
        """The command that does the same later."""
        command = "gibberish sync " + " ".join(f"--skill {n}" for n in self.names)
        return command + (f" --project {self.project}" if self.project is not None else "")

    def plan(self, consent: Consent | None) -> SyncPlan:
        """Every step; an MCP server that needs agreement is written only if ``consent``
        says yes (asked once per server). Nothing is written."""
        return plan_sync(
            load_skills(self.skills_dir, self.names),
            self.targets,
            home=self.home,
            project=self.project,
            settings_servers=self.settings_servers,
            scope=set(self.names),
            consent=consent,
        )

    def servers_to_agree(self) -> list[McpServer]:
        """The MCP servers this sync would write only with the person's agreement."""
        asked: list[McpServer] = []

        def refuse(server: McpServer) -> bool:
            asked.append(server)
            return False

        self.plan(refuse)
        return asked


def unneeded_servers(
    removed: Sequence[SkillDefinition],
    remaining: Iterable[SkillDefinition],
    settings_servers: Mapping[str, Any],
) -> set[str]:
    """The MCP servers ``removed`` asked for that nothing left still asks for."""
    gone, _ = wanted_servers({}, removed)
    removed_names = {s.name for s in removed}
    kept_skills = [s for s in remaining if s.name not in removed_names]
    kept, _ = wanted_servers(settings_servers, kept_skills)
    return set(gone) - set(kept)


def skip_reasons(plan: SyncPlan) -> Collection[str]:
    """The names of MCP servers left out for want of agreement."""
    return sorted(
        {s.name for m in plan.mcp for s in m.steps if s.action.value == "skip-unapproved"}
    )
