"""A built wheel is a working install: it carries the bundled skills and the icons.

The test builds a wheel from a copy of the source tree, installs it into a folder of its
own, and runs gibberish from there, away from the checkout, so nothing can be read from
the source tree by accident.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SKIP = shutil.ignore_patterns(
    ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".pytest_cache", ".ruff_cache"
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("wheel")
    source = work / "source"
    shutil.copytree(ROOT, source, ignore=SKIP, symlinks=True)
    wheels = work / "wheels"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation",
         "-w", str(wheels), str(source)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (wheel,) = wheels.glob("gibberish-*.whl")
    target = work / "site"
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(wheel)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    with zipfile.ZipFile(wheel) as archive:
        assert "gibberish/_shipped/skills/git/SKILL.md" in archive.namelist()
    return target


def _gibberish(target: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(target)}
    return subprocess.run(
        [str(target / "bin" / "gibberish"), *args],  # the console script the wheel installs
        cwd=target.parent, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def test_the_installed_package_is_the_one_that_runs(installed: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed)}
    where = subprocess.run(
        [sys.executable, "-c", "import gibberish; print(gibberish.__file__)"],
        cwd=installed.parent, env=env, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert Path(where).is_relative_to(installed)


def test_a_wheel_lists_the_bundled_skills(installed: Path) -> None:
    result = _gibberish(installed, "--no-user-skills", "skills", "list", "--json")
    assert result.returncode == 0, result.stderr
    skills = {skill["name"]: skill for skill in json.loads(result.stdout)}
    assert {"git", "files", "system", "web", "notes"} <= set(skills)
    for skill in skills.values():
        assert skill["trust"] == "bundled"
        assert skill["ok"], skill["diagnostics"]
        assert Path(skill["path"]).is_relative_to(installed / "gibberish" / "_shipped")


def test_a_wheel_carries_the_icons_and_executable_scripts(installed: Path) -> None:
    shipped = installed / "gibberish" / "_shipped"
    icons = sorted(p.name for p in (shipped / "resources").glob("*.svg"))
    assert icons == sorted(p.name for p in (ROOT / "resources").glob("*.svg"))
    for icon in (shipped / "resources").glob("*.svg"):
        assert b"<svg" in icon.read_bytes()
    for script in (ROOT / "skills").rglob("scripts/*"):
        copy = shipped / "skills" / script.relative_to(ROOT / "skills")
        assert os.access(copy, os.X_OK), f"{copy} lost its executable bit"


def test_the_paths_module_points_into_the_wheel(installed: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(installed)}
    code = "from gibberish import paths; print(paths.bundled_skills_dir()); print(paths.resources_dir())"
    lines = subprocess.run(
        [sys.executable, "-c", code], cwd=installed.parent, env=env,
        capture_output=True, text=True, check=True,
    ).stdout.split()  # fmt: skip
    assert [Path(line) for line in lines] == [
        installed / "gibberish" / "_shipped" / "skills",
        installed / "gibberish" / "_shipped" / "resources",
    ]
