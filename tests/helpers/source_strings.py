"""The string literals of a Python module, as a person could read them on screen."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from pathlib import Path


def string_literals(path: Path) -> Iterable[tuple[int, str]]:
    """Every string literal of a module (f-strings' text parts too), docstrings left out."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.lineno, node.value
