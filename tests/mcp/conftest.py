"""The MCP tests: a skills folder with an approved tool, one that asks, and a guide."""

from tests.helpers.skill_folders import skills_dir  # noqa: F401  (fixtures)
