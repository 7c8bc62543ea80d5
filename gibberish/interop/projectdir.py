"""Moved to :mod:`gibberish.skills.projectdir` (below the Engine, which asks it).

Re-exported here while branches that still import this path are merged.
"""

from gibberish.skills.projectdir import MANIFEST, find_project, project_skills_dir

__all__ = ["MANIFEST", "find_project", "project_skills_dir"]
