"""What crosses the Engine's boundary: plain, frozen values and the one error type."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from gibberish.runner import RunResult
from gibberish.skills.model import Mode, SkillDefinition, ToolDefinition, tool_ref
from gibberish.trust import explain
from gibberish.trust.approvals import ApprovalRecord
from gibberish.trust.decision import Decision
from gibberish.trust.fingerprint import Fingerprint, OutsideProgram
from gibberish.trust.model_reads import RunOrigin


class EngineError(Exception):
    """A problem the user caused or can fix; ``str(error)`` is the message to show."""


@dataclass(frozen=True)
class EngineOptions:
    extra_skills_dirs: tuple[Path, ...] = ()
    include_user: bool = True
    include_bundled: bool = True
    settings_path: Path | None = None


@dataclass(frozen=True)
class ToolRef:
    skill: SkillDefinition
    tool: ToolDefinition

    @property
    def ref(self) -> str:
        return tool_ref(self.skill.name, self.tool.name)


@dataclass(frozen=True)
class PreparedRun:
    """Everything a person must see before a run, and everything the run needs."""

    skill: SkillDefinition
    tool: ToolDefinition
    arguments: Mapping[str, Any]
    argv: tuple[str, ...]
    cwd: Path
    timeout: float
    decision: Decision
    fingerprint: Fingerprint
    mode: Mode
    programs: tuple[OutsideProgram, ...] = ()
    """Programs the skill's tools run from outside its folder (home ones are fingerprinted)."""
    secrets: tuple[str, ...] = ()
    """Names of the secrets this run receives (bound to this skill's folder)."""
    origin: RunOrigin = RunOrigin.PERSON
    hidden: tuple[str, ...] = ()
    """Credential places the run's sandbox hides (a model started it; trust/credentials)."""

    @property
    def ref(self) -> str:
        return tool_ref(self.skill.name, self.tool.name)

    @property
    def network(self) -> bool:
        return self.skill.network

    @cached_property
    def asks_again(self) -> str:
        """When the skill will ask next time, in words ("" when refused): the dialog and
        the command line show this same sentence (``trust.explain``)."""
        return explain.asks_again(self.skill, self.decision)

    @cached_property
    def reaches(self) -> tuple[explain.Reach, ...]:
        """What the run may reach beyond its folder (display, credentials, reads outside
        the project), worded once for the dialog and the command line."""
        return explain.reaches(self.skill, self.decision)

    @cached_property
    def also_runs(self) -> tuple[str, ...]:
        """The programs outside the skill folder this tool starts, one line each."""
        return explain.also_runs(self.programs, self.tool.name)


@dataclass(frozen=True)
class RecentRun:
    ref: str
    argv: tuple[str, ...]
    result: RunResult


@dataclass(frozen=True)
class ApprovalStatus:
    """A stored approval and what it means for the skill on disk today."""

    APPROVED = "approved"
    CHANGED = "changed since approval"
    GONE = "skill not found"

    record: ApprovalRecord
    status: str

    @property
    def current(self) -> bool:
        return self.status == self.APPROVED
