"""Which project a folder belongs to: the nearest folder above it with a gibberish.toml.

Part of where skills come from, so it sits with the library's sources (below the
Engine) rather than with the installer: the Engine asks it whenever the tray follows the
focused app's project, and it imports nothing heavy (no network or git).
"""

from __future__ import annotations

from pathlib import Path

MANIFEST = "gibberish.toml"


def find_project(start: Path) -> Path | None:
    """The nearest folder at or above ``start`` holding a gibberish.toml, or None."""
    try:
        start = Path(start).resolve()
    except (OSError, RuntimeError):
        return None
    for folder in (start, *start.parents):
        if (folder / MANIFEST).is_file():
            return folder
    return None


def project_skills_dir(project: Path) -> Path:
    return project / ".gibberish" / "skills"
