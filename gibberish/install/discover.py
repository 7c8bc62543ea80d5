"""Finding the skills in a staged folder and checking them with the skills loader.

A staged folder is one skill (``SKILL.md`` at its top) or a folder of skills (each in
a sub-folder, up to a few levels down, like a repository's ``skills/pdf``). Every one is
parsed as ``untrusted`` by the same loader the app uses; errors stop the install.
"""

from __future__ import annotations

import os
from collections import deque
from pathlib import Path

from msgspec import Struct

from gibberish.install.dependencies import Dependencies, frontmatter, read_dependencies
from gibberish.skills.fields import (
    E_NO_TOOLS,
    SKILL_FILE_NAME,
    W_NAME_MISMATCH,
    is_valid_skill_name,
)
from gibberish.skills.kind import parse_either, skill_kind
from gibberish.skills.model import Diagnostic, Profile, SkillDefinition, Trust
from gibberish.skills.named_files import missing_warnings
from gibberish.skills.parser import parse_skill_bytes, read_skill_bytes

MAX_DEPTH = 4
# The loader does not know the installer's field; the warning would only confuse.
_IGNORED_WARNINGS = ("dependencies",)


class InstallError(Exception):
    """An install that cannot go ahead; the message says what, where, and what to do."""


class Found(Struct):
    """One skill in a staged folder."""

    name: str
    folder: Path  # inside the staging folder
    path: str  # relative to the staged root ("" when the root is the skill)
    skill: SkillDefinition
    dependencies: Dependencies
    tokens: int

    @property
    def kind(self) -> str:
        """``tools`` or ``instructions`` (see :mod:`gibberish.skills.kind`)."""
        return skill_kind(self.skill)

    @property
    def warnings(self) -> list[Diagnostic]:
        return [
            d
            for d in self.skill.warnings
            if not (d.code == "W-UNKNOWN-FIELD" and any(w in d.message for w in _IGNORED_WARNINGS))
        ]


def _normalize_skill_md(folder: Path) -> bool:
    """Whether ``folder`` holds a SKILL.md, in any case (``SKILL.MD``, ``skill.md``); in
    a staged copy such a file is renamed ``SKILL.md``, the name every reader expects."""
    if (folder / SKILL_FILE_NAME).is_file():
        return True
    try:
        names = [n for n in os.listdir(folder) if n.lower() == SKILL_FILE_NAME.lower()]
    except OSError:
        return False
    if len(names) != 1 or not (folder / names[0]).is_file() or (folder / names[0]).is_symlink():
        return False
    os.rename(folder / names[0], folder / SKILL_FILE_NAME)
    return True


def skill_folders(root: Path) -> list[Path]:
    """Folders holding a SKILL.md: the root itself, or sub-folders (not inside a skill).
    ``root`` is a private staged copy: a SKILL.md in another case is renamed there."""
    if _normalize_skill_md(root):
        return [root]
    found: list[Path] = []
    queue = deque([(root, 0)])
    while queue:
        folder, depth = queue.popleft()
        for child in sorted(folder.iterdir()):
            if child.name.startswith(".") or child.is_symlink() or not child.is_dir():
                continue
            if _normalize_skill_md(child):
                found.append(child)
            elif depth + 1 < MAX_DEPTH:
                queue.append((child, depth + 1))
    return found


def discover(root: Path, origin: str) -> list[Found]:
    """Every skill under ``root``; InstallError when there is none, one is broken, or two clash."""
    folders = skill_folders(root)
    if not folders:
        raise InstallError(
            f"{origin}: no SKILL.md found (looked in the top folder and {MAX_DEPTH} levels below)."
        )
    found = [_check(folder, root, origin) for folder in folders]
    seen: dict[str, Found] = {}
    for item in found:
        if item.name in seen:
            raise InstallError(
                f"{origin}: two skills are named “{item.name}” "
                f"({seen[item.name].path or '.'} and {item.path or '.'}); rename one."
            )
        seen[item.name] = item
    return found


def found_at(folder: Path, root: Path, origin: str) -> Found:
    """The one skill in ``folder`` (inside the staged ``root``), checked as discover does."""
    return _check(folder, root, origin)


def _check(folder: Path, root: Path, origin: str) -> Found:
    skill_md = folder / SKILL_FILE_NAME
    relative = folder.relative_to(root).as_posix()
    relative = "" if relative == "." else relative
    shown = f"{origin}{'/' + relative if relative else ''}/{SKILL_FILE_NAME}"
    text = skill_md.read_text("utf-8", errors="replace")
    fields = frontmatter(text)
    declared = fields.get("name")
    name = declared if isinstance(declared, str) and is_valid_skill_name(declared) else folder.name
    data, problem = read_skill_bytes(skill_md)
    skill = parse_either(
        data, problem, path=skill_md, trust=Trust.UNTRUSTED, expected_name=name
    )  # a valid Agent Skills instruction skill installs as one (docs/adr/0034)
    if not skill.ok or not is_valid_skill_name(skill.name):
        errors = skill.errors
        how = ""
        if data is not None and any(d.code == E_NO_TOOLS for d in errors):
            # no tools: what matters is why it is no valid instruction skill either
            errors = (
                parse_skill_bytes(
                    data, None, path=skill_md, profile=Profile.AGENTSKILLS, expected_name=name
                ).errors
                or errors
            )
            how = " (read as an instruction skill, by the Agent Skills rules)"
        problems = "\n".join("  " + _shown(d, str(skill_md), shown) for d in errors)
        raise InstallError(
            f"{shown} is not a skill gibberish can install{how}:\n{problems or '  no valid name'}"
        )
    try:
        dependencies = read_dependencies(skill_md, fields)  # the text was valid UTF-8
    except ValueError as exc:
        raise InstallError(str(exc).replace(str(skill_md), shown)) from None
    return Found(skill.name, folder, relative, skill, dependencies, max(1, len(text) // 4))


def _shown(diagnostic: Diagnostic, real: str, shown: str) -> str:
    return diagnostic.format().replace(real, shown)


def show_warnings(found: Found, origin: str) -> list[str]:
    """The warnings the install preview shows: the loader's, a ``name`` that differs from
    the folder (the install names the folder after it), and files SKILL.md names that
    the folder lacks (as ``skills check`` and ``compile`` warn)."""
    real = str(found.folder / SKILL_FILE_NAME)
    shown = f"{origin}{'/' + found.path if found.path else ''}/{SKILL_FILE_NAME}"
    lines = [_shown(d, real, shown) for d in found.warnings]
    folder = found.path.rsplit("/", 1)[-1] if found.path else Path(origin).name
    if found.name != folder and (found.path or Path(origin).is_dir()):
        lines.append(
            f"{shown}: warning {W_NAME_MISMATCH}: the skill is named {found.name!r} but its "
            f"folder is {folder!r}; it is installed as {found.name!r}."
        )
    lines += [_shown(d, real, shown) for d in missing_warnings(found.skill)]
    return lines
