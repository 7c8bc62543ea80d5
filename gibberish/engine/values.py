"""What crosses the Engine's boundary: plain, frozen values and the one error type."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from pathlib import Path
from typing import Any

from msgspec import Struct

from gibberish.runner import RunResult
from gibberish.skills.model import Mode, SkillDefinition, ToolDefinition, tool_ref
from gibberish.trust import explain
from gibberish.trust.approvals import ApprovalRecord
from gibberish.trust.decision import ChangedFiles, Decision
from gibberish.trust.fingerprint import Fingerprint, OutsideProgram
from gibberish.trust.model_reads import RunOrigin


class EngineError(Exception):
    """A problem the user caused or can fix; ``str(error)`` is the message to show."""


class EngineOptions(Struct, frozen=True):
    extra_skills_dirs: tuple[Path, ...] = ()
    include_user: bool = True
    include_bundled: bool = True
    settings_path: Path | None = None


class ToolRef(Struct, frozen=True):
    skill: SkillDefinition
    tool: ToolDefinition

    @property
    def ref(self) -> str:
        return tool_ref(self.skill.name, self.tool.name)


class PreparedRun(Struct, frozen=True, dict=True):
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
    own_run: bool = False
    """The person started this run themselves (a Run they pressed, ``gibberish run``, a
    form they confirmed); the decision table's own-run column was applied."""

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
    def came_from(self) -> str:
        """Where an installed skill came from, in words ("" for the person's own and
        bundled skills); shown with a first run's question."""
        return explain.came_from(self.skill)

    @cached_property
    def covered_files(self) -> tuple[str, ...]:
        """Every file "Trust this version" covers: the skill folder's files and the
        programs in the home folder its tools run."""
        return explain.covered_files(self.fingerprint)

    @cached_property
    def changed_diff(self) -> str:
        """What changed since the person trusted this skill, as a unified diff ("" when
        nothing changed or no approved copy was kept)."""
        return explain.changed_diff(self.skill.directory, self.decision.changed_files)

    @cached_property
    def run_yourself(self) -> str:
        """The ``gibberish run`` command line that runs this same call as your own run."""
        return explain.run_yourself(self.ref, self.arguments, self.cwd)

    @cached_property
    def also_runs(self) -> tuple[str, ...]:
        """The programs outside the skill folder this tool starts, one line each."""
        return explain.also_runs(self.programs, self.tool.name)


class RecentRun(Struct, frozen=True):
    ref: str
    argv: tuple[str, ...]
    result: RunResult


class ApprovalPreview(Struct, frozen=True):
    """What ``gibberish approvals approve`` shows before it trusts a skill's version."""

    skill: SkillDefinition
    fingerprint: Fingerprint
    came_from: str
    files: tuple[str, ...]
    approved: bool
    """This exact version is already trusted."""
    changed_files: ChangedFiles | None = None


class ApprovalStatus(Struct, frozen=True):
    """A stored approval and what it means for the skill on disk today."""

    APPROVED = "approved"
    CHANGED = "changed since approval"
    GONE = "skill not found"

    record: ApprovalRecord
    status: str

    @property
    def current(self) -> bool:
        return self.status == self.APPROVED
