"""The trust facade: decisions, fingerprints, approvals (with their copies) and secrets.

Every approval path — the tray's "Trust this version", ``gibberish approvals approve``,
``run --always`` — goes through here, so each keeps the approved copy the dialog diffs
against, and revoke/reset delete it: the tray and the command line never disagree.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from msgspec.structs import replace

from gibberish.engine.library import LibraryFacade
from gibberish.engine.values import (
    ApprovalPreview,
    ApprovalStatus,
    EngineError,
    PreparedRun,
    ToolRef,
)
from gibberish.runner import sandbox as runner_sandbox
from gibberish.skills.model import SkillDefinition, ToolDefinition, Trust
from gibberish.trust import approved_copies, explain
from gibberish.trust import projects as project_trust
from gibberish.trust.approvals import ApprovalStore
from gibberish.trust.decision import Decision
from gibberish.trust.fingerprint import (
    Fingerprint,
    FingerprintError,
    covers,
    skill_fingerprint,
)
from gibberish.trust.policy import ToolPolicy, decide
from gibberish.trust.provenance import read_provenance
from gibberish.trust.secrets import SecretStore, SecretStoreError


class TrustFacade:
    def __init__(
        self, library: LibraryFacade, approvals: ApprovalStore, secrets: SecretStore
    ) -> None:
        self._library = library
        self.approvals = approvals
        self.secrets = secrets

    # ------------------------------------------------------------------ deciding
    def decide(
        self, skill: SkillDefinition, tool: ToolDefinition, *, own_run: bool = False
    ) -> tuple[Decision, Fingerprint]:
        """Run, ask or refuse — from the tool's policy, the skill's approval today, and
        whether the person started this run themselves (``own_run``; else a model did)."""
        fp = self.fingerprint(skill)
        state = self.approvals.state_for(skill.name, fp)
        untrusted = skill.trust is Trust.UNTRUSTED
        project = project_trust.untrusted_project_of(skill.directory) if untrusted else None
        policy = replace(
            ToolPolicy.for_tool(skill, tool),
            read_only_enforced=runner_sandbox.status().active,
            project=str(project) if project is not None else None,
        )
        decision = decide(policy, state, own_run=own_run)
        origin = read_provenance(skill.directory) if decision.banner else None
        if origin is not None:  # an installed skill: say where it came from
            decision = replace(decision, banner=f"{decision.banner} Source: {origin.source}")
        return decision, fp

    @staticmethod
    def fingerprint(skill: SkillDefinition, folder: Path | None = None) -> Fingerprint:
        """The skill folder (or its snapshot ``folder``) plus the home programs it runs."""
        try:
            return skill_fingerprint(skill, folder=folder)
        except FingerprintError as exc:
            raise EngineError(f"Skill {skill.name!r}: {exc}") from None
        except OSError as exc:
            if not skill.directory.is_dir():
                raise EngineError(
                    f"Skill {skill.name!r} is gone from {skill.directory}; reload the skills."
                ) from None
            raise EngineError(f"Skill {skill.name!r} cannot be read: {exc}") from None

    @staticmethod
    def check_program_inside(ref: ToolRef) -> None:
        """A ``./scripts/x`` program must still resolve inside its skill folder.

        The library checks symlinks when it loads; this catches a link swapped in since.
        """
        program = ref.tool.command.program if ref.tool.command else ""
        if not program.startswith("./"):
            return
        root = ref.skill.directory.resolve()
        target = (ref.skill.directory / program).resolve()
        if not target.is_relative_to(root):
            raise EngineError(
                f"{ref.ref}: {program} resolves to {target}, outside the skill folder {root}; "
                "refusing to run it (E-PATH-ESCAPE)."
            )
        if not covers(ref.skill.directory, ref.skill.directory / program):
            raise EngineError(
                f"{ref.ref}: {program} is not covered by the skill's approval (files under the "
                "skill's top-level .git/ are not fingerprinted); move it, e.g. to scripts/."
            )

    @staticmethod
    def shows_what_is_on_disk(skill: SkillDefinition, fp: Fingerprint) -> bool:
        """True when the SKILL.md that was parsed is byte for byte the one fingerprinted.

        The argv and the read_only/always_ask flags come from the parsed definition, the
        decision from the files on disk; they must describe the same SKILL.md, or a file
        swapped between a reload and a click would run unseen.
        """
        if not skill.source_sha256:
            return True
        on_disk = fp.files.get(skill.source_path.name)
        if skill.source_path.is_symlink():
            try:
                on_disk = hashlib.sha256(skill.source_path.read_bytes()).hexdigest()
            except OSError:
                return False
        return on_disk == skill.source_sha256

    # ------------------------------------------------------------------ approvals
    def approval_list(self) -> list[ApprovalStatus]:
        """Every stored approval, and whether it still covers the skill on disk."""
        current = {s.name: s for s in self._library.skills()}
        out = []
        for record in self.approvals.list():
            skill = current.get(record.skill)
            if skill is None:
                status = ApprovalStatus.GONE
            else:
                try:
                    same = self.fingerprint(skill).digest == record.digest
                except EngineError:
                    same = False
                status = ApprovalStatus.APPROVED if same else ApprovalStatus.CHANGED
            out.append(ApprovalStatus(record, status))
        return out

    def _approve(self, skill: SkillDefinition, fp: Fingerprint) -> None:
        self.approvals.approve(skill.name, fp, skill_dir=skill.directory)
        approved_copies.keep(skill.directory, fp.files)

    def approval_preview(self, name: str) -> ApprovalPreview:
        """What ``approve_skill_by_name`` would trust: the skill as it is on disk now, where
        it came from, every file the approval covers, and what changed since an earlier
        one. Shown before the person says yes; the same fingerprint is then approved, so
        a file changed in between is not covered."""
        skill = self._library.require(name)
        self._refuse_project_skill(skill)
        fp = self.fingerprint(skill)
        state = self.approvals.state_for(skill.name, fp)
        return ApprovalPreview(
            skill=skill,
            fingerprint=fp,
            came_from=explain.came_from(skill),
            files=explain.covered_files(fp),
            approved=state.approved,
            changed_files=state.changed_files,
        )

    @staticmethod
    def _refuse_project_skill(skill: SkillDefinition) -> None:
        """A skill of an untrusted project folder is not trusted by version: trusting the
        project is what makes its skills the person's own (its warning says so)."""
        if skill.trust is not Trust.UNTRUSTED:
            return
        project = project_trust.untrusted_project_of(skill.directory)
        if project is not None:
            raise EngineError(
                f"“{skill.name}” came with the project folder {project}, which you have not "
                f"trusted; trust the project instead: gibberish project trust {project}"
            )

    def approve_preview(self, preview: ApprovalPreview) -> None:
        """Trust exactly the version ``preview`` showed; refused when the skill changed
        since (the person did not see the new files) or it came with an untrusted project
        (trusting the project is the way to make its skills the person's own)."""
        skill = preview.skill
        self._refuse_project_skill(skill)
        if self.fingerprint(skill).digest != preview.fingerprint.digest:
            raise EngineError(
                f"“{skill.name}” changed on disk while you were looking at it; nothing was "
                f"trusted. Run `gibberish approvals approve {skill.name}` again to see the "
                "new version."
            )
        self._approve(skill, preview.fingerprint)

    def approve_skill_by_name(self, name: str) -> Fingerprint:
        """Approve a skill as it is on disk now (every file in its folder)."""
        preview = self.approval_preview(name)
        self.approve_preview(preview)
        return preview.fingerprint

    def approve_prepared(self, prepared: PreparedRun) -> None:
        """ "Trust this version": remember the exact fingerprint the person saw."""
        self._approve(prepared.skill, prepared.fingerprint)

    def revoke(self, name: str) -> bool:
        """Forget a skill's approval and its approved copy; False when it had none."""
        folders = [r.path for r in self.approvals.list() if r.skill == name and r.path]
        removed = self.approvals.revoke(name)
        if removed:
            for folder in folders:
                approved_copies.forget(folder)
        return removed

    def reset(self) -> None:
        """Forget every approval and every approved copy."""
        self.approvals.reset()
        approved_copies.forget_all()

    # ------------------------------------------------------------------ secrets
    def check_secret(self, skill_name: str, secret: str | None = None) -> SkillDefinition:
        """The skill, when it exists and declares ``secret``; else an ``EngineError``."""
        skill = self._library.require(skill_name)
        if secret is not None and secret not in skill.secrets:
            declared = ", ".join(skill.secrets) or "none"
            raise EngineError(
                f"Skill {skill.name} does not declare a secret {secret!r} (it declares: {declared})."
            )
        return skill

    def secret_status(self, skill_name: str) -> dict[str, tuple[bool, bool]]:
        """Each secret a skill declares or has stored: (value stored, declared in SKILL.md)."""
        skill = self.check_secret(skill_name, None)
        stored = set(self.secrets.names(skill))
        names = sorted(set(skill.secrets) | stored)
        return {n: (n in stored, n in skill.secrets) for n in names}

    def store_secret(self, skill_name: str, secret: str, value: str) -> SkillDefinition:
        """Keep a secret the skill declares, bound to that skill's folder (not its name).

        An imported skill that takes the same name never receives it. An empty value is
        refused, never stored. Returns the skill it was stored for.
        """
        skill = self.check_secret(skill_name, secret)
        if not value:
            raise EngineError("An empty value was not stored.")
        try:
            self.secrets.set(skill, secret, value)
        except SecretStoreError as exc:
            raise EngineError(str(exc)) from None
        return skill

    def delete_secret(self, skill_name: str, secret: str) -> bool:
        """Forget a stored secret (bound, or stored by name before secrets were bound)."""
        try:
            skill = self._library.require(skill_name)
        except EngineError:
            return self.secrets.delete(skill_name, secret)
        return self.secrets.delete(skill, secret) | self.secrets.delete(skill_name, secret)

    def secret_storage_warning(self) -> str | None:
        """A sentence when the keyring keeps secrets in plain text; None otherwise."""
        return self.secrets.plaintext_warning()

    def secret_storage_problem(self) -> str | None:
        """A sentence when the keyring keeps nothing (a value set now is lost) or keeps
        values in plain text; None when secrets are kept (``gibberish doctor``)."""
        return self.secrets.storage_warning()
