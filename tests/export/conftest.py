"""The export tests: the real Gemini CLI, the CLI in-process, skill folders to export."""

from tests.helpers.skill_folders import gemini_cli, gib, skills_dir, user_skills  # noqa: F401  (fixtures)
