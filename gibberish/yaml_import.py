"""PyYAML, imported with its own regular expressions compiled on first use.

``import yaml`` loads every part of PyYAML, the pure-Python reader, emitter and dumper
included, and compiles their patterns: the reader's check for unprintable characters
alone (a class of Unicode ranges) costs more than the rest of the import. gibberish
loads with libyaml (``CSafeLoader``), which never uses that pattern, and resolves only
the few scalars a frontmatter holds, so most of the patterns are never needed.

Importing ``yaml`` from here (``from gibberish.yaml_import import yaml``) compiles each
of PyYAML's module-level patterns when it is first used. Only patterns compiled by
PyYAML's own modules during that import are deferred, and only when ``yaml`` was not
imported yet; PyYAML uses each through its own methods (``pattern.match(value)``),
which the deferred pattern answers.
"""

from __future__ import annotations

import re
import sys
from typing import Any

from gibberish.lazy import lazy_pattern

_compile_now = re.compile


def _compile_later(pattern: Any, flags: int = 0) -> Any:
    caller = sys._getframe(1).f_globals.get("__name__", "")
    if isinstance(pattern, str) and caller.startswith("yaml."):
        return lazy_pattern(pattern, flags)
    return _compile_now(pattern, flags)


if "yaml" not in sys.modules:
    re.compile = _compile_later
try:
    import yaml as yaml
finally:
    re.compile = _compile_now
