"""Where a run starts: the git root of the user's context, else the home folder.

Tools like ``git status`` or ``make`` mean "this project", and the project is the
repository around the folder the user is looking at — not whatever subfolder their
terminal happens to be in. The walk looks for a ``.git`` directory *or file* (worktrees
and submodules use a file) and never starts ``git``: choosing a folder must not run
anything, least of all inside a repository that may carry hostile config.
"""

from __future__ import annotations

import os
from pathlib import Path


def _home(home: Path | None) -> Path:
    return Path(home) if home is not None else Path.home()


def git_root(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding ``.git``, or None."""
    current = Path(os.path.abspath(start))  # logical path: keep the user's symlinks
    if not current.is_dir():
        current = current.parent
    for folder in (current, *current.parents):
        marker = folder / ".git"
        try:
            if marker.is_dir() or marker.is_file():
                return folder
        except OSError:  # unreadable folder on the way up: keep walking
            continue
    return None


def working_directory(context_dir: Path | None, *, home: Path | None = None) -> Path:
    """Git root of ``context_dir``; the home folder when there is none or it is gone."""
    if context_dir is None:
        return _home(home)
    context = Path(context_dir)
    if not context.exists():
        return _home(home)
    return git_root(context) or _home(home)
