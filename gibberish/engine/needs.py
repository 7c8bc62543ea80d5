"""What a tool needs of the folder it runs in, said before it runs (the form, the CLI).

The git tools read the repository around their working folder; started anywhere else,
git prints ``fatal: not a git repository`` — true, but a person should learn it before
the run, in words, with the folders that would work. A tool needs a repository when its
program is git or a wrapper named for it (``git``, ``safe-git``, ``my-git``). The check
walks up for ``.git`` (``workdir.git_root``) and never starts git.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING

from msgspec import Struct

from gibberish.paths import home_short
from gibberish.runner.workdir import git_root

if TYPE_CHECKING:
    from gibberish.skills.model import ToolDefinition


class FolderNeed(Struct, frozen=True):
    """Something the working folder must have: ``what`` names it for a person."""

    what: str

    def met_by(self, folder: Path) -> bool:
        return git_root(folder) is not None


GIT_REPOSITORY = FolderNeed("a git repository")


def folder_need(tool: ToolDefinition) -> FolderNeed | None:
    """What ``tool`` needs of its folder (None: any folder will do)."""
    command = tool.command
    if command is None:
        return None
    try:
        program = PurePosixPath(command.program).name
    except (AttributeError, ValueError):
        return None
    if program == "git" or program.endswith("-git"):
        return GIT_REPOSITORY
    return None


def lacking(tool: ToolDefinition, title: str, folder: Path) -> str:
    """A sentence saying what ``folder`` lacks for ``tool`` ("" when nothing)."""
    need = folder_need(tool)
    if need is None or need.met_by(folder):
        return ""
    return f"{title} needs {need.what}, and {home_short(folder)} is not in one."


def fitting(tool: ToolDefinition, folders: Iterable[Path]) -> list[Path]:
    """The ``folders`` that still exist and give ``tool`` what it needs, in order."""
    need = folder_need(tool)
    found = []
    for folder in folders:
        try:
            if folder.is_dir() and (need is None or need.met_by(folder)):
                found.append(folder)
        except OSError:
            continue
    return found
