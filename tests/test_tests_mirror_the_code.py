"""The test folders mirror the code: one folder per package of gibberish/, named as it is.

A reader looking for the tests of ``gibberish/install/`` finds them in ``tests/install/``.
The few folders that mirror no package say here what they hold instead.
"""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO_ROOT

NOT_A_PACKAGE = {
    "helpers": "builders, fixtures and probes the other folders share",
    "fonts": "the fonts Qt renders with in tests",
    "bundled": "the skills shipped in skills/, run as a person runs them",
    "security": "hostile input across features: skills, archives, links, names, requests",
}


def _packages(root: Path) -> set[str]:
    return {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").is_file()}


def test_every_package_has_its_test_folder_and_every_test_folder_a_reason() -> None:
    packages = _packages(REPO_ROOT / "gibberish")
    folders = _packages(REPO_ROOT / "tests")
    assert sorted(packages - folders) == []
    assert sorted(folders - packages) == sorted(NOT_A_PACKAGE)
