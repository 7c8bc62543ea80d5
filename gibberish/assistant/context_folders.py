"""Other agents' instruction skills: find them, and import the ones a person picks.

Claude Code, Codex, Cursor, Gemini CLI, Copilot and Devin keep Agent Skills in
``~/.<agent>/skills/<name>/SKILL.md`` (``~/.agents/skills`` is a shared one). A scan
reads each with the Agent Skills profile and offers those without runnable tools as a
checklist (name, description, token estimate).
An import copies the picked folder — regular files only, no symlinks — into gibberish's
own context folder (``<data folder>/context/<name>``) and records where it came from
(``.gibberish-source.json``): such a block is ``untrusted`` and says so. Imported blocks
live apart from the skills folders on purpose: they have no tools, and the tool library
would list every one of them as a skill that fails to load.

A block's name is one :class:`~gibberish.pathsafety.PathComponent`. Importing a name
again replaces the block gibberish imported before (its provenance file says so); a
folder or link of that name gibberish did not write is never replaced. The source is
kept without credentials (:mod:`gibberish.redaction`).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from msgspec import Struct

from gibberish import paths
from gibberish.assistant.budget import estimate_tokens
from gibberish.assistant.context_blocks import ContextBlock, as_context_block
from gibberish.pathsafety import (
    OutsideTargetError,
    PathComponent,
    UnsafeNameError,
    WouldReplaceError,
    is_path_component,
    replace_allowed,
    resolve_inside,
)
from gibberish.redaction import without_credentials
from gibberish.skills.model import Profile, Trust
from gibberish.skills.parser import parse_skill_file
from gibberish.trust.provenance import read_provenance, write_provenance

AGENT_FOLDERS = (
    ("claude", ".claude/skills"),
    ("codex", ".codex/skills"),
    ("agents", ".agents/skills"),
    ("cursor", ".cursor/skills"),
    ("gemini", ".gemini/skills"),
    ("copilot", ".copilot/skills"),
    ("devin", ".config/devin/skills"),
)
MAX_IMPORT_BYTES = 8 * 1024 * 1024


class ImportError_(Exception):
    """An import that cannot be done; the message says what to do."""


class Candidate(Struct, frozen=True):
    name: str
    description: str
    tokens: int
    folder: Path
    agent: str
    problem: str = ""
    """Why it cannot be imported ("" when it can)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "tokens": self.tokens,
            "folder": str(self.folder),
            "agent": self.agent,
            "problem": self.problem,
        }


def context_dir() -> Path:
    return paths.data_dir() / "context"


def default_folders() -> list[tuple[str, Path]]:
    home = Path.home()
    return [(agent, home / rel) for agent, rel in AGENT_FOLDERS]


def scan(folders: list[tuple[str, Path]] | None = None) -> list[Candidate]:
    """Every ``*/SKILL.md`` under the folders, as import candidates, sorted by name."""
    out = []
    for agent, folder in folders if folders is not None else default_folders():
        if not folder.is_dir():
            continue
        for entry in sorted(folder.iterdir()):
            if (entry / "SKILL.md").is_file():
                out.append(_candidate(agent, entry))
    return sorted(out, key=lambda c: (c.name, c.agent))


def _candidate(agent: str, folder: Path) -> Candidate:
    skill = parse_skill_file(
        folder / "SKILL.md", profile=Profile.AGENTSKILLS, trust=Trust.UNTRUSTED
    )
    tokens = estimate_tokens(skill.body)
    problem = ""
    if not skill.ok:
        problem = skill.errors[0].format()
    elif skill.tools:
        problem = "it has runnable tools: add its folder to the skills folders instead"
    return Candidate(skill.name, skill.description, tokens, folder, agent, problem)


def _copy_regular_files(source: Path, target: Path) -> None:
    total = 0
    for folder, dirs, files in os.walk(source, followlinks=False):
        here = Path(folder)
        dirs[:] = [d for d in dirs if not d.startswith(".") and not (here / d).is_symlink()]
        for name in files:
            path = here / name
            if path.is_symlink() or not path.is_file():
                continue
            total += path.stat().st_size
            if total > MAX_IMPORT_BYTES:
                raise ImportError_(f"{source} holds more than {MAX_IMPORT_BYTES} bytes of files.")
            dest = target / path.relative_to(source)
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, dest)


def import_candidate(candidate: Candidate) -> ContextBlock:
    """Copy the candidate in as an untrusted context block (with its provenance); a
    block of the same name is replaced (``replaces`` tells beforehand)."""
    if candidate.problem:
        raise ImportError_(f"{candidate.name} cannot be imported: {candidate.problem}.")
    return install_block(candidate.folder, candidate.name, str(candidate.folder), "folder")[0]


def replaces(name: str) -> bool:
    """Whether importing ``name`` replaces a block imported before."""
    return (context_dir() / name).is_dir()


def install_block(folder: Path, name: str, source: str, kind: str) -> tuple[ContextBlock, bool]:
    """Copy ``folder`` (regular files only) in as block ``name`` with its provenance;
    returns the block and whether it replaced one of that name. Checked first: a folder
    that is no valid instruction skill is refused and nothing changes."""
    from gibberish.trust.fingerprint import fingerprint  # hashing code, needed only here

    target = _block_target(name)  # first: a name that is a path is refused as such
    skill = parse_skill_file(
        folder / "SKILL.md", profile=Profile.AGENTSKILLS, trust=Trust.UNTRUSTED, expected_name=name
    )
    if not skill.ok:
        raise ImportError_(f"{name} cannot be imported: {skill.errors[0].format()}")
    if skill.tools:
        raise ImportError_(f"{name} has runnable tools: install it as a skill instead.")
    staging, old = (context_dir() / n for n in (f".{name}.importing", f".{name}.old"))
    for leftover in (staging, old):
        shutil.rmtree(leftover, ignore_errors=True)
    replaced = target.is_dir()
    try:
        _copy_regular_files(folder, staging)
        write_provenance(staging, without_credentials(source), kind, fingerprint(staging).digest)
        if replaced:
            target.rename(old)
        staging.rename(target)
    except BaseException:
        if replaced and old.is_dir() and not target.exists():
            old.rename(target)  # the previous block stays when the new one fails
        raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)
        shutil.rmtree(old, ignore_errors=True)
    block = imported_block(target)
    if block is None:  # pragma: no cover - it parsed a moment ago
        raise ImportError_(f"{name} changed while it was imported; import it again.")
    return block, replaced


def _block_target(name: str) -> Path:
    """``<context folder>/<name>``: the name one path component, reached through no link
    out of the context folder, and replaceable only when gibberish imported it."""
    root = context_dir()
    try:
        target = resolve_inside(root, PathComponent(name, "block name"))
        ours = not target.is_symlink() and read_provenance(target) is not None
        replace_allowed(target, ours=ours, force=False, what="context block")
    except (UnsafeNameError, OutsideTargetError, WouldReplaceError) as exc:
        raise ImportError_(f"{name!r} cannot be imported: {exc}") from None
    return target


def imported_block(folder: Path) -> ContextBlock | None:
    skill = parse_skill_file(
        folder / "SKILL.md", profile=Profile.AGENTSKILLS, trust=Trust.UNTRUSTED
    )
    return as_context_block(skill)


def imported_blocks() -> list[ContextBlock]:
    root = context_dir()
    if not root.is_dir():
        return []
    found = (imported_block(d) for d in sorted(root.iterdir()) if not d.name.startswith("."))
    return [b for b in found if b is not None]


def remove_imported(name: str) -> bool:
    folder = context_dir() / name
    if not is_path_component(name) or name.startswith(".") or folder.is_symlink():
        return False
    if not folder.is_dir():
        return False
    shutil.rmtree(folder)
    return True
