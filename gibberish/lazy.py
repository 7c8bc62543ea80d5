"""Public names of a package that load their module on first use.

``gibberish.voice`` and ``gibberish.assistant`` name many classes at the package level,
but most commands need none of them: reading the settings at every start must not load
a recognizer or the model feed. A package lists where each name lives and gets a
module-level ``__getattr__`` and ``__dir__`` from here, so the rule is written once.
"""

from __future__ import annotations

import importlib
import re
import sys
from collections.abc import Callable, Mapping
from typing import Any, cast


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


class _LazyPattern:
    """A regular expression compiled the first time one of its methods is asked for.

    Each attribute read from the compiled pattern is kept on the instance, so from the
    second use on a lookup is an ordinary attribute read (no ``__getattr__`` call)."""

    def __init__(self, pattern: str, flags: int) -> None:
        self._source = (pattern, flags)

    def __getattr__(self, name: str) -> Any:
        compiled = re.compile(*self._source)
        value = getattr(compiled, name)
        self.__dict__[name] = value
        return value

    def __repr__(self) -> str:
        return f"lazy_pattern({self._source[0]!r}, {self._source[1]!r})"


def lazy_pattern(pattern: str, flags: int = 0) -> re.Pattern[str]:
    """``re.compile(pattern, flags)``, compiled on first use.

    ``re`` parses a pattern in Python, about 0.1 ms to several ms each; a module that
    holds dozens of patterns for rare cases makes every process that imports it pay for
    all of them (``gibberish install FOLDER`` used a third of its patterns). Only the
    pattern's methods and attributes are available: pass it to its own methods, never
    to ``re.sub(pattern, ...)`` and friends."""
    return cast("re.Pattern[str]", _LazyPattern(pattern, flags))
