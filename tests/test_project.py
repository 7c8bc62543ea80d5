"""Project-wide rules: lint, formatting, and the layering of docs/adr/0001-layers.md."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "gibberish"


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


def _modules(under: Path) -> list[Path]:
    return sorted(p for p in under.rglob("*.py") if "__pycache__" not in p.parts)


def test_qt_is_imported_only_under_ui() -> None:
    offenders = [
        str(p.relative_to(REPO_ROOT))
        for p in _modules(PACKAGE)
        if "ui" not in p.relative_to(PACKAGE).parts[:1]
        and any(name.split(".")[0] in {"PySide6", "shiboken6"} for name in _imports(p))
    ]
    assert offenders == [], f"Qt imported outside gibberish/ui: {offenders}"


@pytest.mark.parametrize(
    ("layer", "forbidden"),
    [
        (
            "skills",
            {
                "gibberish.runner",
                "gibberish.trust",
                "gibberish.app",
                "gibberish.cli",
                "gibberish.assistant",
                "gibberish.ui",
                "subprocess",
            },
        ),
        (
            "runner",
            {
                "gibberish.trust",
                "gibberish.app",
                "gibberish.cli",
                "gibberish.ui",
                "gibberish.assistant",
            },
        ),
        (
            "trust",
            {
                "gibberish.app",
                "gibberish.cli",
                "gibberish.ui",
                "gibberish.assistant",
                "gibberish.runner",
            },
        ),
        ("assistant", {"gibberish.app", "gibberish.cli", "gibberish.ui"}),
    ],
)
def test_imports_point_down(layer: str, forbidden: set[str]) -> None:
    offenders = []
    for path in _modules(PACKAGE / layer):
        for name in _imports(path):
            if any(name == f or name.startswith(f + ".") for f in forbidden):
                offenders.append(f"{path.relative_to(REPO_ROOT)} imports {name}")
    assert offenders == []


def test_nothing_runs_through_a_shell() -> None:
    offenders = []
    for path in _modules(PACKAGE):
        text = path.read_text(encoding="utf-8")
        for needle in ("shell=True", "os.system(", "os.popen("):
            if needle in text:
                offenders.append(f"{path.relative_to(REPO_ROOT)}: {needle}")
    assert offenders == []


def _ruff() -> list[str]:
    exe = shutil.which("ruff", path=str(Path(sys.executable).parent))
    if exe is None:
        pytest.skip("ruff is not installed (it is in the dev extra)")
    return [exe]


def test_ruff_check_is_clean() -> None:
    result = subprocess.run(
        [*_ruff(), "check", "--quiet", "."], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_ruff_format_is_clean() -> None:
    result = subprocess.run(
        [*_ruff(), "format", "--check", "--quiet", "."],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
