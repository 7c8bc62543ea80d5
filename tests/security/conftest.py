"""The tests of hostile input across features: the CLI in-process."""

from tests.helpers.skill_folders import gib  # noqa: F401  (fixtures)
