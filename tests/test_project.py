"""Project-wide rules: lint, formatting, sizes, and what the code may use (docs/architecture.md)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from dataclasses import dataclass
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


def test_records_are_one_kind() -> None:
    """Records are msgspec Structs (docs/adr/0100): a dataclass would bring back the
    methods compiled at every import, and a second ``replace`` that fails at run time on
    the other kind (the type checker accepts either)."""
    offenders = [
        str(p.relative_to(REPO_ROOT))
        for p in _modules(PACKAGE)
        if "dataclasses" in {name.split(".")[0] for name in _imports(p)}
    ]
    assert offenders == [], f"dataclasses imported (use msgspec.Struct): {offenders}"


def test_loggers_come_from_gibberish_logger() -> None:
    """A logger made by ``logging.getLogger`` would write before the command line's log
    file is attached (docs/adr/0101); only the log set-ups name ``logging`` loggers."""
    set_ups = {"logger.py", "cli/logfile.py", "ui/errors.py"}
    offenders = [
        str(p.relative_to(REPO_ROOT))
        for p in _modules(PACKAGE)
        if str(p.relative_to(PACKAGE)) not in set_ups
        and "logging.getLogger(" in p.read_text(encoding="utf-8")
    ]
    assert offenders == [], f"use gibberish.logger.logger: {offenders}"


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
MAX_CLASS_LINES = 400
SIZE_CHECKED = ("gibberish",)
"""Every package: code stays easy to review when no function is over 60 lines or 15
branches and no class over 400 lines (the security boundary, skills/ and trust/, first
of all)."""
SIZE_ALLOWLIST: dict[str, str] = {}
"""``path:function`` (or ``path:Class``) -> why it must stay as it is for now."""


def _branches(function: ast.AST) -> int:
    return sum(
        isinstance(node, _BRANCH_NODES) for node in ast.walk(function) if node is not function
    )


@dataclass(frozen=True)
class Size:
    name: str
    lines: int
    branches: int
    is_class: bool

    @property
    def too_big(self) -> bool:
        if self.is_class:
            return self.lines > MAX_CLASS_LINES
        return self.lines > MAX_FUNCTION_LINES or self.branches > MAX_FUNCTION_BRANCHES

    def __str__(self) -> str:
        if self.is_class:
            return f"{self.name} (class, {self.lines} lines; at most {MAX_CLASS_LINES})"
        return f"{self.name} ({self.lines} lines, {self.branches} branches)"


def _sizes(path: Path) -> list[Size]:
    """The size of every function, method and class in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        Size(
            node.name,
            (node.end_lineno or node.lineno) - node.lineno + 1,
            0 if isinstance(node, ast.ClassDef) else _branches(node),
            isinstance(node, ast.ClassDef),
        )
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
    ]


def _all_sizes() -> dict[str, Size]:
    return {
        f"{path.relative_to(REPO_ROOT).as_posix()}:{size.name}": size
        for folder in SIZE_CHECKED
        for path in _modules(REPO_ROOT / folder)
        for size in _sizes(path)
        if size.too_big
    }


def test_branches_are_counted_as_documented() -> None:
    source = "def f(x):\n    if x and [y for y in x]:\n        return 1 if x else 2\n"
    function = ast.parse(source).body[0]
    assert _branches(function) == 4  # if, and, comprehension, ternary


def test_no_long_or_branchy_function_and_no_long_class_anywhere() -> None:
    offenders = []
    for folder in SIZE_CHECKED:
        for path in _modules(REPO_ROOT / folder):
            rel = path.relative_to(REPO_ROOT).as_posix()
            offenders += [
                f"{rel}:{size}"
                for size in _sizes(path)
                if size.too_big and f"{rel}:{size.name}" not in SIZE_ALLOWLIST
            ]
    assert offenders == [], "split these functions and classes:\n" + "\n".join(offenders)


def test_a_long_class_is_caught(tmp_path: Path) -> None:
    path = tmp_path / "big.py"
    path.write_text("class Big:\n" + "    x = 1\n" * MAX_CLASS_LINES)
    assert [s.too_big for s in _sizes(path)] == [True]
    path.write_text("class Small:\n" + "    x = 1\n" * (MAX_CLASS_LINES - 1))
    assert [s.too_big for s in _sizes(path)] == [False]


def _stale(allowlist: dict[str, str]) -> list[str]:
    """Entries whose function or class is gone, or now fits the budget."""
    too_big = _all_sizes()
    return [key for key in allowlist if key not in too_big]


def test_size_allowlist_has_no_stale_entries() -> None:
    assert _stale(SIZE_ALLOWLIST) == []


def test_a_stale_allowlist_entry_is_found() -> None:
    """The check above must be able to fail: a function that fits, and one that is gone."""
    fits = "gibberish/paths.py:home_short"
    assert _stale({fits: "fits", "gibberish/engine/core.py:nowhere": "gone"}) == [
        fits,
        "gibberish/engine/core.py:nowhere",
    ]
