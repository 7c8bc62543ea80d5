"""The decision table of docs/adr/0057-own-runs-and-trusted-installs.md: given what a tool
is, what the person approved and who started the run, run or ask.

This is the one place the rule lives. The Engine builds a ``ToolPolicy`` from the loaded
skill, asks the ``ApprovalStore`` for an ``ApprovalState`` of the skill's current
fingerprint, says whether the person started the run themselves (``own_run``), and acts
on the ``Decision``.

A **person's own run** (the tray's or command bar's Run, ``gibberish run``, a form the
person confirmed) of a version they approved runs; a run a **model** started (MCP,
``gibberish ask``, a voice request sent straight to run) runs unasked only when the tool
only reads:

======================================  =====================  ==================  ==========
trust and approval                      own run                model, read_only    model,
                                        (not always_ask)       (not always_ask)    otherwise
======================================  =====================  ==================  ==========
bundled                                 run                    run                 ask
user or installed, version trusted      run                    run                 ask
user, not approved / changed            ask, first run         ask, first run      ask, first run
installed, not trusted / changed        ask, first run +       ask, first run +    ask, first run +
                                        warning                warning             warning
came with an untrusted project folder   ask + warning          ask + warning       ask + warning
======================================  =====================  ==================  ==========

``always_ask`` asks in every row. Without a sandbox (no bubblewrap) ``read_only`` is not
enforced: it is then only the author's word, so it earns nothing — a model's run of a
user or installed skill's read-only tool asks like any other tool; bundled skills,
reviewed with gibberish itself, still run. A person's own run does not rest on
``read_only`` at all, so it is the same with or without the sandbox.

"First run" decisions offer "Trust this version" (``Decision.can_always_allow``), which
stores an approval of the fingerprint; for an installed skill it is what turns the
warning off. A skill that came with an untrusted project folder is never first-run: the
way to stop its asking is to trust the project, which the warning says. The decision
never refuses; refusing is what happens when the person says no.
"""

from __future__ import annotations

from msgspec import Struct

from gibberish.skills.model import SkillDefinition, ToolDefinition, Trust
from gibberish.skills.titles import title
from gibberish.trust.decision import ChangedFiles, Decision

UNTRUSTED_BANNER = (
    "This skill was installed from outside gibberish and you have not trusted this version "
    "yet. It runs real commands on your computer: only allow it if you trust where it came "
    "from."
)


def project_banner(project: str) -> str:
    """The warning for a skill that came with a project folder the person has not trusted."""
    return (
        f"This skill came with the project folder {project}, which you have not trusted, and "
        "has not been reviewed. It runs real commands on your computer: only allow it if you "
        f"trust that project. To load its skills as your own: gibberish project trust {project}"
    )


class ToolPolicy(Struct, frozen=True):
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


class ApprovalState(Struct, frozen=True):
    """What the approval store says about a skill's *current* fingerprint.

    ``changed_files`` is set only when an earlier approval exists for another fingerprint.
    """

    approved: bool
    changed_files: ChangedFiles | None = None


def decide(policy: ToolPolicy, approval: ApprovalState, *, own_run: bool = False) -> Decision:
    """Apply the decision table; the reason is a sentence for the dialog or the CLI.

    ``own_run`` is True only when the person started this run themselves; anything else
    (and the default) is decided as a run a model started, the stricter column."""
    if policy.trust is Trust.UNTRUSTED and policy.project:
        return _from_project(policy, approval)
    if policy.trust is not Trust.BUNDLED and not approval.approved:
        return _first_run(policy, approval, own_run)
    return _trusted(policy, own_run)


def _named(policy: ToolPolicy) -> tuple[str, str]:
    """The skill's and the tool's titles as the sentences name them ("Git", “Git log”):
    a person reads titles; the identifiers are in the approval's *Details*."""
    return title(policy.skill), f"“{title(policy.name)}”"


def _trusted(policy: ToolPolicy, own_run: bool) -> Decision:
    """Bundled, or a user or installed skill whose current version the person trusted."""
    skill, tool = _named(policy)
    bundled = policy.trust is Trust.BUNDLED
    origin = (
        f"“{skill}” ships with gibberish" if bundled else f"You trusted this version of “{skill}”"
    )
    if policy.always_ask:
        return Decision.ask(
            f"“{skill}” asks to be confirmed before every run.",
            asks_again="This skill asks before every run, as it requests, even once trusted.",
        )
    if own_run:
        return Decision.run(f"{origin} and you started {tool} yourself, so it runs.")
    if policy.read_only and not policy.read_only_enforced and not bundled:
        return Decision.ask(
            f"“{skill}” says {tool} only reads, but without a sandbox (bubblewrap) nothing "
            "holds it to that, so gibberish asks each time a model or what was heard starts it.",
            asks_again=_model_asks_again(),
        )
    if policy.read_only:
        return Decision.run(f"{origin} and {tool} only reads, so it runs without asking.")
    return Decision.ask(
        f"A model or what was heard started {tool} from “{skill}”, which can change things "
        "on your computer, so gibberish asks before each such run.",
        asks_again=_model_asks_again(),
    )


def _model_asks_again() -> str:
    return (
        "It runs without asking when you start it yourself; when a model or what was "
        "heard starts it, it asks every time."
    )


def _first_run(policy: ToolPolicy, approval: ApprovalState, own_run: bool) -> Decision:
    """A user or installed skill whose current version nobody approved."""
    skill, tool = _named(policy)
    installed = policy.trust is Trust.UNTRUSTED
    changed = approval.changed_files
    if changed:
        n = len(changed.added) + len(changed.removed) + len(changed.modified)
        files = "1 file" if n == 1 else f"{n} files"
        reason = (
            f"“{skill}” changed since you trusted it ({files}); "
            f"check what it will run before {tool} runs again."
        )
    elif changed is not None:
        reason = (
            f"“{skill}” is not the version you trusted; "
            f"check what it will run before {tool} runs again."
        )
    elif installed:
        reason = (
            f"“{skill}” was installed from outside and you have not trusted it yet; "
            f"check where it came from and what {tool} will run."
        )
    else:
        reason = (
            f"You have not approved “{skill}” yet; check what {tool} will run before its first run."
        )
    if policy.always_ask:
        again = "This skill asks before every run, as it requests, even once trusted."
    elif _trusted(policy, own_run=False).runs:
        again = (
            "Once you trust this version, it runs without asking until any of its files changes."
        )
    else:
        again = (
            "Once you trust this version, it runs without asking when you start it yourself; "
            "when a model or what was heard starts it, it asks every time. Any change to its "
            "files asks again."
        )
    return Decision.ask(
        reason,
        first_run=True,
        changed_files=changed,
        banner=UNTRUSTED_BANNER if installed else None,
        asks_again=again,
        runs_once_trusted=_trusted(policy, own_run).runs,
    )


def _from_project(policy: ToolPolicy, approval: ApprovalState) -> Decision:
    """Every run of a skill that came with an untrusted project folder asks, with the
    banner that names the folder and how to trust it."""
    skill, tool = _named(policy)
    assert policy.project is not None
    return Decision.ask(
        f"“{skill}” came with the project folder {policy.project}, which you have not "
        f"trusted, so gibberish asks before every run of {tool}.",
        changed_files=approval.changed_files or None,
        banner=project_banner(policy.project),
        asks_again=(
            "Skills that came with a project folder you have not trusted ask before every run."
        ),
    )
