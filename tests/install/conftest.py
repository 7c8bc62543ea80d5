"""The install tests: the CLI in-process, the user's skills folder, the install state."""

from tests.helpers.skill_folders import gib, state_file, terminal, user_skills  # noqa: F401  (fixtures)
