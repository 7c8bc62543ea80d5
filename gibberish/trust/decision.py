"""What the Engine decided about a request to run a tool: run, ask, or refuse.

The tray's approval dialog, the CLI prompt and the model router all act on this one
value, so a rule of the decision table is enforced in one place (``policy.decide``).
"""

from __future__ import annotations

from enum import StrEnum

from msgspec import Struct


class DecisionKind(StrEnum):
    RUN = "run"
    ASK = "ask"
    REFUSE = "refuse"


class ChangedFiles(Struct, frozen=True):
    """Files that differ from the approved version of a skill (relative paths, sorted)."""

    added: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    modified: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.added or self.removed or self.modified)

    def lines(self) -> list[str]:
        """Human lines for the dialog: ``+ new.sh``, ``- old.sh``, ``~ SKILL.md``."""
        return (
            [f"+ {p}" for p in self.added]
            + [f"- {p}" for p in self.removed]
            + [f"~ {p}" for p in self.modified]
        )


class Decision(Struct, frozen=True):
    kind: DecisionKind
    reason: str
    """One sentence a person understands: why it runs, why it asks, why it is refused."""
    first_run: bool = False
    """True when this is a first-run approval (never approved, or changed since)."""
    changed_files: ChangedFiles | None = None
    """Set when an earlier approval exists but the skill's files changed since."""
    banner: str | None = None
    """A warning shown above everything else (untrusted skills)."""
    reads_outside: tuple[str, ...] = ()
    """Paths outside the project a model chose for this run (shown with the question)."""
    person_must_answer: bool = False
    """A run that would have run unasked asks because a model chose a path outside the
    project: a person answers it, a standing ``--yes`` does not."""
    asks_again: str = ""
    """When this skill will ask next time, in words (``trust.explain.asks_again``)."""
    runs_once_trusted: bool = False
    """A first run whose question "Trust this version" settles: trusted, this same kind
    of run would go without asking (so a message may suggest trusting it)."""

    @property
    def runs(self) -> bool:
        return self.kind is DecisionKind.RUN

    @property
    def asks(self) -> bool:
        return self.kind is DecisionKind.ASK

    @property
    def refused(self) -> bool:
        return self.kind is DecisionKind.REFUSE

    @property
    def can_always_allow(self) -> bool:
        """ "Trust this version" is offered only for first-run approvals."""
        return self.asks and self.first_run

    @classmethod
    def run(cls, reason: str) -> Decision:
        return cls(DecisionKind.RUN, reason)

    @classmethod
    def refuse(cls, reason: str) -> Decision:
        return cls(DecisionKind.REFUSE, reason)

    @classmethod
    def ask(
        cls,
        reason: str,
        *,
        first_run: bool = False,
        changed_files: ChangedFiles | None = None,
        banner: str | None = None,
        asks_again: str = "",
        runs_once_trusted: bool = False,
    ) -> Decision:
        return cls(
            DecisionKind.ASK,
            reason,
            first_run,
            changed_files,
            banner,
            asks_again=asks_again,
            runs_once_trusted=runs_once_trusted,
        )
