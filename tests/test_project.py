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


# --- function size ---------------------------------------------------------------------

MAX_FUNCTION_LINES = 60
MAX_FUNCTION_BRANCHES = 15
_BRANCH_NODES = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.Try,
    ast.ExceptHandler,
    ast.With,
    ast.AsyncWith,
    ast.BoolOp,
    ast.IfExp,
    ast.comprehension,
    ast.Match,
)
SIZE_CHECKED = ("gibberish/skills", "gibberish/trust")
"""The security boundary (what a skill may do, and whether it was approved) must stay
easy to review: no function there over 60 lines or 15 branches."""
SIZE_ALLOWLIST: dict[str, str] = {}
"""``path:function`` -> why it must stay as it is."""


def _branches(function: ast.AST) -> int:
    return sum(
        isinstance(node, _BRANCH_NODES) for node in ast.walk(function) if node is not function
    )


def _function_sizes(path: Path) -> list[tuple[str, int, int]]:
    """(name, lines, branches) of every function and method in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        (node.name, (node.end_lineno or node.lineno) - node.lineno + 1, _branches(node))
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
    ]


def test_branches_are_counted_as_documented() -> None:
    source = "def f(x):\n    if x and [y for y in x]:\n        return 1 if x else 2\n"
    function = ast.parse(source).body[0]
    assert _branches(function) == 4  # if, and, comprehension, ternary


def test_no_long_or_branchy_function_in_the_security_boundary() -> None:
    offenders = []
    for folder in SIZE_CHECKED:
        for path in _modules(REPO_ROOT / folder):
            rel = path.relative_to(REPO_ROOT).as_posix()
            for name, lines, branches in _function_sizes(path):
                too_big = lines > MAX_FUNCTION_LINES or branches > MAX_FUNCTION_BRANCHES
                if too_big and f"{rel}:{name}" not in SIZE_ALLOWLIST:
                    offenders.append(f"{rel}:{name} ({lines} lines, {branches} branches)")
    assert offenders == [], "split these functions:\n" + "\n".join(offenders)


def test_size_allowlist_has_no_stale_entries() -> None:
    sizes = {
        f"{path.relative_to(REPO_ROOT).as_posix()}:{name}": (lines, branches)
        for folder in SIZE_CHECKED
        for path in _modules(REPO_ROOT / folder)
        for name, lines, branches in _function_sizes(path)
    }
    stale = [
        key
        for key in SIZE_ALLOWLIST
        if key not in sizes
        or (sizes[key][0] <= MAX_FUNCTION_LINES and sizes[key][1] <= MAX_FUNCTION_BRANCHES)
    ]
    assert stale == []
