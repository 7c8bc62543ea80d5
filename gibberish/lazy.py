"""Public names of a package that load their module on first use.

``gibberish.voice`` and ``gibberish.assistant`` name many classes at the package level,
but most commands need none of them: reading the settings at every start must not load
a recognizer or the model feed. A package lists where each name lives and gets a
module-level ``__getattr__`` and ``__dir__`` from here, so the rule is written once.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(
    package: str, homes: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``homes`` maps a public name to the
    module that defines it; a name is imported once, then kept in the package."""
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = homes.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *homes})

    return __getattr__, __dir__
