"""After *Install skill…*: offer to copy the new skills to the person's agents.

The same offer as ``gibberish install`` on a terminal (:mod:`gibberish.export.sync_offer`):
the agents chosen in ``[sync] targets`` (else the ones found), only the skills just
installed (another skill's copy is never touched), and the plan — every folder and
entry that would be written — shown before anything is. An MCP server a skill asks for
is a program the agent will start outside gibberish's sandbox: each one is listed with
its full command and an unticked box, and only a ticked one is written.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtWidgets import QCheckBox, QDialog, QDialogButtonBox, QVBoxLayout, QWidget

from gibberish.ui import icons
from gibberish.ui.widgets import MARGIN, SPACING, banner, code_box, help_label

if TYPE_CHECKING:
    from gibberish.export.mcp_config import McpServer
    from gibberish.export.sync_all import SyncPlan
    from gibberish.export.sync_offer import SyncOffer


def plan_lines(plan: SyncPlan, offer: SyncOffer) -> list[str]:
    """The plan as the CLI's table shows it: target, action, where, why."""
    lines = []
    for target, action, where, reason in plan.rows(offer.home, all_steps=True):
        if action == "skip-unapproved":  # the dialog asks below, with the full command
            action, reason = "ask", "written only if you tick it below"
        lines.append(f"{target}  {action}  {where}  {reason}")
    return lines + [f"note: {note}" for note in plan.notes]


class SyncOfferDialog(QDialog):
    """Yes copies (with the ticked MCP servers), *Not now* writes nothing."""

    def __init__(self, offer: SyncOffer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("sync-offer-dialog")
        self.setWindowTitle("Copy to your agents — gibberish")
        self.setWindowIcon(icons.app_icon())
        self.offer = offer
        self.errors: list[str] = []
        self.servers: dict[str, QCheckBox] = {}
        self._build()

    def _build(self) -> None:
        layout = QVBoxLayout(self)
        layout.setContentsMargins(MARGIN, MARGIN, MARGIN, MARGIN)
        layout.setSpacing(SPACING)
        names = ", ".join(self.offer.names)
        where = ", ".join(t.name for t in self.offer.targets)
        if where:
            text = (
                f"Copy {names} to your agents ({where})? Only these skills are copied; "
                f"nothing is written until you choose Copy. Later: {self.offer.command}"
            )
        else:
            text = (
                f"No agent found to copy {names} to; name one with “{self.offer.command} TARGET”."
            )
        self.question = help_label(text)
        self.question.setObjectName("sync-offer-question")
        layout.addWidget(self.question)
        preview = self.offer.plan(None) if self.offer.targets else None
        self.details = code_box(
            "\n".join(plan_lines(preview, self.offer)) if preview else "", max_lines=10
        )
        self.details.setObjectName("sync-offer-plan")
        layout.addWidget(self.details)
        servers = self.offer.servers_to_agree() if self.offer.targets else []
        if servers:
            layout.addWidget(
                banner(
                    "These skills ask your agents to start MCP servers: programs that run "
                    "outside gibberish's sandbox whenever the agent starts. Tick only the "
                    "ones you have read and agree to."
                )
            )
        for server in servers:
            layout.addWidget(self._server_box(server))
        self.status = help_label("")
        self.status.setObjectName("sync-offer-status")
        layout.addWidget(self.status)
        buttons = QDialogButtonBox()
        self.copy_button = buttons.addButton("Copy", QDialogButtonBox.ButtonRole.AcceptRole)
        self.copy_button.setObjectName("sync-offer-copy")
        self.copy_button.setEnabled(bool(self.offer.targets))
        self.no_button = buttons.addButton("Not now", QDialogButtonBox.ButtonRole.RejectRole)
        self.no_button.setObjectName("sync-offer-no")
        self.no_button.setDefault(True)
        buttons.accepted.connect(self.copy)
        buttons.rejected.connect(self.reject)
        layout.addStretch(1)
        layout.addWidget(buttons)
        self.no_button.setFocus()
        self.resize(640, 480)

    def _server_box(self, server: McpServer) -> QCheckBox:
        box = QCheckBox(
            f"Write MCP server {server.name!r}: the agent would {server.describe()}"
            f"\n(asked for by {server.origin})"
        )
        box.setObjectName(f"sync-offer-mcp-{server.name}")
        box.setChecked(False)
        self.servers[server.name] = box
        return box

    def agreed(self) -> set[str]:
        return {name for name, box in self.servers.items() if box.isChecked()}

    def copy(self) -> None:
        """Write the copies and the agreed MCP entries; errors are shown, not raised."""
        agreed = self.agreed()
        plan = self.offer.plan(lambda server: server.name in agreed)
        from gibberish.export.sync_all import apply_sync

        try:
            self.errors = apply_sync(plan)
        except OSError as exc:  # apply_sync reports per destination; this is a last net
            self.errors = [str(exc)]
        if self.errors:
            self.status.setText("Not everything was copied:\n" + "\n".join(self.errors))
            self.copy_button.setEnabled(False)
            return
        self.accept()
