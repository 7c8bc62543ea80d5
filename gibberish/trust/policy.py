"""The decision table of docs/adr/0010-trust-table.md: given what a tool is and what the user approved, run or ask.

This is the one place the rule lives. The Engine builds a ``ToolPolicy`` from the loaded
skill, asks the ``ApprovalStore`` for an ``ApprovalState`` of the skill's current
fingerprint, and acts on the ``Decision``:

===============================  ==========================  ==================  ===========
trust                            read_only, not always_ask   otherwise           always_ask
===============================  ==========================  ==================  ===========
bundled                          run                         ask (confirm)       ask
user, approved fingerprint       run                         ask (confirm)       ask
user, not approved / changed     ask (first run)             ask (first run)     ask (first run)
untrusted                        ask + banner                ask + banner        ask + banner
===============================  ==========================  ==================  ===========

Without a sandbox (no bubblewrap) ``read_only`` is not enforced: a user skill's claim is
then only its author's word, so its read-only tools ask before each run like any other;
bundled skills, reviewed with gibberish itself, still run.

"First run" decisions offer "Always allow" (``Decision.can_always_allow``), which stores an
approval of the fingerprint. Untrusted skills are never first-run: approving one would not
stop the asking, so the button would promise something that does not happen. The
decision never refuses; refusing is what happens when the user says no.
"""

from __future__ import annotations

from dataclasses import dataclass

from gibberish.skills.model import SkillDefinition, ToolDefinition, Trust
from gibberish.trust.decision import ChangedFiles, Decision

UNTRUSTED_BANNER = (
    "This skill was imported from outside gibberish and has not been reviewed. "
    "It runs real commands on your computer: only allow it if you trust where it came from."
)


def project_banner(project: str) -> str:
    """The warning for a skill that came with a project folder the person has not trusted."""
    return (
        f"This skill came with the project folder {project}, which you have not trusted, and "
        "has not been reviewed. It runs real commands on your computer: only allow it if you "
        f"trust that project. To load its skills as your own: gibberish project trust {project}"
    )


@dataclass(frozen=True)
class ToolPolicy:
    """What the decision table needs to know about one tool of one skill."""

    name: str
    skill: str
    read_only: bool
    always_ask: bool
    network: bool
    trust: Trust
    source: str
    """The skill's folder (shown in dialogs; approvals are keyed by name + fingerprint)."""
    read_only_enforced: bool = True
    """False when runs are not sandboxed: ``read_only`` is then only the author's word."""
    project: str | None = None
    """The untrusted project folder the skill came with (``.gibberish/skills``), if any."""

    @classmethod
    def for_tool(cls, skill: SkillDefinition, tool: ToolDefinition) -> ToolPolicy:
        """Policy flags are declared per skill in the frontmatter; every tool inherits them."""
        return cls(
            name=tool.name,
            skill=skill.name,
            read_only=skill.read_only,
            always_ask=skill.always_ask,
            network=skill.network,
            trust=skill.trust,
            source=str(skill.directory),
        )


@dataclass(frozen=True)
class ApprovalState:
    """What the approval store says about a skill's *current* fingerprint.

    ``changed_files`` is set only when an earlier approval exists for another fingerprint.
    """

    approved: bool
    changed_files: ChangedFiles | None = None


def decide(policy: ToolPolicy, approval: ApprovalState) -> Decision:
    """Apply the decision table; the reason is a sentence for the dialog or the CLI."""
    skill, tool = policy.skill, policy.name

    if policy.trust is Trust.UNTRUSTED:
        return _untrusted(policy, approval)

    if policy.trust is Trust.USER and not approval.approved:
        changed = approval.changed_files
        if changed:
            n = len(changed.added) + len(changed.removed) + len(changed.modified)
            files = "1 file" if n == 1 else f"{n} files"
            reason = (
                f"“{skill}” changed since you approved it ({files}); "
                f"check what it will run before {tool} runs again."
            )
        elif changed is not None:
            reason = (
                f"“{skill}” is not the version you approved; "
                f"check what it will run before {tool} runs again."
            )
        else:
            reason = (
                f"You have not approved “{skill}” yet; "
                f"check what {tool} will run before its first run."
            )
        return Decision.ask(reason, first_run=True, changed_files=changed)

    # Bundled, or a user skill whose current fingerprint is approved.
    origin = (
        f"“{skill}” ships with gibberish"
        if policy.trust is Trust.BUNDLED
        else f"You approved “{skill}”"
    )
    if policy.always_ask:
        return Decision.ask(f"“{skill}” asks to be confirmed before every run.")
    if policy.read_only and not policy.read_only_enforced and policy.trust is Trust.USER:
        return Decision.ask(
            f"“{skill}” says {tool} only reads, but without a sandbox (bubblewrap) nothing "
            "holds it to that, so gibberish asks before each run."
        )
    if policy.read_only:
        return Decision.run(f"{origin} and {tool} only reads, so it runs without asking.")
    return Decision.ask(
        f"Running {tool} from “{skill}” can change things on your computer, "
        "so gibberish asks before each run."
    )


def _untrusted(policy: ToolPolicy, approval: ApprovalState) -> Decision:
    """Every run of an untrusted skill asks, with the banner that says where it came from:
    the project folder it came with (and how to trust it), or from outside."""
    skill, tool = policy.skill, policy.name
    if policy.project:
        return Decision.ask(
            f"“{skill}” came with the project folder {policy.project}, which you have not "
            f"trusted, so gibberish asks before every run of {tool}.",
            changed_files=approval.changed_files or None,
            banner=project_banner(policy.project),
        )
    return Decision.ask(
        f"“{skill}” was imported from outside, so gibberish asks before every run of {tool}.",
        changed_files=approval.changed_files or None,
        banner=UNTRUSTED_BANNER,
    )
