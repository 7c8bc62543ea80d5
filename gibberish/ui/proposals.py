"""The tray's one opener of a proposal: each proposed call opened like a click.

The command bar (a model's call, or its best match for the words typed) and voice (what
was heard) hand their ``Proposal`` here. ``run_flow.proposed_runs`` says which calls to
open, in order, with their note and missing values; each goes through ``launch`` (the
Controller's: the form, then the decision and approval) as a run a model started, so a
proposal never skips the form or the approval (docs/adr/0091-one-proposal.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from gibberish.assistant.heard import Heard
    from gibberish.assistant.proposal import Proposal
    from gibberish.ui.runs.views import RunSession


class ProposalOpener:
    """Opens proposals through ``launch`` (``Controller.launch``), given, not the Controller."""

    def __init__(self, launch: Callable[..., RunSession | None]) -> None:
        self._launch = launch

    def open(self, proposal: Proposal[Heard | None]) -> list[RunSession]:
        """Each proposed call in turn, each through its own form and decision; the run
        windows of those that started. The run flow is imported here, on first use: the
        tray shows its menu before the Engine is imported (tests/ui/test_cold_start.py)."""
        from gibberish.engine.run_flow import proposed_runs

        opened = [
            self.open_one(run.ref, run.arguments, run.note, run.missing)
            for run in proposed_runs(proposal)
        ]
        return [session for session in opened if session is not None]

    def open_one(
        self, ref: str, arguments: Mapping[str, Any], note: str, missing: Sequence[str]
    ) -> RunSession | None:
        """One proposed call: its form prefilled with ``arguments``, ``note`` above it and
        ``missing`` marked, decided as a run a model started."""
        from gibberish.trust.model_reads import RunOrigin

        return self._launch(
            ref, dict(arguments) or None, note=note, missing=tuple(missing), origin=RunOrigin.MODEL
        )
